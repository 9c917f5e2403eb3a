// What the scheduler throws at its caller. It never invents tool results: when it
// cannot go on, the turn (or the run_code program's submit) fails with this.
import { ToolRuntimeError } from '../errors/tool-runtime-error.ts';
import { describeThrown } from '../pipeline/thrown.ts';

export const SCHEDULER_ERROR_CODES = {
  /** An internal failure (e.g. the journal could not be written): dispatch stopped, started work drained. */
  SCHEDULER_FAILURE: 'SCHEDULER_FAILURE',
  /** The call was submitted after the sequencer closed (e.g. a program call after the program ended). */
  NOT_DISPATCHED: 'NOT_DISPATCHED',
} as const;
export type SchedulerErrorCode = (typeof SCHEDULER_ERROR_CODES)[keyof typeof SCHEDULER_ERROR_CODES];

export class SchedulerError extends ToolRuntimeError {
  declare readonly code: SchedulerErrorCode;

  constructor(code: SchedulerErrorCode, message: string, options: { readonly cause?: unknown; readonly details?: Readonly<Record<string, unknown>> } = {}) {
    super(code, message, options.details);
    if ('cause' in options) this.cause = options.cause;
  }

  /** Wraps an internal failure (kept as `cause`) unless it already is one. */
  static failure(cause: unknown): SchedulerError {
    if (cause instanceof SchedulerError) return cause;
    return new SchedulerError(SCHEDULER_ERROR_CODES.SCHEDULER_FAILURE, `tool scheduler failed: ${describeThrown(cause).message}`, { cause });
  }
}
