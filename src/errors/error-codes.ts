// Every `error.code` a failed ToolResult can carry, with its meaning. A thrown error
// that carries its own string `code` keeps it (see normalizeThrown), so tools may
// add their own codes; these are the runtime's.

export const ERROR_CODES = {
  /** Arguments failed the tool's parameter schema, or could not be snapshotted losslessly as JSON. The body did not run. */
  INVALID_ARGS: 'INVALID_ARGS',
  /** The body returned a value that is not lossless JSON or fails `output.schema` (also a post-execute value replacement), or `render` failed. */
  INVALID_TOOL_OUTPUT: 'INVALID_TOOL_OUTPUT',
  /** A schema uses a JSON Schema keyword outside the supported subset (definition time). */
  UNSUPPORTED_SCHEMA: 'UNSUPPORTED_SCHEMA',
  /** No visible tool has this name for the calling agent (or, in ptc mode, a native tool was called directly). */
  UNKNOWN_TOOL: 'UNKNOWN_TOOL',
  /** A pre-execute handler or a guard denied the call. */
  DENIED: 'DENIED',
  /** A pre-execute handler cancelled the call, or the user cancelled an approval request. */
  CANCELLED: 'CANCELLED',
  /** Approval was asked but no service, no routing for the agent, an unavailable channel or a failing service. Never auto-approved. */
  APPROVAL_UNAVAILABLE: 'APPROVAL_UNAVAILABLE',
  /** The user rejected the approval request. */
  APPROVAL_REJECTED: 'APPROVAL_REJECTED',
  /** The call's signal aborted while or after the body ran. Text: `Error: tool call aborted`. */
  ABORTED: 'ABORTED',
  /** The call's signal aborted before the body started. Text: `Error: tool call aborted before dispatch`. */
  ABORTED_BEFORE_DISPATCH: 'ABORTED_BEFORE_DISPATCH',
  /** The timeout policy's deadline (`timeoutMs`) fired. */
  TOOL_TIMEOUT: 'TOOL_TIMEOUT',
  /** The body threw (a thrown error with its own string `code` keeps that code instead). */
  TOOL_ERROR: 'TOOL_ERROR',
  /** A post-execute handler blocked the outcome; its feedback is the content. */
  BLOCKED: 'BLOCKED',
  /** A hook, wrapper, projector or finalizer of the pipeline itself threw or broke a rule. */
  PIPELINE_ERROR: 'PIPELINE_ERROR',
  /** run_code: the program failed; `info.kind` says how (compile, exception, timeout, cpu, memory, ...). */
  CODE_RUN_FAILED: 'CODE_RUN_FAILED',
  /** A mode needs a piece that is missing (sandbox, SDK renderer); never a silent fall back to native. */
  PTC_NOT_CONFIGURED: 'PTC_NOT_CONFIGURED',
  /** A nested call (run_code, `exec.callTool`) deeper than `maxCallDepth` (default 8); refused before policy. */
  NESTING_TOO_DEEP: 'NESTING_TOO_DEEP',
  /**
   * An internal failure (e.g. the journal could not be written) kept this call from
   * committing. `info.dispatched` says whether it was dispatched (its body may have run).
   */
  SCHEDULER_FAILURE: 'SCHEDULER_FAILURE',
  /**
   * The approval service answered `pause`: the call of a run_code program awaits a
   * human's decision and its run pauses (the program never sees this result; the run's
   * result carries `paused`, and `rt.resume` continues it). Journaled like any result.
   */
  PAUSED: 'PAUSED',
  /**
   * run_code named a session that is unknown, expired, deleted or another agent's: the
   * program did not run. Its text tells the model to start a new session.
   */
  SESSION_EXPIRED: 'SESSION_EXPIRED',
  /** run_code named a session another program is running on: the program did not run; retry after that one ends. */
  SESSION_BUSY: 'SESSION_BUSY',
} as const;

export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];
