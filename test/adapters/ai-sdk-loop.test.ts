// The real `ai` package's generateText, multi-step, with its own mock language model
// (ai/test): in ptc mode the model receives run_code with the SDK in its description
// (no extra step), writes a program, and reads what it returned; in native mode a
// dotted tool name travels as a safe alias and runs the registered tool; empty results
// reach the model as "(no output)".
import { afterAll, describe, expect, it } from '@jest/globals';
import { generateText, isStepCount } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createSandbox } from '../../sandbox/index.ts';
import { toAiSdkRequest, toAiSdkTools } from '../../src/adapters/ai-sdk.ts';
import { createToolRuntime, type JsonValue } from '../../src/index.ts';
import { registerTickets } from './support/ticket-tools.ts';

const sandbox = createSandbox();
afterAll(() => sandbox.close());

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const toolCall = (id: string, name: string, input: JsonValue) => ({
  type: 'tool-call' as const,
  toolCallId: id,
  toolName: name,
  input: JSON.stringify(input),
});
const callsStep = (...content: ReturnType<typeof toolCall>[]) => ({
  content,
  finishReason: { unified: 'tool-calls' as const, raw: undefined },
  usage,
  warnings: [],
});
const answer = (text: string) => ({
  content: [{ type: 'text' as const, text }],
  finishReason: { unified: 'stop' as const, raw: undefined },
  usage,
  warnings: [],
});

/** The tool outputs the model was sent in call `n` (0-based), by tool call id. */
function toolOutputs(model: MockLanguageModelV4, n: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const message of model.doGenerateCalls[n]!.prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-result') out[part.toolCallId] = part.output;
  }
  return out;
}

describe('generateText (ai 7) through toAiSdkTools', () => {
  it('ptc: the model receives run_code carrying the SDK, its program runs, and it reads the result', async () => {
    const rt = registerTickets(createToolRuntime({ mode: 'ptc', sandbox }));
    const program =
      'const [open, closed] = await Promise.all([tools["tickets.count"]({ status: "open" }), tools["tickets.count"]({ status: "closed" })]);\nreturn { open, closed };';
    const model = new MockLanguageModelV4({
      doGenerate: [
        callsStep(toolCall('c1', 'run_code', { description: 'Count tickets by status', code: program })),
        callsStep(
          toolCall('c2', 'run_code', {
            description: 'Say nothing',
            code: 'await tools["notes.clear"]({}); return "";',
          }),
        ),
        answer('3 open, 5 closed'),
      ],
    });
    const result = await generateText({
      model,
      tools: toAiSdkTools(rt),
      prompt: 'How many tickets?',
      stopWhen: isStepCount(5),
    });
    expect(result.text).toBe('3 open, 5 closed');

    // What the model was given: one tool, run_code, whose description is the SDK.
    const tools = model.doGenerateCalls[0]!.tools ?? [];
    expect(tools.map((t) => t.name)).toEqual(['run_code']);
    const description = tools[0]!.type === 'function' ? (tools[0]!.description ?? '') : '';
    expect(description).toContain(rt.sdk());
    expect(description).toContain(' "tickets.count": Tool<');
    expect(description).toContain('Only the run_code tool is callable directly');

    // The program ran in the sandbox; the model read its returned value, and "(no output)" for an empty one.
    expect(toolOutputs(model, 1)).toEqual({
      c1: { type: 'content', value: [{ type: 'text', text: '{\n  "open": 3,\n  "closed": 5\n}' }] },
    });
    expect(toolOutputs(model, 2)['c2']).toEqual({ type: 'content', value: [{ type: 'text', text: '(no output)' }] });
    await rt.close();
  });

  it('ptc with embedSdkInDescription: false: toAiSdkRequest sends the SDK as the system text', async () => {
    const rt = registerTickets(createToolRuntime({ mode: 'ptc', sandbox, embedSdkInDescription: false }));
    const model = new MockLanguageModelV4({ doGenerate: [answer('ok')] });
    await generateText({ model, ...toAiSdkRequest(rt, { system: 'Be brief.' }), prompt: 'Hi' });
    const [system] = model.doGenerateCalls[0]!.prompt;
    expect(system).toEqual({ role: 'system', content: expect.stringContaining(rt.sdk()) });
    expect(
      system?.role === 'system' &&
        system.content.startsWith('Be brief.\n\nOnly the run_code tool is callable directly'),
    ).toBe(true);
    await rt.close();
  });

  it('native: a dotted tool name is sent as a safe alias and runs the registered tool; an empty result reads "(no output)"', async () => {
    const rt = registerTickets(createToolRuntime({ sandbox: false }));
    const model = new MockLanguageModelV4({
      doGenerate: [
        callsStep(toolCall('n1', 'tickets_count', { status: 'open' }), toolCall('n2', 'notes_clear', {})),
        answer('done'),
      ],
    });
    const result = await generateText({ model, tools: toAiSdkTools(rt), prompt: 'Count', stopWhen: isStepCount(3) });
    expect(result.text).toBe('done');
    expect((model.doGenerateCalls[0]!.tools ?? []).map((t) => t.name)).toEqual(['notes_clear', 'tickets_count']);
    for (const t of model.doGenerateCalls[0]!.tools ?? []) expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/u);
    expect(toolOutputs(model, 1)).toEqual({
      n1: { type: 'content', value: [{ type: 'text', text: '3 open tickets' }] },
      n2: { type: 'content', value: [{ type: 'text', text: '(no output)' }] },
    });
    // The app reads the registered name on the ToolResult.
    expect(result.steps[0]!.toolResults.map((r) => (r.output as { name: string }).name)).toEqual([
      'tickets.count',
      'notes.clear',
    ]);
  });
});
