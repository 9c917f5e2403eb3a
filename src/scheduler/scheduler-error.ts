// The scheduler's own failures. An internal failure (e.g. the journal could not be
// written) is a SchedulerError; each call it kept from committing gets a structured
// SCHEDULER_FAILURE result built from it, so no call is left without a result.
import { ToolRuntimeError } from '../errors/tool-runtime-error.ts';
import { deepFreeze } from '../json/json-value.ts';
import { describeThrown } from '../pipeline/thrown.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';

export const SCHEDULER_ERROR_CODES = {
  /** An internal failure (e.g. the journal could not be written): dispatch stopped, started work drained. */
  SCHEDULER_FAILURE: 'SCHEDULER_FAILURE',
  /** The call was submitted after the sequencer closed (e.g. a program call after the program ended). */
  NOT_DISPATCHED: 'NOT_DISPATCHED',
} as const;
export type SchedulerErrorCode = (typeof SCHEDULER_ERROR_CODES)[keyof typeof SCHEDULER_ERROR_CODES];

export class SchedulerError extends ToolRuntimeError {
  declare readonly code: SchedulerErrorCode;

  constructor(
    code: SchedulerErrorCode,
    message: string,
    options: { readonly cause?: unknown; readonly details?: Readonly<Record<string, unknown>> } = {},
  ) {
    super(code, message, options.details);
    if ('cause' in options) this.cause = options.cause;
  }

  /** Wraps an internal failure (kept as `cause`) unless it already is one. */
  static failure(cause: unknown): SchedulerError {
    if (cause instanceof SchedulerError) return cause;
    return new SchedulerError(
      SCHEDULER_ERROR_CODES.SCHEDULER_FAILURE,
      `tool scheduler failed: ${describeThrown(cause).message}`,
      { cause },
    );
  }
}

/**
 * The result of a call that an internal failure kept from committing. It never passed
 * the pipeline's finish: no observer saw it and the journal does not hold it (replay
 * lists the call as interrupted when its write-ahead record made it to the journal).
 */
export function schedulerFailureResult(
  callId: string,
  name: string,
  failure: SchedulerError,
  dispatched: boolean,
): ToolResult {
  const cause = failure.message;
  const message = dispatched
    ? `${cause}; the call was dispatched and may have run, but its result was not committed`
    : `${cause}; the call was not run`;
  return deepFreeze({
    callId,
    name,
    isError: true,
    content: [{ type: 'text', text: `Error: ${message}` }],
    error: { code: SCHEDULER_ERROR_CODES.SCHEDULER_FAILURE, message, info: { dispatched } },
  });
}
