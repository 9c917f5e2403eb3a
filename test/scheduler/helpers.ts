// Fixtures for the scheduler suite: a `work` tool whose concurrency declaration and
// body delays come from its arguments, a recorder of body overlap, and fake delays
// (event-loop hops, never wall-clock time).
import { expect } from '@jest/globals';
import type { ContextMessage, JournalEvent, JsonValue, Tool, ToolExecution, ToolResult } from '../../src/index.ts';
import { createToolRuntime, defineTool } from '../../src/index.ts';
import type { ToolRuntime, ToolRuntimeOptions } from '../../src/runtime/create-tool-runtime.ts';

/** How a call declares itself: only `safe` is parallel; `throws` and `truthy` must be exclusive. */
export type WorkMode = 'safe' | 'exclusive' | 'throws' | 'truthy';

export interface WorkArgs {
  readonly id: string;
  readonly mode: WorkMode;
  /** Event-loop hops the body takes. */
  readonly hops?: number;
  /** Contexts the body defers. */
  readonly contexts?: number;
  readonly conclude?: boolean;
  readonly fail?: boolean;
}

/** Yields to the event loop `n` times: a fake delay that orders work without wall-clock time. */
export async function hops(n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

export const userText = (text: string): ContextMessage => ({ role: 'user', content: [{ type: 'text', text }] });
export const contextTexts = (contexts: readonly ContextMessage[]): string[] =>
  contexts.map((c) => c.content.map((b) => (b.type === 'text' ? b.text : `[${b.mimeType}]`)).join(''));

export { OverlapRecorder } from '../support/overlap-recorder.ts';
import { OverlapRecorder } from '../support/overlap-recorder.ts';

export interface WorkToolOptions {
  readonly name?: string;
  readonly recorder?: OverlapRecorder;
  /** Runs inside the body after the hops (e.g. to change the registry). */
  readonly during?: (args: WorkArgs, exec: ToolExecution) => void | Promise<void>;
  readonly timeoutMs?: number;
  readonly presenters?: boolean;
}

export function workTool(options: WorkToolOptions = {}): Tool {
  const recorder = options.recorder;
  return defineTool({
    name: options.name ?? 'work',
    description: 'Does some work.',
    parameters: {
      id: { type: 'string', required: true },
      mode: { type: 'string', enum: ['safe', 'exclusive', 'throws', 'truthy'], required: true },
      hops: { type: 'integer', minimum: 0 },
      contexts: { type: 'integer', minimum: 0 },
      conclude: { type: 'boolean' },
      fail: { type: 'boolean' },
    },
    output: {
      schema: { type: 'object', additionalProperties: false, properties: { id: { type: 'string', required: true } } },
      render: (_args, value) => [{ type: 'text', text: `done:${value.id}` }],
    },
    isConcurrencySafe: (args) => {
      if (args.mode === 'throws') throw new Error('cannot tell');
      if (args.mode === 'truthy') return 1 as unknown as boolean;
      return args.mode === 'safe';
    },
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.presenters === true
      ? {
          presentCall: (args: WorkArgs): JsonValue => ({ title: `Working on ${args.id}` }),
          presentResult: (args: WorkArgs, result: ToolResult): JsonValue => ({
            title: `${args.id}: ${result.isError ? 'failed' : 'done'}`,
            text: result.content.map((b) => (b.type === 'text' ? b.text : '')).join(''),
          }),
        }
      : {}),
    execute: async (args, exec) => {
      recorder?.enter(args.id, args.mode === 'safe');
      try {
        await hops(args.hops ?? 0);
        await options.during?.(args, exec);
        for (let i = 0; i < (args.contexts ?? 0); i += 1) exec.deferContext(userText(`body:${args.id}:${i}`));
        if (args.conclude === true) exec.concludeTurn();
        if (args.fail === true) throw new Error(`work ${args.id} failed`);
        return { id: args.id };
      } finally {
        recorder?.exit(args.id);
      }
    },
  });
}

export const work = (args: WorkArgs, name = 'work') => ({ callId: args.id, name, arguments: args });

/** A runtime without a sandbox (the scheduler needs none), with one `work` tool. */
export function workRuntime(options: ToolRuntimeOptions & WorkToolOptions = {}): {
  rt: ToolRuntime;
  recorder: OverlapRecorder;
} {
  const recorder = options.recorder ?? new OverlapRecorder();
  const rt = createToolRuntime({ sandbox: false, ...options });
  rt.register(workTool({ ...options, recorder }));
  return { rt, recorder };
}

export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
}
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}

/**
 * A whole journal for these calls: call events (written ahead) in model order, result
 * events (commits) in model order, and each call's event before its result.
 */
export function expectJournalWhole(events: readonly JournalEvent[], ids: readonly string[]): void {
  expect(events.filter((e) => e.type === 'tool/call').map((e) => e.callId)).toEqual(ids);
  expect(events.filter((e) => e.type === 'tool/result').map((e) => e.callId)).toEqual(ids);
  const at = (type: string, id: string) => events.findIndex((e) => e.type === type && e.callId === id);
  for (const id of ids) expect(at('tool/call', id)).toBeLessThan(at('tool/result', id));
}
