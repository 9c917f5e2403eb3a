// Hosted mode's bounds on what one provider response can make the host do: programs per
// response and per conversation, a program's code size and its calls. A program over a
// bound is refused before any journal write, policy or span; its calls are refused with
// the bound's name; the programs within the bounds go on as usual.
import { describe, expect, it } from '@jest/globals';
import { fromAnthropicToolUses } from '../../src/adapters/anthropic.ts';
import { fromOpenAIResponsesCalls } from '../../src/adapters/openai.ts';
import { DEFAULT_HOSTED_LIMITS, type HostedConversation, type ToolResult } from '../../src/index.ts';
import { hostedRuntime } from './support/hosted-tools.ts';

const CODE_EXECUTION = 'code_execution_20260120';

const programBlock = (id: string, code = 'await get_inventory({"sku": "A1"})') => ({
  type: 'server_tool_use',
  id,
  name: 'code_execution',
  input: { code },
});
const callBlock = (id: string, programId: string) => ({
  type: 'tool_use',
  id,
  name: 'get_inventory',
  input: { sku: 'A1' },
  caller: { type: CODE_EXECUTION, tool_id: programId },
});
const endBlock = (programId: string) => ({
  type: 'code_execution_tool_result',
  tool_use_id: programId,
  content: { type: 'code_execution_result', stdout: '', stderr: '', return_code: 0, content: [] },
});

const text = (r: ToolResult | undefined): string =>
  (r?.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');

/** How many hosted program executions the journal recorded as started. */
async function programsJournaled(journal: { read(): Promise<{ events: readonly unknown[] }> }): Promise<number> {
  const { events } = await journal.read();
  return events.filter((e) => JSON.stringify(e).includes('"srvtoolu_')).length;
}

describe('hosted mode bounds', () => {
  it('a response with 20,000 program blocks: only programsPerResponse are taken, the rest refused at a bounded cost', async () => {
    const { rt, journal } = hostedRuntime();
    const conversation = rt.hostedConversation();
    const blocks = Array.from({ length: 20_000 }, (_, i) => programBlock(`srvtoolu_${i}`, 'x'.repeat(40_000)));
    blocks.push(callBlock('toolu_first', 'srvtoolu_0') as never, callBlock('toolu_late', 'srvtoolu_19999') as never);
    const calls = fromAnthropicToolUses({ role: 'assistant', content: blocks } as never, rt, { conversation });
    const taken = conversation.programs().filter((p) => p.state !== 'refused');
    expect(taken).toHaveLength(DEFAULT_HOSTED_LIMITS.programsPerResponse);
    // Refused ones are remembered only up to a bound.
    expect(conversation.programs().length).toBeLessThanOrEqual(DEFAULT_HOSTED_LIMITS.programsPerResponse + 1_000);
    const { results } = await rt.executeTurn(calls, { conversation });
    expect(results[0]?.isError).toBe(false);
    expect(results[1]?.isError).toBe(true);
    expect(text(results[1])).toMatch(/DENIED|denied|refused/u);
    fromAnthropicToolUses({ role: 'assistant', content: [endBlock('srvtoolu_0')] } as never, rt, { conversation });
    await conversation.close();
    // No journal work for the refused programs.
    const journaled = await programsJournaled(journal);
    expect(journaled).toBeGreaterThan(0);
    expect(journaled).toBeLessThan(20 * DEFAULT_HOSTED_LIMITS.programsPerResponse);
  }, 120_000);

  it('a refused program names the bound in its calls (programsPerResponse)', async () => {
    const { rt } = hostedRuntime();
    const conversation = rt.hostedConversation({ limits: { programsPerResponse: 1 } });
    const calls = fromAnthropicToolUses(
      [programBlock('srvtoolu_a'), programBlock('srvtoolu_b'), callBlock('toolu_b', 'srvtoolu_b')],
      rt,
      { conversation },
    );
    const { results } = await rt.executeTurn(calls, { conversation });
    expect(results[0]?.isError).toBe(true);
    expect(text(results[0])).toContain('programsPerResponse');
    await conversation.close();
  });

  it('programsPerConversation bounds programs across responses (OpenAI responses too)', async () => {
    const { rt } = hostedRuntime();
    const conversation: HostedConversation = rt.hostedConversation({ limits: { programsPerConversation: 2 } });
    for (const id of ['p1', 'p2', 'p3']) {
      fromOpenAIResponsesCalls([{ type: 'program', call_id: id, code: 'x' }] as never, rt, { conversation });
    }
    const states = Object.fromEntries(conversation.programs().map((p) => [p.programId, p.state]));
    expect(states['p3']).toBe('refused');
    expect(states['p1']).not.toBe('refused');
    const calls = fromOpenAIResponsesCalls(
      [
        {
          type: 'function_call',
          call_id: 'c3',
          name: 'get_inventory',
          arguments: '{"sku":"A1"}',
          caller: { type: 'program', caller_id: 'p3' },
        },
      ] as never,
      rt,
      { conversation },
    );
    const { results } = await rt.executeTurn(calls, { conversation });
    expect(text(results[0])).toContain('programsPerConversation');
    await conversation.close();
  });

  it("a program's code over programCodeChars is refused", async () => {
    const { rt } = hostedRuntime();
    const conversation = rt.hostedConversation({ limits: { programCodeChars: 100 } });
    fromAnthropicToolUses(
      [programBlock('srvtoolu_ok', 'x'.repeat(100)), programBlock('srvtoolu_big', 'x'.repeat(101))],
      rt,
      {
        conversation,
      },
    );
    const states = Object.fromEntries(conversation.programs().map((p) => [p.programId, p.state]));
    expect(states['srvtoolu_big']).toBe('refused');
    expect(states['srvtoolu_ok']).not.toBe('refused');
    const { results } = await rt.executeTurn(
      fromAnthropicToolUses([callBlock('toolu_big', 'srvtoolu_big')], rt, { conversation }),
      { conversation },
    );
    expect(text(results[0])).toContain('programCodeChars');
    await conversation.close();
  });

  it('callsPerProgram: calls past the bound are refused, the ones before run', async () => {
    const { rt } = hostedRuntime();
    const conversation = rt.hostedConversation({ limits: { callsPerProgram: 2 } });
    const calls = fromAnthropicToolUses(
      [
        programBlock('srvtoolu_p'),
        callBlock('toolu_1', 'srvtoolu_p'),
        callBlock('toolu_2', 'srvtoolu_p'),
        callBlock('toolu_3', 'srvtoolu_p'),
      ],
      rt,
      { conversation },
    );
    const { results } = await rt.executeTurn(calls, { conversation });
    expect(results.map((r) => r.isError)).toEqual([false, false, true]);
    expect(text(results[2])).toContain('callsPerProgram');
    await conversation.close();
  });

  it('a bound that is not a positive integer is refused with its name', () => {
    const { rt } = hostedRuntime();
    expect(() => rt.hostedConversation({ limits: { callsPerProgram: 0 } })).toThrow(/callsPerProgram/u);
    expect(() => rt.hostedConversation({ limits: { programsPerResponse: 1.5 } })).toThrow(/programsPerResponse/u);
  });
});
