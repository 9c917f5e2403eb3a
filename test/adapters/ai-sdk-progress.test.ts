// streamText with the AI SDK's own mock model over toAiSdkTools in ptc mode: run_code
// streams preliminary tool results (each log line, each nested call start and end) while
// the program still waits on a slow tool; the final tool result is the ToolResult, and
// the model reads only that one.
import { afterAll, describe, expect, it } from '@jest/globals';
import { isStepCount, streamText } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { isRunProgress, toAiSdkTools, type RunProgress } from '../../src/adapters/ai-sdk.ts';
import { createSandbox } from '../../sandbox/index.ts';
import { createToolRuntime, type ToolResult } from '../../src/index.ts';
import { gatedDoubler } from '../support/gated-tool.ts';

const sandbox = createSandbox();
afterAll(() => sandbox.close());

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

describe('toAiSdkTools with streamText: preliminary run_code results', () => {
  it('streams log lines and call progress before the final ToolResult', async () => {
    const slow = gatedDoubler();
    const rt = createToolRuntime({ mode: 'ptc', sandbox });
    rt.register(slow.tool);
    const code = `console.log('looking'); const v = await tools.slow({ n: 21 }); console.log('got', v); return v;`;
    let calls = 0;
    const model = new MockLanguageModelV4({
      doStream: async () => {
        calls += 1;
        const parts =
          calls === 1
            ? [
                {
                  type: 'tool-call' as const,
                  toolCallId: 'tc1',
                  toolName: 'run_code',
                  input: JSON.stringify({ description: 'Double slowly', code }),
                },
              ]
            : [
                { type: 'text-start' as const, id: 't' },
                { type: 'text-delta' as const, id: 't', delta: 'done' },
                { type: 'text-end' as const, id: 't' },
              ];
        return {
          stream: convertArrayToReadableStream([
            { type: 'stream-start' as const, warnings: [] },
            ...parts,
            {
              type: 'finish' as const,
              finishReason: { unified: calls === 1 ? ('tool-calls' as const) : ('stop' as const), raw: undefined },
              usage,
            },
          ]),
        };
      },
    });
    const stream = streamText({ model, tools: toAiSdkTools(rt), prompt: 'go', stopWhen: isStepCount(3) });
    const preliminary: RunProgress[] = [];
    const others: unknown[] = [];
    let final: ToolResult | undefined;
    for await (const part of stream.fullStream) {
      if (part.type !== 'tool-result') continue;
      if (part.preliminary !== true) {
        final = part.output as ToolResult;
      } else if (isRunProgress(part.output)) {
        preliminary.push(part.output);
        // The slow tool answers only once its start was streamed to us.
        if (part.output.event.kind === 'call-start') slow.open();
      } else {
        others.push(part.output); // the AI SDK also streams the last value as a preliminary result
      }
    }
    expect(preliminary.map((p) => [p.event, p.logLines, p.calls])).toEqual([
      [{ kind: 'log', line: 'looking' }, 1, { started: 0, finished: 0 }],
      [{ kind: 'call-start', seq: 1, name: 'slow' }, 1, { started: 1, finished: 0 }],
      [{ kind: 'call-end', seq: 1, name: 'slow', isError: false }, 1, { started: 1, finished: 1 }],
      [{ kind: 'log', line: 'got 42' }, 2, { started: 1, finished: 1 }],
    ]);
    expect(final?.value).toEqual({ logs: ['looking', 'got 42'], result: 42 });
    expect(others).toEqual([final]);
    expect(await stream.text).toBe('done');
    // The model read the final result only.
    const toolMessage = model.doStreamCalls[1]!.prompt.find((m) => m.role === 'tool')!;
    expect(JSON.stringify(toolMessage.content)).toContain('looking\\ngot 42\\n42');
    expect(JSON.stringify(toolMessage.content)).not.toContain('still running');
    await rt.close();
  });
});
