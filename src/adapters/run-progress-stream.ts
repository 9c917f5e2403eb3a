// A run_code call as an async iterable for frameworks that stream preliminary tool
// results (the AI SDK's async-iterable `execute`): one progress snapshot per console
// line and per nested call start or end, as they happen, then the final ToolResult.
import type { ToolResult } from '../pipeline/tool-result.ts';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';

/** A preliminary result of run_code: what just happened, and the counts so far. */
export interface RunProgress {
  readonly type: 'run-progress';
  readonly event:
    | { readonly kind: 'log'; readonly line: string }
    | { readonly kind: 'call-start'; readonly seq: number; readonly name: string }
    | { readonly kind: 'call-end'; readonly seq: number; readonly name: string; readonly isError: boolean };
  readonly logLines: number;
  readonly calls: { readonly started: number; readonly finished: number };
}

export const isRunProgress = (value: unknown): value is RunProgress =>
  typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'run-progress';

/**
 * Yields the progress of the execution `callId` (and anything nested in it) while
 * `result` is pending, then the result. Progress not yet read when the result arrives
 * is still yielded first, in order.
 */
export async function* streamRunProgress(
  rt: ToolRuntime,
  callId: string,
  result: Promise<ToolResult>,
): AsyncGenerator<RunProgress | ToolResult> {
  const queue: RunProgress[] = [];
  let wake: (() => void) | undefined;
  let logLines = 0;
  let started = 0;
  let finished = 0;
  const push = (event: RunProgress['event']): void => {
    queue.push({ type: 'run-progress', event, logLines, calls: { started, finished } });
    wake?.();
  };
  const stops = [
    rt.on('run/log', (e) => {
      if (e.rootCallId !== callId) return;
      logLines += 1;
      push({ kind: 'log', line: e.line });
    }),
    rt.on('run/call-start', (e) => {
      if (e.rootCallId !== callId) return;
      started += 1;
      push({ kind: 'call-start', seq: e.seq, name: e.name });
    }),
    rt.on('run/call-end', (e) => {
      if (e.rootCallId !== callId) return;
      finished += 1;
      push({ kind: 'call-end', seq: e.seq, name: e.name, isError: e.isError });
    }),
  ];
  let settled = false;
  const done = result.finally(() => {
    settled = true;
    wake?.();
  });
  done.catch(() => {}); // rethrown below, once the progress is out
  try {
    for (;;) {
      while (queue.length > 0) yield queue.shift()!;
      if (settled) break;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
    yield await done;
  } finally {
    for (const stop of stops) stop();
  }
}
