// Tools and policy shared by the hosted-mode loop tests: a program may read inventory
// and (per the tool) a secret, which a pre-execute policy denies to programs; `ask_user`
// is direct-only. Every pre-execute decision is recorded with the caller it saw.
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import type { Sandbox } from '../../../sandbox/index.ts';
import { createMemoryJournal, type MemoryJournal } from '../../../src/journal/memory/memory-journal.ts';
import { allow, createToolRuntime, defineTool, deny, type ToolCaller, type ToolRuntime } from '../../../src/index.ts';

export interface Seen {
  readonly callId: string;
  readonly name: string;
  readonly caller: ToolCaller;
  readonly parentCallId: string | undefined;
}

/** The tools module with its policy, in hosted mode — or, given a sandbox, in ptc mode (local run_code programs). */
export function hostedRuntime(sandbox?: Sandbox): { rt: ToolRuntime; journal: MemoryJournal; seen: Seen[] } {
  const journal = createMemoryJournal();
  const rt = createToolRuntime(
    sandbox === undefined ? { mode: 'hosted', sandbox: false, journal } : { mode: 'ptc', sandbox, journal },
  );
  rt.register(
    defineTool({
      name: 'get_inventory',
      description: 'Units in stock for a SKU.',
      parameters: { sku: { type: 'string', required: true, description: 'The SKU' } },
      output: {
        schema: {
          type: 'object',
          additionalProperties: false,
          properties: { sku: { type: 'string', required: true }, units: { type: 'number', required: true } },
        },
        render: (_a, v) => [{ type: 'text', text: `${v.sku}: ${v.units} units` }],
      },
      execute: (args) => ({ sku: args.sku, units: 7 }),
    }),
  );
  rt.register(
    defineTool({
      name: 'get_secret',
      description: 'A secret. Programs may not read it.',
      parameters: {},
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      execute: () => 'SECRET-VALUE',
    }),
  );
  rt.register(
    defineTool({
      name: 'ask_user',
      description: 'Asks the user a question.',
      parameters: { question: { type: 'string', required: true, description: 'The question' } },
      callers: ['direct'],
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      execute: () => 'yes',
    }),
  );
  const seen: Seen[] = [];
  rt.on('tools/pre-execute', async (exec, next) => {
    seen.push({ callId: exec.callId, name: exec.name, caller: exec.caller, parentCallId: exec.parentCallId });
    // The policy tells program-made calls from direct ones.
    if (exec.caller.type === 'program' && exec.name === 'get_secret') return deny('programs may not read secrets');
    return next();
  });
  rt.on('tools/pre-execute', async () => allow());
  return { rt, journal, seen };
}

/** An OpenTelemetry provider recording spans in memory, for the whole test file. */
export function recordSpans(): { exporter: InMemorySpanExporter; stop(): void } {
  const exporter = new InMemorySpanExporter();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  return {
    exporter,
    stop() {
      trace.disable();
      context.disable();
    },
  };
}

/** The spans as `name (callId)` lines, indented under their parent. */
export function spanTree(spans: readonly ReadableSpan[]): string[] {
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
