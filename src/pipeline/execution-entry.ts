// Stage: create and entry checks. The request becomes an execution (its arguments a
// frozen snapshot, its token, depth and root), and the checks that need no policy refuse
// what can never run. Contract: createExecution throws a TypeError for a malformed
// request (no result: there is no call); entryRefusal gives the final draft of a call
// refused at entry, or undefined.
import type { Tool } from '../definition/define-tool.ts';
import { ERROR_CODES } from '../errors/error-codes.ts';
import { trySnapshotJson, type JsonValue } from '../json/json-value.ts';
import { checkCallIdLength } from './call-id-bound.ts';
import { DEFAULT_MAX_CALL_DEPTH } from './call-depth.ts';
import { ExecutionState } from './execution-state.ts';
import { errorDraft, type Draft } from './result-drafts.ts';
import { NEVER_ABORTED } from './never-aborted.ts';
import { hasSnapshotArguments } from './snapshot-request.ts';
import type { NestedExecuteRequest } from './execute-request.ts';
import type { PipelineDeps } from './pipeline-deps.ts';

/** A call made into its execution, with what its definition said at entry. */
export interface CreatedExecution {
  readonly exec: ExecutionState;
  /** Why the arguments are not lossless JSON (the call then fails INVALID_ARGS), or undefined. */
  readonly snapshotError: Error | undefined;
  readonly projectContent: Tool['projectContent'];
  readonly finalizeContent: Tool['finalizeContent'];
  /** The definition the name resolved to at entry (what bounds its journal waits), if any. */
  readonly tool: Tool | undefined;
}

/**
 * Create: the request checked (a malformed one is a TypeError, not a result), the
 * arguments snapshotted and the execution made. The definition's content callbacks are
 * captured before the arguments are read: a getter on them cannot swap these.
 */
export function createExecution(deps: PipelineDeps, request: NestedExecuteRequest): CreatedExecution {
  if (typeof request !== 'object' || request === null)
    throw new TypeError('execute: expected { callId, name, arguments }');
  const { callId, name } = request;
  if (typeof callId !== 'string' || callId.length === 0)
    throw new TypeError('execute: callId must be a non-empty string');
  if (request.parent === undefined) checkCallIdLength(callId, 'execute');
  if (typeof name !== 'string') throw new TypeError(`execute(${callId}): name must be a string`);
  const signal = request.signal ?? NEVER_ABORTED;
  if (!(signal instanceof AbortSignal)) throw new TypeError(`execute(${callId}): signal must be an AbortSignal`);
  const agent = deps.registry.agentId(request.agent);
  const entryTool = deps.resolveTool(name, agent);
  const projectContent = entryTool?.projectContent;
  const finalizeContent = entryTool?.finalizeContent;
  const rawArguments = request.arguments;
  // A scheduler's snapshot is already a deep-frozen copy: a second one would be equal.
  const snapshot = hasSnapshotArguments(request)
    ? { ok: true as const, value: rawArguments as JsonValue }
    : trySnapshotJson(rawArguments, 'arguments');
  const exec = new ExecutionState({
    callId,
    name,
    agent,
    parent: request.parent,
    rootCallId: request.rootCallId ?? callId,
    idempotencyKey:
      typeof request.idempotencyKey === 'string' && request.idempotencyKey.length > 0
        ? request.idempotencyKey
        : callIdempotencyKey(callId),
    arguments: snapshot.ok ? snapshot.value : null,
    callerSignal: signal,
    caller: request.caller,
    hostedProgram: request.hostedProgram,
    fencingToken: request.fencingToken,
    session: request.toolSession,
  });
  return {
    exec,
    snapshotError: snapshot.ok ? undefined : snapshot.error,
    projectContent,
    finalizeContent,
    tool: entryTool,
  };
}

/**
 * Entry checks, after the write-ahead record and before any policy: arguments that are
 * not JSON, a caller that already aborted, nesting too deep, a refused hosted caller, a
 * model-direct call ptc mode does not allow. The draft is the call's final outcome.
 */
export function entryRefusal(
  deps: PipelineDeps,
  request: NestedExecuteRequest,
  { exec, snapshotError }: CreatedExecution,
): Draft | undefined {
  const { name } = exec;
  if (snapshotError !== undefined)
    return errorDraft(ERROR_CODES.INVALID_ARGS, `invalid arguments for tool "${name}": ${snapshotError.message}`);
  if (exec.callerSignal.aborted) return errorDraft(ERROR_CODES.ABORTED_BEFORE_DISPATCH);
  const maxDepth = deps.maxCallDepth ?? DEFAULT_MAX_CALL_DEPTH;
  if (exec.depth > maxDepth) {
    return errorDraft(
      ERROR_CODES.NESTING_TOO_DEEP,
      `call of "${name}" is nested ${exec.depth} calls deep, beyond the limit of ${maxDepth} (createToolRuntime({ maxCallDepth })); a composite tool may be calling itself`,
      { depth: exec.depth, maxCallDepth: maxDepth },
    );
  }
  if (request.callerRefusal !== undefined)
    return errorDraft(ERROR_CODES.DENIED, request.callerRefusal, { caller: exec.caller });
  if (request.parent === undefined) {
    const refusal = deps.directCallRefusal(name, exec.agent);
    if (refusal !== undefined) return errorDraft(ERROR_CODES.UNKNOWN_TOOL, refusal);
  }
  return undefined;
}

/**
 * The idempotency key of a call outside a durable run: `call:<callId>`. A durable run's
 * nested calls get `run:<runId>:<n>`: the two prefixes keep the sets apart, so no callId
 * can produce another call's key.
 */
export function callIdempotencyKey(callId: string): string {
  return `call:${callId}`;
}
