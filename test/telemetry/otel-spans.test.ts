// OpenTelemetry spans with the SDK's in-memory exporter and the AsyncLocalStorage
// context manager: one `execute_tool <name>` span per execution with the GenAI
// attributes; nested run_code calls are children of their run_code span (delivered
// from the sandbox process, outside the caller's async context); failures, limits and
// the run outcome are on the spans; `telemetry: false` emits nothing.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { createSandbox } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import { createToolRuntime, defineTool, deny, type ToolRuntime, type ToolRuntimeOptions } from '../../src/index.ts';

const exporter = new InMemorySpanExporter();
const contextManager = new AsyncLocalStorageContextManager();
let sandbox: Sandbox | undefined;
const open: ToolRuntime[] = [];

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
});
afterEach(async () => {
  exporter.reset();
  await Promise.all(open.splice(0).map((rt) => rt.close()));
});
afterAll(async () => {
  await sandbox?.close();
  trace.disable();
  context.disable();
});

const double = defineTool({
  name: 'double',
  description: 'Doubles n.',
  parameters: { n: { type: 'number', required: true } },
  output: { schema: { type: 'number' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
  isConcurrencySafe: () => true,
  execute: async ({ n }) => {
    // A span the tool starts itself sits under its execute_tool span.
    trace.getTracer('tool').startActiveSpan('tool work', (span) => span.end());
    return n * 2;
  },
});

function runtime(options: ToolRuntimeOptions = {}): ToolRuntime {
  sandbox ??= createSandbox();
  const rt = createToolRuntime({ mode: 'both', sandbox, ...options });
  rt.register(double);
  rt.on('tools/pre-execute', (exec, next) => ((exec.arguments as { n?: number }).n === 13 ? deny('unlucky') : next()));
  open.push(rt);
  return rt;
}

const named = (spans: readonly ReadableSpan[], name: string): ReadableSpan[] => spans.filter((s) => s.name === name);
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

/** The spans as an indented tree (name and a few attributes), for reading failures. */
function tree(spans: readonly ReadableSpan[]): string {
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number): void => {
    for (const s of spans.filter((x) => parentOf(x) === parent)) {
      lines.push(`${'  '.repeat(depth)}${s.name}`);
      walk(s.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join('\n');
}

describe('OpenTelemetry spans', () => {
  it('run_code: one span per execution, nested calls are children of the run_code span, the run is a child of the caller', async () => {
    const rt = runtime();
    const result = await trace.getTracer('app').startActiveSpan('agent turn', async (turn) => {
      try {
        return await rt.execute({
          callId: 'call-7',
          name: 'run_code',
          arguments: {
            description: 'Double twice',
            code: `const [a, b] = await Promise.all([tools.double({ n: 1 }), tools.double({ n: 2 })]);
                   try { await tools.double({ n: 13 }); } catch (e) { console.log(e.code); }
                   return a + b;`,
          },
        });
      } finally {
        turn.end();
      }
    });
    expect(result.isError).toBe(false);
    const spans = exporter.getFinishedSpans();
    expect(tree(spans)).toBe(
      [
        'agent turn',
        '  execute_tool run_code',
        '    execute_tool double',
        '      tool work',
        '    execute_tool double',
        '      tool work',
        '    execute_tool double',
      ].join('\n'),
    );
    const [turn] = named(spans, 'agent turn');
    const [run] = named(spans, 'execute_tool run_code');
    const nested = named(spans, 'execute_tool double');
    expect(parentOf(run!)).toBe(turn!.spanContext().spanId);
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(run!.kind).toBe(SpanKind.INTERNAL);
    expect(run!.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'run_code',
      'gen_ai.tool.call.id': 'call-7',
      'gen_ai.tool.type': 'function',
      'ptc.run_code.outcome': 'ok',
      'ptc.run_code.calls': 3,
      'ptc.run_code.log_lines': 1,
      'ptc.run_code.logs_truncated': false,
    });
    expect(run!.status.code).toBe(SpanStatusCode.UNSET);
    expect(nested.map((s) => s.attributes['gen_ai.tool.call.id']).sort()).toEqual([
      'call-7:ptc:1',
      'call-7:ptc:2',
      'call-7:ptc:3',
    ]);
    for (const span of nested) expect(parentOf(span)).toBe(run!.spanContext().spanId);
    const denied = nested.find((s) => s.attributes['gen_ai.tool.call.id'] === 'call-7:ptc:3')!;
    expect(denied.status).toEqual({ code: SpanStatusCode.ERROR, message: 'unlucky' });
    expect(denied.attributes['error.type']).toBe('DENIED');
  });

  it('a failed run: error status, error.type, the outcome and the limit it hit', async () => {
    const rt = runtime({ limits: { maxCalls: 2 } });
    const result = await rt.execute({
      callId: 'r1',
      name: 'run_code',
      arguments: {
        description: 'Too many calls',
        code: 'for (let i = 0; i < 5; i++) await tools.double({ n: i }); return 1;',
      },
    });
    expect(result.error?.info?.['kind']).toBe('call-limit');
    const [run] = named(exporter.getFinishedSpans(), 'execute_tool run_code');
    expect(run!.status.code).toBe(SpanStatusCode.ERROR);
    expect(run!.status.message).toMatch(/more than 2 tool calls/);
    expect(run!.attributes).toMatchObject({
      'error.type': 'CODE_RUN_FAILED',
      'ptc.run_code.outcome': 'call-limit',
      'ptc.run_code.limit': 'call-limit',
      'ptc.run_code.calls': 2,
    });
  });

  it('marks truncated logs, and a compile failure as its own outcome without a limit', async () => {
    const rt = runtime({ limits: { maxLogBytes: 64 } });
    await rt.execute({
      callId: 'r2',
      name: 'run_code',
      arguments: { description: 'Chatty', code: 'for (let i = 0; i < 20; i++) console.log("line " + i); return 0;' },
    });
    await rt.execute({ callId: 'r3', name: 'run_code', arguments: { description: 'Broken', code: 'return (;' } });
    const runs = named(exporter.getFinishedSpans(), 'execute_tool run_code');
    const chatty = runs.find((s) => s.attributes['gen_ai.tool.call.id'] === 'r2')!;
    expect(chatty.attributes).toMatchObject({ 'ptc.run_code.outcome': 'ok', 'ptc.run_code.logs_truncated': true });
    const broken = runs.find((s) => s.attributes['gen_ai.tool.call.id'] === 'r3')!;
    expect(broken.attributes).toMatchObject({ 'ptc.run_code.outcome': 'compile', 'error.type': 'CODE_RUN_FAILED' });
    expect(broken.attributes['ptc.run_code.limit']).toBeUndefined();
  });

  it('a model turn: each call is a span under the active span, with the agent', async () => {
    const rt = runtime();
    rt.createAgent('support');
    await trace.getTracer('app').startActiveSpan('step', async (step) => {
      await rt.executeTurn(
        [
          { callId: 't1', name: 'double', arguments: { n: 4 } },
          { callId: 't2', name: 'double', arguments: { n: 13 } },
          { callId: 't3', name: 'nope', arguments: {} },
        ],
        { agent: 'support' },
      );
      step.end();
    });
    const spans = exporter.getFinishedSpans();
    const [step] = named(spans, 'step');
    const calls = spans.filter((s) => s.name.startsWith('execute_tool '));
    expect(
      calls
        .map((s) => [
          s.name,
          s.attributes['gen_ai.tool.call.id'],
          s.attributes['error.type'] ?? null,
          s.attributes['ptc.agent'],
        ])
        .sort(),
    ).toEqual([
      ['execute_tool double', 't1', null, 'support'],
      ['execute_tool double', 't2', 'DENIED', 'support'],
      ['execute_tool nope', 't3', 'UNKNOWN_TOOL', 'support'],
    ]);
    for (const span of calls) expect(parentOf(span)).toBe(step!.spanContext().spanId);
  });

  it('a composite tool: its exec.callTool calls are children of its span', async () => {
    const rt = runtime();
    rt.register(
      defineTool({
        name: 'quadruple',
        description: 'Doubles twice through exec.callTool.',
        parameters: { n: { type: 'number', required: true } },
        output: { schema: { type: 'number' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
        execute: async ({ n }, exec) => {
          const once = await exec.callTool('double', { n });
          const twice = await exec.callTool('double', { n: once.value });
          return twice.value as number;
        },
      }),
    );
    const result = await rt.execute({ callId: 'q1', name: 'quadruple', arguments: { n: 3 } });
    expect(result.value).toBe(12);
    const spans = exporter.getFinishedSpans();
    expect(tree(spans)).toBe(
      [
        'execute_tool quadruple',
        '  execute_tool double',
        '    tool work',
        '  execute_tool double',
        '    tool work',
      ].join('\n'),
    );
  });

  it('emits nothing with telemetry: false', async () => {
    const rt = runtime({ telemetry: false });
    const result = await rt.execute({ callId: 'q', name: 'double', arguments: { n: 1 } });
    expect(result.value).toBe(2);
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['tool work']);
  });
});

describe('without @opentelemetry/api', () => {
  it('runs untraced, and tries the import only once', async () => {
    const { execFile } = await import('node:child_process');
    const fixture = new URL('./fixtures/without-otel.ts', import.meta.url).pathname;
    const out = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--no-node-snapshot', fixture],
        { env: { ...process.env, NODE_OPTIONS: '' } },
        (error, stdout, stderr) =>
          error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`)),
      );
    });
    expect(JSON.parse(out)).toEqual({
      results: [
        { logs: [], result: 'a' },
        { logs: [], result: 'b' },
      ],
      attempts: 1,
    });
  });
});
