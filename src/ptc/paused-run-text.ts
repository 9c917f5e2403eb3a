// What a paused run_code result says: the run id, each call awaiting approval (what it
// would do), and how the run continues. The model reads it as the tool result; a UI shows
// `value.paused` itself.
import type { JsonValue } from '../json/json-value.ts';
import { truncateVisible } from './run-code-output.ts';

/** `value.paused` of a run_code result: the run waits for a human's decision on these calls. */
export interface PausedRun {
  /** What `rt.resume(runId, decisions)` (or `ptc runs approve|deny`) takes. */
  readonly runId: string;
  /** The gated calls the program issued before it could go no further, in program order. */
  readonly pending: readonly {
    readonly callId: string;
    readonly name: string;
    readonly arguments: JsonValue;
    readonly title: string;
  }[];
  /** After this time (ms since the epoch) the run can no longer be resumed (`pausedRunTtlMs`). */
  readonly expiresAt: number;
  /** false when the journal is in memory: the pause is lost if this process ends. */
  readonly survivesRestart?: false;
}

const MAX_ARGS_SHOWN = 300;

export function pausedRunText(
  value: { readonly logs: readonly string[]; readonly paused: PausedRun },
  max: number,
): string {
  const { paused } = value;
  const n = paused.pending.length;
  const lines = [
    `The program is paused (run ${paused.runId}): ${n === 1 ? '1 tool call awaits' : `${n} tool calls await`} a human's approval.`,
  ];
  for (const p of paused.pending) {
    const args = JSON.stringify(p.arguments);
    lines.push(
      `- ${p.callId}: tools.${p.name}(${args.length > MAX_ARGS_SHOWN ? `${args.slice(0, MAX_ARGS_SHOWN)}…` : args}) — ${p.title}`,
    );
  }
  lines.push(
    'The run continues from where it stopped once they are approved or denied; nothing it did so far runs again.' +
      (paused.survivesRestart === false
        ? ' (In-memory journal: this pause does not survive a restart of this process.)'
        : ''),
  );
  if (value.logs.length > 0) lines.push('', 'Output so far:', ...value.logs);
  return truncateVisible(lines.join('\n'), max);
}
