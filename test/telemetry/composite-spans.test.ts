// A composite tool's inner calls (`exec.callTool`) go through the same nested-call path
// as run_code's SDK calls, so their spans are children of the composite's span — also
// when the composite itself runs inside a run_code program.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { createSandbox } from '../../sandbox/index.ts';
import { createToolRuntime, defineTool } from '../../src/index.ts';

const exporter = new InMemorySpanExporter();
const sandbox = createSandbox({ isolation: 'in-process' });
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
});
afterAll(async () => {
  await sandbox.close();
  trace.disable();
  context.disable();
});

/** The spans as `name(callId)` lines, indented under their parent. */
function tree(spans: readonly ReadableSpan[]): string[] {
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number): void => {
    for (const s of spans.filter((x) => x.parentSpanContext?.spanId === parent)) {
      lines.push(`${'  '.repeat(depth)}${s.name} (${String(s.attributes['gen_ai.tool.call.id'])})`);
      walk(s.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines;
}

describe('composite tools in traces', () => {
  it('inner calls are child spans of the composite, which is a child of run_code', async () => {
    const rt = createToolRuntime({ mode: 'ptc', sandbox });
    rt.register(
      defineTool({
        name: 'leaf',
        description: 'A leaf.',
        parameters: {},
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        execute: () => 'leaf',
      }),
    );
    rt.register(
      defineTool({
        name: 'pair',
        description: 'Calls leaf twice.',
        parameters: {},
        output: { schema: { type: 'json' }, render: () => [] },
        execute: async (_a, exec) => [
          (await exec.callTool('leaf', {})).value!,
          (await exec.callTool('leaf', {})).value!,
        ],
      }),
    );
    const result = await rt.execute({
      callId: 'rc',
      name: 'run_code',
      arguments: { description: 'Pair', code: 'return await tools.pair({});' },
    });
    expect((result.value as { result: unknown }).result).toEqual(['leaf', 'leaf']);
    expect(tree(exporter.getFinishedSpans())).toEqual([
      'execute_tool run_code (rc)',
      '  execute_tool pair (rc:ptc:1)',
      '    execute_tool leaf (rc:ptc:1:call:1)',
      '    execute_tool leaf (rc:ptc:1:call:2)',
    ]);
    await rt.close();
  });
});
