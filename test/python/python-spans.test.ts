// A Python program's tool calls are spans under run_code's span, as a TypeScript
// program's are (OpenTelemetry, through the same nested-call path).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { createToolRuntime, defineTool } from '../../src/index.ts';

const exporter = new InMemorySpanExporter();
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
});
afterAll(() => {
  trace.disable();
  context.disable();
});

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

describe('spans of a Python program', () => {
  it('each tool call is a child span of run_code', async () => {
    const rt = createToolRuntime({ mode: 'ptc', guest: 'python' });
    rt.register(
      defineTool({
        name: 'leaf',
        description: 'A leaf.',
        parameters: { n: { type: 'integer', required: true } },
        output: { schema: { type: 'integer' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
        execute: ({ n }) => n,
      }),
    );
    try {
      const result = await rt.execute({
        callId: 'py-span',
        name: 'run_code',
        arguments: { description: 'two leaves', code: 'leaf(n=1) + leaf(n=2)' },
      });
      expect(result.isError).toBe(false);
      expect(tree(exporter.getFinishedSpans())).toEqual([
        'execute_tool run_code (py-span)',
        '  execute_tool leaf (py-span:ptc:1)',
        '  execute_tool leaf (py-span:ptc:2)',
      ]);
    } finally {
      await rt.close();
    }
  });
});
