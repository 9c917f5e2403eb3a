// A durable run's state, folded from the journal's events: its start (program, agent,
// time), its nested calls with their latest results, the pause it is in (if any) and
// whether it ended. What `rt.runs()` lists and what a resume answers calls from. A
// `run/resumed` row is a record of what a resume was given, never an input: decisions
// reach a run only through `rt.resume`, so the fold neither reads them nor lets such a
// row end a pause (the run's own calls after the pause do).
import { ERROR_CODES } from '../errors/error-codes.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { JournalEvent, ToolCallEvent, ToolResultEvent } from './journal.ts';
import { isUnsealed } from './sealed-journal.ts';
import type { PendingApproval, RunEndEvent, RunPausedEvent, RunStartEvent } from './run-journal-events.ts';

/** One nested call of the run as the journal has it: the latest attempt's call event and its result, if any. */
export interface RecordedCall {
  readonly call: ToolCallEvent;
  readonly result?: ToolResultEvent;
}

export interface DurableRunState {
  readonly start: RunStartEvent;
  /** The run/start event's position among the journal's events (1-based), to name it in warnings. */
  readonly startRow: number;
  /** The run's current pause: the last run/paused event when nothing of the run happened after it. */
  readonly pause: RunPausedEvent | undefined;
  /** The last pause, even if a resume followed it (its pending calls may still await their turn). */
  readonly lastPause: RunPausedEvent | undefined;
  readonly end: RunEndEvent | undefined;
  /** Nested calls of the run_code call, by callId (`<callId>:ptc:<n>`). */
  readonly calls: ReadonlyMap<string, RecordedCall>;
  /** Time of the run's latest event. */
  readonly updatedAt: number;
  /**
   * With a sealing key: why the run cannot be trusted (its first row whose seal is missing
   * or wrong, which was not applied). Such a run is listed nowhere and cannot be resumed.
   */
  readonly tampered: string | undefined;
}

interface Building {
  start: RunStartEvent;
  startRow: number;
  pause: RunPausedEvent | undefined;
  lastPause: RunPausedEvent | undefined;
  end: RunEndEvent | undefined;
  calls: Map<string, { call: ToolCallEvent; result?: ToolResultEvent }>;
  updatedAt: number;
  tampered: string | undefined;
}

/** Every run of the journal by runId, in start order. */
export function foldRuns(events: readonly JournalEvent[]): Map<string, DurableRunState> {
  const runs = new Map<string, Building>();
  // The run a run_code callId belongs to: the latest run/start with that callId.
  const byCallId = new Map<string, Building>();
  // Nested call id -> its run.
  const nestedOf = new Map<string, Building>();
  /** The run an event of it belongs to (nested rows by their runId, or older ones by their parent's callId). */
  const runOf = (event: JournalEvent): Building | undefined => {
    switch (event.type) {
      case 'run/paused':
      case 'run/resumed':
      case 'run/end':
        return runs.get(event.runId);
      case 'tool/call': {
        if (event.parentCallId === undefined) return undefined;
        const run = event.runId === undefined ? byCallId.get(event.parentCallId) : runs.get(event.runId);
        return run?.start.callId === event.parentCallId ? run : undefined;
      }
      case 'tool/result':
        return event.runId === undefined ? nestedOf.get(event.callId) : runs.get(event.runId);
      default:
        return undefined;
    }
  };
  events.forEach((event, index) => {
    const row = index + 1;
    if (event.type === 'run/start') {
      const known = runs.get(event.runId);
      // A second run/start of one run is not something a host writes: that run is not trusted.
      if (known !== undefined) {
        known.tampered ??= `journal event ${row} is a second run/start of this run`;
        return;
      }
      const run: Building = {
        start: event,
        startRow: row,
        pause: undefined,
        lastPause: undefined,
        end: undefined,
        calls: new Map(),
        updatedAt: event.at,
        tampered: isUnsealed(event) ? unsealedRow(row, event) : undefined,
      };
      runs.set(event.runId, run);
      byCallId.set(event.callId, run);
      return;
    }
    const run = runOf(event);
    if (run === undefined) return;
    // A row without a valid seal is not applied; the run it names is stopped.
    if (isUnsealed(event)) {
      run.tampered ??= unsealedRow(row, event);
      return;
    }
    apply(run, event, nestedOf);
  });
  return runs as Map<string, DurableRunState>;
}

function unsealedRow(row: number, event: JournalEvent): string {
  return `journal event ${row} (${event.type}) failed its integrity check (PTC_JOURNAL_KEY): it was written without the key or changed since`;
}

/** One row of a run, applied to what is known of it. */
function apply(run: Building, event: JournalEvent, nestedOf: Map<string, Building>): void {
  switch (event.type) {
    case 'run/paused':
    case 'run/resumed':
    case 'run/end':
      run.updatedAt = Math.max(run.updatedAt, event.at);
      if (event.type === 'run/paused') {
        run.pause = event;
        run.lastPause = event;
      } else if (event.type === 'run/end') {
        run.pause = undefined;
        run.end = event;
      }
      return;
    case 'tool/call':
      if (run.end !== undefined) return;
      // The run went on after its pause: a resume is (or was) running it.
      run.pause = undefined;
      run.calls.set(event.callId, { call: event });
      nestedOf.set(event.callId, run);
      return;
    case 'tool/result': {
      const entry = run.calls.get(event.callId);
      if (entry !== undefined && entry.result === undefined) entry.result = event;
      return;
    }
    default:
      return;
  }
}

/**
 * The calls of the run's last pause that have not completed since: what a resume may
 * decide. A call that ran (or was denied) after the pause has its result; one whose
 * approval paused again, or whose attempt was cut short, has none that counts.
 */
export function undecidedCalls(run: DurableRunState): readonly PendingApproval[] {
  return (run.lastPause?.pending ?? []).filter((p) => {
    const result = run.calls.get(p.callId)?.result?.result;
    return result === undefined || result.error?.code === ERROR_CODES.PAUSED;
  });
}

/** The arguments of a journaled call as the JSON text a program would send (key order kept). */
export function argumentsText(args: JsonValue): string {
  return JSON.stringify(args);
}
