// The Vercel AI SDK adapter against the real `ai` package: generateText with its own
// mock model drives toAiSdkTools; tool() definitions (zod and jsonSchema) come in
// through fromAiSdkTools.
import { describe, expect, it } from '@jest/globals';
import { asSchema, generateText, isStepCount, jsonSchema, tool, type ToolSet } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { fromAiSdkTools, toAiSdkModelOutput, toAiSdkTools } from '../../src/adapters/ai-sdk.ts';
import { createToolRuntime, defineTool, type JsonValue, type ToolResult } from '../../src/index.ts';

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

/** A runtime with an exclusive `log` tool that records overlap, and a failing tool. */
function runtime() {
  const rt = createToolRuntime({ sandbox: false });
  const trace: string[] = [];
  let running = 0;
  let maxRunning = 0;
  let logged = 0;
  rt.register(
    defineTool({
      name: 'log',
      description: 'Appends an entry.',
      parameters: { entry: { type: 'string', required: true } },
      output: {
        schema: { type: 'object', additionalProperties: false, properties: { n: { type: 'integer', required: true } } },
        render: (args, v) => [{ type: 'text', text: `logged ${args.entry} as #${v.n}` }],
      },
      execute: async (args, exec) => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        await new Promise((resolve) => setImmediate(resolve));
        running -= 1;
        trace.push(args.entry);
        exec.deferContext({ role: 'user', content: [{ type: 'text', text: `note: ${args.entry}` }] });
        return { n: ++logged };
      },
    }),
  );
  rt.register(
    defineTool({
      name: 'broken',
      description: 'Fails.',
      parameters: {},
      output: { schema: { type: 'json' }, render: () => [] },
      execute: () => {
        throw new Error('out of order');
      },
    }),
  );
  rt.on('tools/pre-execute', (exec, next) => {
    trace.push(`pre:${exec.callId}`);
    return next();
  });
  return { rt, trace, maxRunning: () => maxRunning };
}

describe('toAiSdkTools with generateText', () => {
  it("runs one step's calls as one turn: model order, exclusive, results and contexts back to the model", async () => {
    const { rt, trace, maxRunning } = runtime();
    const model = new MockLanguageModelV4({
      doGenerate: [
        {
          content: [
            toolCall('c1', 'log', { entry: 'first' }),
            toolCall('c2', 'log', { entry: 'second' }),
            toolCall('c3', 'broken', {}),
          ],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        },
        {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        },
      ],
    });
    const result = await generateText({ model, tools: toAiSdkTools(rt), prompt: 'go', stopWhen: isStepCount(3) });
    expect(result.text).toBe('done');
    // One turn: each exclusive call is a barrier, so it finishes before the next one's
    // policy runs (called one by one, the AI SDK would have overlapped them).
    expect(trace).toEqual(['pre:c1', 'first', 'pre:c2', 'second', 'pre:c3']);
    expect(maxRunning()).toBe(1);
    // The app reads the ToolResult as the tool output.
    const outputs = result.steps[0]!.toolResults.map((r) => r.output as ToolResult);
    expect(outputs.map((o) => o.value ?? o.error?.code)).toEqual([{ n: 1 }, { n: 2 }, 'TOOL_ERROR']);
    // The model reads content (+ contexts); a failure is error-text.
    const toolMessage = model.doGenerateCalls[1]!.prompt.find((m) => m.role === 'tool')!;
    expect(toolMessage.content).toEqual([
      expect.objectContaining({
        toolCallId: 'c1',
        output: {
          type: 'content',
          value: [
            { type: 'text', text: 'logged first as #1' },
            { type: 'text', text: 'note: first' },
          ],
        },
      }),
      expect.objectContaining({
        toolCallId: 'c2',
        output: {
          type: 'content',
          value: [
            { type: 'text', text: 'logged second as #2' },
            { type: 'text', text: 'note: second' },
          ],
        },
      }),
      expect.objectContaining({ toolCallId: 'c3', output: { type: 'error-text', value: 'Error: out of order' } }),
    ]);
  });

  it('lists what rt.schemas lists for the mode, with the same JSON Schema', async () => {
    const { rt } = runtime();
    const set = toAiSdkTools(rt);
    expect(Object.keys(set)).toEqual(['broken', 'log']);
    expect(await asSchema(set.log!.inputSchema).jsonSchema).toEqual(rt.tool('log')!.parameters);
  });

  it('never sends empty text: an empty result reads "(no output)", empty text parts are left out', () => {
    const result = (content: ToolResult['content'], isError = false): ToolResult => ({
      callId: 'x',
      name: 'x',
      isError,
      ...(isError ? {} : { value: '' }),
      content,
    });
    expect(toAiSdkModelOutput(result([]))).toEqual({ type: 'content', value: [{ type: 'text', text: '(no output)' }] });
    expect(toAiSdkModelOutput(result([{ type: 'text', text: '' }]))).toEqual({
      type: 'content',
      value: [{ type: 'text', text: '(no output)' }],
    });
    expect(
      toAiSdkModelOutput(
        result([
          { type: 'text', text: '' },
          { type: 'text', text: 'a' },
        ]),
      ),
    ).toEqual({ type: 'content', value: [{ type: 'text', text: 'a' }] });
    expect(toAiSdkModelOutput(result([], true))).toEqual({ type: 'error-text', value: '(no output)' });
  });

  it('maps images to file parts', () => {
    const result: ToolResult = {
      callId: 'x',
      name: 'x',
      isError: false,
      value: null,
      content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }],
    };
    expect(toAiSdkModelOutput(result)).toEqual({
      type: 'content',
      value: [{ type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'AAAA' } }],
    });
  });
});

describe('fromAiSdkTools', () => {
  const tools: ToolSet = {
    weather: tool({
      description: 'Weather in a city.',
      inputSchema: z.object({ city: z.string(), unit: z.enum(['C', 'F']).default('C') }),
      outputSchema: z.object({ city: z.string(), temperature: z.number(), unit: z.string() }),
      execute: async ({ city, unit }) => ({ city, temperature: unit === 'C' ? 21 : 70, unit }),
    }),
    countdown: tool({
      description: 'Streams a countdown; the last value is the result.',
      inputSchema: jsonSchema<{ from: number }>({
        type: 'object',
        properties: { from: { type: 'integer', minimum: 1 } },
        required: ['from'],
      }),
      async *execute({ from }) {
        for (let i = from; i >= 0; i--) yield `t-${i}`;
      },
    }),
  };

  it('defines tools whose schemas come from zod / jsonSchema, checked and typed', async () => {
    const rt = createToolRuntime({ sandbox: false });
    for (const t of await fromAiSdkTools(tools)) rt.register(t);
    expect(rt.tool('weather')!.parameters).toEqual(
      expect.objectContaining({
        type: 'object',
        properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['C', 'F'], default: 'C' } },
      }),
    );
    expect(rt.sdk()).toMatch(/ weather: Tool<\{[\s\S]*\}, \{[^}]*temperature: number;/su);
  });

  it('runs execute with zod defaults applied; invalid input never runs it; a stream gives its last value', async () => {
    const rt = createToolRuntime({ sandbox: false });
    for (const t of await fromAiSdkTools(tools)) rt.register(t);
    const ok = await rt.execute({ callId: 'w1', name: 'weather', arguments: { city: 'Oslo' } });
    expect(ok.value).toEqual({ city: 'Oslo', temperature: 21, unit: 'C' });
    const bad = await rt.execute({ callId: 'w2', name: 'weather', arguments: { city: 'Oslo', unit: 'K' } });
    expect(bad.error?.code).toBe('INVALID_ARGS');
    const streamed = await rt.execute({ callId: 'c1', name: 'countdown', arguments: { from: 2 } });
    expect(streamed.value).toBe('t-0');
  });

  it('round-trips: our tools → AI SDK → our tools keeps schemas and results', async () => {
    const { rt } = runtime();
    const back = await fromAiSdkTools(toAiSdkTools(rt));
    const log = back.find((t) => t.name === 'log')!;
    expect(log.parameters).toEqual(rt.tool('log')!.parameters);
  });

  it('refuses tools it cannot run', async () => {
    await expect(
      fromAiSdkTools({ noExec: tool({ description: 'x', inputSchema: z.object({}), outputSchema: z.string() }) }),
    ).rejects.toThrow(/tool "noExec" has no execute function/u);
  });
});
