// The journal events of a durable run_code run, beside the tool/call and tool/result
// events of its nested calls. A run is identified by `runId` (a fresh id per run, also
// the seed of its randomness); `callId` and `name` are the run_code call's own, so every
// store can file them with the call. Written ahead, like calls: `run/start` before the
// program runs, `run/paused` before a paused result returns, `run/resumed` (with the
// decisions) before a resume runs anything, `run/end` before a finished result returns.
import type { JsonValue } from '../json/json-value.ts';

/** A human's answer to a paused call. */
export type RunDecision = 'approve' | 'deny';

/** One gated call a paused run waits for. */
export interface PendingApproval {
  /** The nested call's id (`<run_code callId>:ptc:<n>`). */
  readonly callId: string;
  readonly name: string;
  readonly arguments: JsonValue;
  /** What the approval request showed (the `ask({ title })` or the default). */
  readonly title: string;
}

/** Fields every run event has. */
export interface RunEventBase {
  /** The run_code call's id. */
  readonly callId: string;
  /** Always `run_code`. */
  readonly name: string;
  readonly runId: string;
  /** When it was written, in ms since the epoch. */
  readonly at: number;
}

export interface RunStartEvent extends RunEventBase {
  readonly type: 'run/start';
  /** The calling agent's id; null for the global scope. */
  readonly agent: string | null;
  /** Who the application started the run for (`rt.execute({ principal })`); absent when it named no one. */
  readonly principal?: string;
  /** run_code's arguments: a resume runs this program again. */
  readonly description: string;
  readonly code: string;
  /** Sessions: the session the run started on and the state it read, so a resume reads the same and saves over that version. */
  readonly session?: { readonly id: string; readonly version: number; readonly state: string };
}

export interface RunPausedEvent extends RunEventBase {
  readonly type: 'run/paused';
  readonly pending: readonly PendingApproval[];
  /** After this time (ms since the epoch) the run can no longer be resumed. */
  readonly expiresAt: number;
  /** A Python run: the interpreter's state at its pending call, which a resume continues from. */
  readonly guestState?: { readonly python: string; readonly seq: number };
}

export interface RunResumedEvent extends RunEventBase {
  readonly type: 'run/resumed';
  /** Pending callId → decision, as given to `resume`. */
  readonly decisions: { readonly [callId: string]: RunDecision };
}

export interface RunEndEvent extends RunEventBase {
  readonly type: 'run/end';
  /**
   * `completed`: the program returned; `failed`: it failed (the result says how); `expired`:
   * a paused run was given up; `cancelled`: its caller cancelled it (`rt.cancelRun`, an MCP task's cancel).
   */
  readonly status: 'completed' | 'failed' | 'expired' | 'cancelled';
}

export type RunJournalEvent = RunStartEvent | RunPausedEvent | RunResumedEvent | RunEndEvent;

export const RUN_EVENT_TYPES: readonly RunJournalEvent['type'][] = [
  'run/start',
  'run/paused',
  'run/resumed',
  'run/end',
];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isTime = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);

const isRecordedSession = (v: unknown): boolean =>
  isObject(v) &&
  typeof v.id === 'string' &&
  typeof v.state === 'string' &&
  typeof v.version === 'number' &&
  Number.isSafeInteger(v.version) &&
  v.version >= 0;

const isGuestState = (v: unknown): boolean =>
  isObject(v) && typeof v.python === 'string' && Number.isSafeInteger(v.seq) && (v.seq as number) >= 1;

/** Whether `value` (already known to have a string callId and name) is a well-formed run event. */
export function isRunJournalEvent(value: Record<string, unknown>): boolean {
  if (typeof value.runId !== 'string' || value.runId.length === 0 || !isTime(value.at)) return false;
  switch (value.type) {
    case 'run/start':
      return (
        (value.agent === null || typeof value.agent === 'string') &&
        (value.principal === undefined || typeof value.principal === 'string') &&
        typeof value.description === 'string' &&
        typeof value.code === 'string' &&
        (value.session === undefined || isRecordedSession(value.session))
      );
    case 'run/paused':
      return (
        isTime(value.expiresAt) &&
        (value.guestState === undefined || isGuestState(value.guestState)) &&
        Array.isArray(value.pending) &&
        value.pending.every(
          (p) =>
            isObject(p) &&
            typeof p.callId === 'string' &&
            typeof p.name === 'string' &&
            typeof p.title === 'string' &&
            Object.hasOwn(p, 'arguments'),
        )
      );
    case 'run/resumed':
      return isObject(value.decisions) && Object.values(value.decisions).every((d) => d === 'approve' || d === 'deny');
    case 'run/end':
      return (
        value.status === 'completed' ||
        value.status === 'failed' ||
        value.status === 'expired' ||
        value.status === 'cancelled'
      );
    default:
      return false;
  }
}
