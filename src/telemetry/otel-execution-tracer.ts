// OpenTelemetry spans for executions, named by the GenAI semantic conventions: each
// execution is an INTERNAL span `execute_tool <tool name>` with `gen_ai.operation.name`
// = `execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id` and `gen_ai.tool.type`; a
// failure sets status ERROR and `error.type` (the result's error code). A nested call is
// a child of the execution it names as its parent (run_code's calls of its run_code
// span, whatever async context the sandbox delivered them in); a top-level call is a
// child of the caller's active span. A run_code span also carries its outcome
// (`ptc.run_code.outcome`: `ok` or the failure kind), the limit it hit, its nested call
// count and whether its logs were truncated. A call a program made (run_code's, or a
// hosted program's — whose span is its `execute_tool hosted_program` execution) carries
// `ptc.program.id` and `ptc.program.provider`.
// `@opentelemetry/api` is an optional peer dependency: it is imported dynamically, once;
// without it (or with no tracer provider registered) executions run untraced.
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import type { NestedExecuteRequest } from '../pipeline/execute-request.ts';
import type { ExecutionTracer } from '../pipeline/pipeline-deps.ts';
import type { ToolExecution } from '../pipeline/tool-execution.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import { RUN_CODE } from '../registry/tool-registry.ts';

type OtelApi = typeof import('@opentelemetry/api');

/** Attribute names beyond the GenAI conventions (ours, under `ptc.`). */
export const PTC_ATTRIBUTES = {
  agent: 'ptc.agent',
  runOutcome: 'ptc.run_code.outcome',
  runLimit: 'ptc.run_code.limit',
  runCalls: 'ptc.run_code.calls',
  runLogLines: 'ptc.run_code.log_lines',
  runLogsTruncated: 'ptc.run_code.logs_truncated',
  /** A call a program made: the program's id (its parent call) and where it ran (`local`, `anthropic`, `openai`). */
  programId: 'ptc.program.id',
  programProvider: 'ptc.program.provider',
} as const;

/** Failure kinds that mean a run hit one of its limits. */
const LIMIT_KINDS: ReadonlySet<string> = new Set(['timeout', 'cpu', 'memory', 'output-limit', 'call-limit']);
const TRUNCATION_MARKER = /^\[log output truncated: /u;
const MAX_STATUS_MESSAGE = 500;

let loaded: OtelApi | null | undefined;
let loading: Promise<OtelApi | null> | undefined;

/** Imports `@opentelemetry/api` once; null when it is not installed. */
function loadOtelApi(): Promise<OtelApi | null> {
  loading ??= import('@opentelemetry/api').then(
    (api) => (loaded = api),
    () => (loaded = null),
  );
  return loading;
}

// What the API's proxy provider delegates to while no provider is registered: a fresh
// proxy hands out that same shared no-op provider.
let noopProvider: { readonly api: OtelApi; readonly provider: unknown } | undefined;

/** Whether spans started now would be the API's no-op ones (no provider behind its proxy). */
function untraced(api: OtelApi): boolean {
  const provider = api.trace.getTracerProvider();
  if (!(provider instanceof api.ProxyTracerProvider)) return false;
  if (noopProvider?.api !== api) noopProvider = { api, provider: new api.ProxyTracerProvider().getDelegate() };
  return provider.getDelegate() === noopProvider.provider;
}

interface Traced {
  readonly span: Span;
  children: number;
}

export function createOtelExecutionTracer(): ExecutionTracer {
  void loadOtelApi();
  // Executions by their opaque token, for their nested calls to find (symbols are weak keys).
  const byToken = new WeakMap<symbol, Traced>();
  // The API's proxy tracer: it follows a provider registered later.
  let tracer: Tracer | undefined;

  const trace: ExecutionTracer['trace'] = (request, execute) => {
    if (loaded === null) return execute();
    if (loaded === undefined) return loadOtelApi().then(() => trace(request, execute));
    return traced(loaded, request, execute);
  };

  const traced = (
    api: OtelApi,
    request: NestedExecuteRequest,
    execute: Parameters<ExecutionTracer['trace']>[1],
  ): Promise<ToolResult> => {
    // Malformed requests are refused by the pipeline itself; nothing to name a span after.
    if (
      typeof request !== 'object' ||
      request === null ||
      typeof request.name !== 'string' ||
      typeof request.callId !== 'string'
    )
      return execute();
    // No provider registered: every span would be a no-op that records nothing.
    if (untraced(api)) return execute();
    const parent = typeof request.parent === 'symbol' ? byToken.get(request.parent) : undefined;
    const base = parent === undefined ? api.context.active() : api.trace.setSpan(api.context.active(), parent.span);
    const attributes: Attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': request.name,
      'gen_ai.tool.call.id': request.callId,
      'gen_ai.tool.type': 'function',
    };
    tracer ??= api.trace.getTracer('ptc-runtime');
    const span = tracer.startSpan(`execute_tool ${request.name}`, { kind: api.SpanKind.INTERNAL, attributes }, base);
    if (!span.isRecording()) {
      span.end();
      return execute();
    }
    if (parent !== undefined) parent.children += 1;
    const entry: Traced = { span, children: 0 };
    const created = (exec: ToolExecution): void => {
      byToken.set(exec.token, entry);
      if (exec.agent !== undefined) span.setAttribute(PTC_ATTRIBUTES.agent, exec.agent);
      if (exec.caller.type === 'program')
        span.setAttributes({
          [PTC_ATTRIBUTES.programId]: exec.caller.programId,
          [PTC_ATTRIBUTES.programProvider]: exec.caller.provider,
        });
    };
    // The body runs in the span's context: spans it starts itself become its children.
    return api.context
      .with(api.trace.setSpan(base, span), () => execute(created))
      .then(
        (result) => {
          endWithResult(api, entry, result);
          return result;
        },
        (error: unknown) => {
          const name = error instanceof Error ? ((error as { code?: unknown }).code ?? error.name) : typeof error;
          span.setAttribute('error.type', String(name));
          span.setStatus({
            code: api.SpanStatusCode.ERROR,
            message: clip(error instanceof Error ? error.message : String(error)),
          });
          span.end();
          throw error;
        },
      );
  };
  // A moment of an execution (a resource-lock wait) as an event on its span.
  const event: NonNullable<ExecutionTracer['event']> = (token, name, attributes) =>
    byToken.get(token)?.span.addEvent(name, attributes);
  return { trace, event };
}

function endWithResult(api: OtelApi, { span, children }: Traced, result: ToolResult): void {
  if (result.isError) {
    span.setAttribute('error.type', result.error?.code ?? 'TOOL_ERROR');
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: clip(result.error?.message ?? 'tool call failed') });
  }
  if (result.name === RUN_CODE) {
    const kind = result.error?.info?.['kind'];
    const outcome = result.isError ? (typeof kind === 'string' ? kind : (result.error?.code ?? 'error')) : 'ok';
    const logs = runLogs(result);
    span.setAttributes({
      [PTC_ATTRIBUTES.runOutcome]: outcome,
      [PTC_ATTRIBUTES.runCalls]: children,
      [PTC_ATTRIBUTES.runLogLines]: logs.length,
      [PTC_ATTRIBUTES.runLogsTruncated]: logs.length > 0 && TRUNCATION_MARKER.test(logs[logs.length - 1]!),
    });
    if (LIMIT_KINDS.has(outcome)) span.setAttribute(PTC_ATTRIBUTES.runLimit, outcome);
  }
  span.end();
}

/** The run's log lines: the value's on success, `error.info.logs` on failure. */
function runLogs(result: ToolResult): readonly string[] {
  const source = result.isError ? result.error?.info?.['logs'] : (result.value as { logs?: unknown } | undefined)?.logs;
  return Array.isArray(source) ? source.filter((line): line is string => typeof line === 'string') : [];
}

const clip = (text: string): string =>
  text.length > MAX_STATUS_MESSAGE ? `${text.slice(0, MAX_STATUS_MESSAGE)}…` : text;
