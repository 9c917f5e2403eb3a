// examples/agent-loop: the loop driven by a scripted model (ptc and native), and the
// live Anthropic script's clean skip without an API key.
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runAgentLoop, type LoopMessage } from '../../examples/agent-loop/agent-loop.ts';
import { createScriptedModel } from '../../examples/agent-loop/scripted-model.ts';
import { shopTools } from '../../src/demo/shop-tools.ts';
import { createSandbox } from '../../sandbox/index.ts';
import { createToolRuntime, defineTool } from '../../src/index.ts';

const sandbox = createSandbox();
afterAll(() => sandbox.close());

/** The text blocks of the tool_result answering `id` in the last user message. */
function toolResultText(messages: readonly LoopMessage[], id: string): string {
  const last = messages[messages.length - 1]!;
  if (last.role !== 'user' || typeof last.content === 'string') throw new Error('expected tool results');
  const block = last.content.find((b) => b.type === 'tool_result' && b.tool_use_id === id);
  if (block === undefined || block.type !== 'tool_result') throw new Error(`no tool_result for ${id}`);
  return block.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

describe('agent loop with a scripted model', () => {
  it('ptc: the model gets run_code and the SDK, writes one program, reads its output, answers', async () => {
    const rt = createToolRuntime({ mode: 'ptc', sandbox });
    for (const tool of shopTools()) rt.register(tool);
    const native = createToolRuntime({ sandbox: false });
    for (const tool of shopTools()) native.register(tool);
    const total = ((await native.execute({ callId: 'x', name: 'list_customers', arguments: {} })).value as unknown[])
      .length;
    const model = createScriptedModel([
      [
        { type: 'text', text: 'I will count them in one program.' },
        {
          type: 'tool_use',
          id: 'tu_1',
          name: 'run_code',
          input: {
            description: 'Count customers',
            code: 'const all = await tools.list_customers({}); return all.length;',
          },
        },
      ],
      (request) => [{ type: 'text', text: `There are ${toolResultText(request.messages, 'tu_1')} customers.` }],
    ]);
    const result = await runAgentLoop({ rt, model, question: 'How many customers are there?' });
    expect(result).toEqual(
      expect.objectContaining({ answer: `There are ${total} customers.`, steps: 2, stoppedBy: 'answer' }),
    );
    const first = model.requests[0]!;
    expect(first.tools.map((t) => t.name)).toEqual(['run_code']);
    // The SDK and the ptc-only instruction travel in run_code's description: no extra step.
    expect(first.tools[0]!.description).toContain('Only the run_code tool is callable directly');
    expect(first.tools[0]!.description).toContain(' list_customers: Tool<{');
    expect(first.system).toBe('You answer questions using the tools.');
    await rt.close();
  });

  it('native: parallel tool_use blocks become one turn; results, then contexts; a concluding result ends the loop', async () => {
    const rt = createToolRuntime({ sandbox: false });
    rt.register(
      defineTool({
        name: 'check',
        description: 'Checks one item.',
        parameters: { item: { type: 'string', required: true } },
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        isConcurrencySafe: () => true,
        execute: (args, exec) => {
          exec.deferContext({ role: 'user', content: [{ type: 'text', text: `reminder about ${args.item}` }] });
          if (args.item === 'last') exec.concludeTurn();
          return `${args.item}: ok`;
        },
      }),
    );
    const model = createScriptedModel([
      [
        { type: 'tool_use', id: 'a', name: 'check', input: { item: 'first' } },
        { type: 'tool_use', id: 'b', name: 'check', input: { item: 'last' } },
      ],
    ]);
    const result = await runAgentLoop({ rt, model, question: 'Check both.' });
    expect(result.stoppedBy).toBe('concluded');
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.system).toBe('You answer questions using the tools.');
    expect(result.messages[result.messages.length - 1]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 'first: ok' }] },
        { type: 'tool_result', tool_use_id: 'b', content: [{ type: 'text', text: 'last: ok' }] },
        { type: 'text', text: 'reminder about first' },
        { type: 'text', text: 'reminder about last' },
      ],
    });
  });

  it('stops at maxSteps when the model never answers', async () => {
    const rt = createToolRuntime({ sandbox: false });
    const call = [{ type: 'tool_use' as const, id: 'x', name: 'missing', input: {} }];
    const model = createScriptedModel([call, call]);
    const result = await runAgentLoop({ rt, model, question: 'Loop.', maxSteps: 2 });
    expect(result.stoppedBy).toBe('max-steps');
    expect(toolResultText(result.messages, 'x')).toMatch(/^Error: .*unknown tool "missing"/u);
  });
});

describe('examples/agent-loop/anthropic-live.ts', () => {
  it('without ANTHROPIC_API_KEY it says so and exits 0', async () => {
    const script = fileURLToPath(new URL('../../examples/agent-loop/anthropic-live.ts', import.meta.url));
    const { ANTHROPIC_API_KEY: _key, ...env } = process.env;
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--no-node-snapshot', '--conditions=ptc-source', script],
      { env },
    );
    expect(stdout).toBe('ANTHROPIC_API_KEY is not set: skipping the live Anthropic agent loop.\n');
    expect(stderr).toBe('');
  });
});
