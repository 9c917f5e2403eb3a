// A runtime made before any tracer provider is registered runs its executions untraced
// (the API's no-op spans are skipped), starts tracing once a provider is registered,
// and stops again when the API is disabled: the check follows the global provider at
// every execution.
import { afterAll, describe, expect, it } from '@jest/globals';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createToolRuntime, defineTool } from '../../src/index.ts';

afterAll(() => trace.disable());

describe('a tracer provider registered after the runtime was made', () => {
  it('is followed: untraced before, traced while registered, untraced after disable', async () => {
    trace.disable();
    const rt = createToolRuntime({ sandbox: false });
    rt.register(
      defineTool({
        name: 'inc',
        description: 'n + 1',
        parameters: { n: { type: 'integer', required: true } },
        output: { schema: { type: 'integer' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
        execute: ({ n }) => n + 1,
      }),
    );
    const exporter = new InMemorySpanExporter();
    const names = (): string[] => exporter.getFinishedSpans().map((s) => s.name);

    expect((await rt.execute({ callId: 'a', name: 'inc', arguments: { n: 1 } })).value).toBe(2);
    expect(names()).toEqual([]);

    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    expect((await rt.execute({ callId: 'b', name: 'inc', arguments: { n: 2 } })).value).toBe(3);
    expect(names()).toEqual(['execute_tool inc']);
    expect(exporter.getFinishedSpans()[0]?.attributes['gen_ai.tool.call.id']).toBe('b');

    trace.disable();
    expect((await rt.execute({ callId: 'c', name: 'inc', arguments: { n: 3 } })).value).toBe(4);
    expect(names()).toEqual(['execute_tool inc']);
    await rt.close();
  });
});
