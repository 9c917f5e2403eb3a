// A durable run's state, folded from the journal's events: its start (program, agent,
// time), its nested calls with their latest results, the pause it is in (if any), the
// decisions resumes brought, and whether it ended. What `rt.runs()` lists and what a
// resume answers calls from.
import type { JsonValue } from '../json/json-value.ts';
import type { JournalEvent, ToolCallEvent, ToolResultEvent } from './journal.ts';
import type { RunDecision, RunEndEvent, RunPausedEvent, RunStartEvent } from './run-journal-events.ts';

/** One nested call of the run as the journal has it: the latest attempt's call event and its result, if any. */
export interface RecordedCall {
  readonly call: ToolCallEvent;
  readonly result?: ToolResultEvent;
}

export interface DurableRunState {
  readonly start: RunStartEvent;
  /** The run's current pause: the last run/paused event when nothing of the run happened after it. */
  readonly pause: RunPausedEvent | undefined;
  /** The last pause, even if a resume followed it (its pending calls may still await their turn). */
  readonly lastPause: RunPausedEvent | undefined;
  readonly end: RunEndEvent | undefined;
  /** Every decision given to a resume of this run, by callId (the later wins). */
  readonly decisions: ReadonlyMap<string, RunDecision>;
  /** Nested calls of the run_code call, by callId (`<callId>:ptc:<n>`). */
  readonly calls: ReadonlyMap<string, RecordedCall>;
  /** Time of the run's latest event. */
  readonly updatedAt: number;
}

interface Building {
  start: RunStartEvent;
  pause: RunPausedEvent | undefined;
  lastPause: RunPausedEvent | undefined;
  end: RunEndEvent | undefined;
  decisions: Map<string, RunDecision>;
  calls: Map<string, { call: ToolCallEvent; result?: ToolResultEvent }>;
  updatedAt: number;
}

/** Every run of the journal by runId, in start order. */
export function foldRuns(events: readonly JournalEvent[]): Map<string, DurableRunState> {
  const runs = new Map<string, Building>();
  // The run a run_code callId belongs to: the latest run/start with that callId.
  const byCallId = new Map<string, Building>();
  // Nested call id -> its run.
  const nestedOf = new Map<string, Building>();
  for (const event of events) {
    switch (event.type) {
      case 'run/start': {
        const run: Building = {
          start: event,
          pause: undefined,
          lastPause: undefined,
          end: undefined,
          decisions: new Map(),
          calls: new Map(),
          updatedAt: event.at,
        };
        runs.set(event.runId, run);
        byCallId.set(event.callId, run);
        break;
      }
      case 'run/paused':
      case 'run/resumed':
      case 'run/end': {
        const run = runs.get(event.runId);
        if (run === undefined) break;
        run.updatedAt = Math.max(run.updatedAt, event.at);
        if (event.type === 'run/paused') {
          run.pause = event;
          run.lastPause = event;
        } else {
          run.pause = undefined;
          if (event.type === 'run/end') run.end = event;
          else for (const [id, d] of Object.entries(event.decisions)) run.decisions.set(id, d);
        }
        break;
      }
      case 'tool/call': {
        const run = event.parentCallId === undefined ? undefined : byCallId.get(event.parentCallId);
        if (run === undefined || run.end !== undefined) break;
        run.calls.set(event.callId, { call: event });
        nestedOf.set(event.callId, run);
        break;
      }
      case 'tool/result': {
        const run = nestedOf.get(event.callId);
        const entry = run?.calls.get(event.callId);
        if (entry !== undefined && entry.result === undefined) entry.result = event;
        break;
      }
    }
  }
  return runs as Map<string, DurableRunState>;
}

/** The arguments of a journaled call as the JSON text a program would send (key order kept). */
export function argumentsText(args: JsonValue): string {
  return JSON.stringify(args);
}
