// Fixtures for the PTC suite: one sandbox child process per test file shared by every
// runtime of that file (each run still gets a fresh isolate), a configurable probe
// tool, an overlap recorder, and a run_code shorthand.
import { afterAll, afterEach } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import type { ContextMessage, JsonValue, Tool, ToolExecution, ToolResult } from '../../src/index.ts';
import { createToolRuntime, defineTool } from '../../src/index.ts';
import type { ToolRuntime, ToolRuntimeOptions } from '../../src/runtime/create-tool-runtime.ts';

/** Runtimes over one shared process sandbox; every runtime is closed after each test, the sandbox after the file. */
export function ptcRuntimes(): (options?: ToolRuntimeOptions) => ToolRuntime {
  let sandbox: Sandbox | undefined;
  const open: ToolRuntime[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((rt) => rt.close()));
  });
  afterAll(async () => {
    await sandbox?.close();
  });
  return (options = {}) => {
    sandbox ??= createSandbox();
    const rt = createToolRuntime({ mode: 'ptc', sandbox, ...options });
    open.push(rt);
    return rt;
  };
}

export interface RunOptions {
  readonly callId?: string;
  readonly agent?: string;
  readonly signal?: AbortSignal;
  readonly description?: string;
}

/** One model-direct run_code call. */
export function runCode(rt: ToolRuntime, code: string, options: RunOptions = {}): Promise<ToolResult> {
  return rt.execute({
    callId: options.callId ?? 'rc',
    name: 'run_code',
    arguments: { description: options.description ?? 'Run the test program', code },
    ...(options.agent === undefined ? {} : { agent: options.agent }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}

/** The `{ logs, result }` value of a successful run (fails loudly otherwise). */
export function runValue(result: ToolResult): { logs: string[]; result?: JsonValue } {
  if (result.isError) throw new Error(`run_code failed: ${result.error?.code} ${result.error?.message}`);
  return result.value as { logs: string[]; result?: JsonValue };
}

export const textOf = (result: ToolResult): string =>
  result.content.map((b) => (b.type === 'text' ? b.text : `[image ${b.mimeType}]`)).join('\n');
export const userText = (text: string): ContextMessage => ({ role: 'user', content: [{ type: 'text', text }] });
export const contextTexts = (contexts: readonly ContextMessage[] | undefined): string[] =>
  (contexts ?? []).map((c) => c.content.map((b) => (b.type === 'text' ? b.text : `[image ${b.mimeType}]`)).join(''));

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits for `promise`, or at most `ms` (a bound for a failing test, not a timing assertion); leaves no timer behind. */
export async function atMost(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
export const untilAborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });

export interface ProbeOptions {
  readonly name: string;
  readonly description?: string;
  /** `isConcurrencySafe` answer. @default false (exclusive) */
  readonly safe?: boolean;
  /** The body; by default it returns `{ tool, args }`. */
  readonly body?: (args: { readonly [key: string]: JsonValue }, exec: ToolExecution) => JsonValue | Promise<JsonValue>;
  readonly presentationMeta?: boolean;
}

/** A tool with an open `json` output, rendered as `<name>:<JSON value>` text. */
export function probeTool(options: ProbeOptions): Tool {
  const body = options.body ?? ((args) => ({ tool: options.name, args }));
  return defineTool({
    name: options.name,
    description: options.description ?? `The ${options.name} probe.`,
    parameters: { tag: { type: 'string', description: 'Any label' } },
    output: {
      schema: { type: 'json' },
      render: (_args, value) => [{ type: 'text', text: `${options.name}:${JSON.stringify(value)}` }],
    },
    isConcurrencySafe: () => options.safe === true,
    execute: (args, exec) => body(args as { readonly [key: string]: JsonValue }, exec),
    ...(options.presentationMeta === true ? { presentationMeta: () => ({ ui: options.name }) } : {}),
  });
}

export { OverlapRecorder } from '../support/overlap-recorder.ts';
