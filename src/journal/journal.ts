// The durable record of a runtime's tool traffic: every call (model turns, direct
// `rt.execute`, run_code's nested calls, composite tools' `exec.callTool`) as a
// `tool/call` event written ahead — durable before the call's policy and body run —
// and a `tool/result` event written at commit, before observers see the result. A
// store is anything with `append` and `read`; `openFileJournal` (JSONL + fsync) is the
// embedded default, `openSqliteJournal` (node:sqlite) a queryable one.
import type { JsonValue } from '../json/json-value.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import type { RunClaims } from './run-claims.ts';
import type { RunJournalEvent } from './run-journal-events.ts';
import type { UserMessageEvent } from './user-message-event.ts';
import type { PlanJournalEvent } from './plan-journal-events.ts';
import type { SessionStore } from '../sessions/session-store.ts';

export interface ToolCallEvent {
  readonly type: 'tool/call';
  readonly callId: string;
  readonly name: string;
  /** The calling agent's id; null for the global scope. */
  readonly agent: string | null;
  /** The lossless snapshot the tool saw; null when the arguments were not JSON (the call was refused). */
  readonly arguments: JsonValue;
  /** Only for nested calls: the outermost call of the chain. */
  readonly rootCallId?: string;
  /** Only for nested calls: the callId of the execution that made it (run_code, or a composite tool). */
  readonly parentCallId?: string;
  /** Only for nested calls of a durable run_code run: the run's id. */
  readonly runId?: string;
}

export interface ToolResultEvent {
  readonly type: 'tool/result';
  readonly callId: string;
  readonly name: string;
  /** The final, committed result, exactly as the caller got it. */
  readonly result: ToolResult;
  /** When it was committed, in ms since the epoch (a run_code program's clock moves to it; see durable runs). */
  readonly at?: number;
  /** Only for nested calls of a durable run_code run: the run's id. */
  readonly runId?: string;
}

/**
 * Calls and results, the `run/*` events of durable run_code runs (run-journal-events.ts),
 * contexts admitted as user messages (user-message-event.ts), and plans (plan-journal-events.ts).
 */
export type JournalEvent = ToolCallEvent | ToolResultEvent | RunJournalEvent | UserMessageEvent | PlanJournalEvent;

export interface JournalWarning {
  /**
   * `torn-tail`: the last line is incomplete (a write was cut short, e.g. the process
   * was killed); `unreadable-line`: a line that is not a journal event (often an older
   * torn line); `orphan-result`: a result without its call (replay only).
   */
  readonly kind: 'torn-tail' | 'unreadable-line' | 'orphan-result';
  /** 1-based line number, when known. */
  readonly line?: number;
  readonly message: string;
}

export interface JournalContents {
  /** Every readable event, in append order. Deep-frozen. */
  readonly events: readonly JournalEvent[];
  /** Lines that were skipped, and why. Skipping never affects other entries. */
  readonly warnings: readonly JournalWarning[];
}

/** A pluggable store. The runtime appends one event at a time: a call before it runs, its result at commit. */
export interface Journal {
  /**
   * Appends in call order, all or nothing as far as the store can promise. Resolves
   * only once the events are durable (the file journal: fsync'd; SQLite: committed
   * with synchronous=FULL). A rejection is the scheduler's failure: the calls it hits
   * get SCHEDULER_FAILURE results.
   */
  append(events: readonly JournalEvent[]): Promise<void>;
  read(): Promise<JournalContents>;
  /**
   * Who may continue a durable run: one process at a time (run-claims.ts). The shipped
   * stores have it; a store without it still records runs, but two processes could then
   * resume one run at once (only the in-process lock applies).
   */
  readonly claims?: RunClaims;
  /** false for a store that does not outlive this process (the memory journal): its paused runs say so. */
  readonly durable?: boolean;
  /** Where the runtime keeps sessions (`createToolRuntime({ sessions })`) when this journal is its store. */
  readonly sessions?: SessionStore;
}
