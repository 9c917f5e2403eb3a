// Why `rt.resume` (or `rt.runs`) refused: a stable code, a message that says what to do.
import { ToolRuntimeError } from './tool-runtime-error.ts';

export const RUN_RESUME_ERROR_CODES = {
  /** The runtime has no journal, so runs are not durable (createToolRuntime({ journal })). */
  NO_JOURNAL: 'NO_JOURNAL',
  /** No run with this id is in the journal. */
  UNKNOWN_RUN: 'UNKNOWN_RUN',
  /** The run paused longer ago than `pausedRunTtlMs`; it can no longer be resumed. */
  RUN_EXPIRED: 'RUN_EXPIRED',
  /** The run already ended (completed, failed or expired). */
  RUN_FINISHED: 'RUN_FINISHED',
  /** Another resume (in this process or another) holds the run right now. */
  RUN_BUSY: 'RUN_BUSY',
  /** A decision names a call that is not pending in this run. */
  NOT_PENDING: 'NOT_PENDING',
  /** A decision is neither 'approve' nor 'deny', or `decisions` is not an object. */
  INVALID_DECISION: 'INVALID_DECISION',
  /**
   * This runtime lacks a tool the run uses (register the host's tools): nothing of the run
   * ran and it was not ended; resume it where the tools are.
   */
  TOOL_MISSING: 'TOOL_MISSING',
  /**
   * With a sealing key (PTC_JOURNAL_KEY): a row of this run failed its integrity check
   * (written without the key, or changed). The run is not resumed; the message names the row.
   */
  RUN_TAMPERED: 'RUN_TAMPERED',
} as const;

export type RunResumeErrorCode = (typeof RUN_RESUME_ERROR_CODES)[keyof typeof RUN_RESUME_ERROR_CODES];

/** Thrown by `rt.resume` / `rt.runs`: `code` is one of RUN_RESUME_ERROR_CODES. */
export class RunResumeError extends ToolRuntimeError {
  declare readonly code: RunResumeErrorCode;
  constructor(code: RunResumeErrorCode, message: string, details?: Readonly<Record<string, unknown>>) {
    super(code, message, details);
  }
}
