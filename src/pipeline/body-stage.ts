// Stage: the body. Re-resolves the definition, fuses the caller's and a wrapper's
// signals, refuses what must not run (unknown now, aborted, invalid arguments), takes the
// resource lock, runs the body with exec.callTool open, and turns what it returned or
// threw into a draft; nested calls it left running are closed before its outcome moves on.
// Contract: resolves with the body's draft (never rejects); the phase is `after` once it
// resolves. dispatchDirect does the same synchronously for a body that returns a value.
import { checkedBody } from '../definition/checked-body.ts';
import type { Tool } from '../definition/define-tool.ts';
import { ERROR_CODES } from '../errors/error-codes.ts';
import { ToolArgsError } from '../errors/tool-args-error.ts';
import { openCompositeCalls, type CompositeCalls } from './composite-calls.ts';
import type { ExecutionState } from './execution-state.ts';
import { errorDraft, successDraft, thrownDraft, type Draft } from './result-drafts.ts';
import { fuseSignals } from './signal-fusion.ts';
import type { ReleaseLock } from './resource-locks.ts';
import type { PipelineDeps } from './pipeline-deps.ts';
import { DEFAULT_GRACE_MS, isSelfBounded, reportUnsettled, warnUnsettled } from './unsettled-body.ts';
import { type BodyTracker, GIVEN_UP, followThenable, noop, untilGivenUp } from './body-give-up.ts';
import { fenceBody, fenceLostDraft, lockResource } from './lock-stage.ts';
import { fenceLostReason } from './fence.ts';

/**
 * The default end of the tools/execute waterfall: resolve again, fuse signals, run the
 * body; then the phase is `after` (back to `around` inside a wrapper, `post` without one).
 * `bodies` tracks the body from its start; `givenUp` gives the tracker for a body that is
 * given up on while it still runs.
 * Long: kept in one piece. Its awaits (the lock, the body, the close of its nested
 * calls) are the call's turns, by which a journaled call's records interleave with the
 * turn's other calls; moving a part into an async helper would add turns.
 */
export async function dispatchBody(
  deps: PipelineDeps,
  exec: ExecutionState,
  bodies: BodyTracker | undefined,
  after: 'around' | 'post',
  givenUp?: () => BodyTracker,
  unjournaled = false,
): Promise<Draft> {
  // Re-resolved at body start: a tool hidden or removed since policy is unknown now.
  const tool = deps.resolveTool(exec.name, exec.agent);
  if (tool === undefined)
    return refused(exec, after, errorDraft(ERROR_CODES.UNKNOWN_TOOL, `unknown tool "${exec.name}"`));
  const wrapperSignal = exec.signal;
  let fused = fuseSignals(exec.callerSignal, wrapperSignal);
  if (fused.signal.aborted) {
    fused.dispose();
    return refused(exec, after, errorDraft(ERROR_CODES.ABORTED_BEFORE_DISPATCH));
  }
  // Invalid input never runs the body, so it is refused before bodyInvoked is set.
  const issues = tool.argIssues(exec.arguments);
  if (issues.length > 0) {
    fused.dispose();
    return refused(exec, after, errorDraft(ERROR_CODES.INVALID_ARGS, new ToolArgsError(tool.name, issues).message));
  }
  // A declared resource is locked before the body starts and released when it settles.
  let releaseLock: ReleaseLock | undefined;
  if (tool.resourceKey !== undefined && deps.resourceLocks !== undefined) {
    const locked = await lockResource(deps, deps.resourceLocks, exec, tool.resourceKey, fused.signal);
    if ('draft' in locked) {
      fused.dispose();
      return refused(exec, after, locked.draft);
    }
    releaseLock = locked.release;
    // A lock held across hosts: its loss aborts the body, whose result then is not kept.
    if (locked.fence !== undefined) {
      fused = fenceBody(fused, locked.fence, exec);
      if (fused.signal.aborted) {
        void releaseLock().catch(() => {});
        fused.dispose();
        return refused(exec, after, errorDraft(ERROR_CODES.ABORTED_BEFORE_DISPATCH));
      }
    }
  }
  const composite = enterBody(deps, exec, tool, fused.signal);
  let draft: Draft;
  try {
    const graceMs = deps.abortGraceMs ?? DEFAULT_GRACE_MS;
    // The arguments were checked against this definition just above: its body is called
    // as it is, and a value it returns synchronously is the outcome at once (no promise,
    // no turn, nothing to give up on). A lock, a wrapper's tracking or a journal takes invoke's way.
    const direct = unjournaled && releaseLock === undefined && bodies === undefined ? checkedBody(tool) : undefined;
    let body: Promise<unknown> | undefined;
    let raw: unknown;
    if (direct === undefined) body = tool.invoke(exec.arguments, exec.view);
    else {
      raw = direct(exec.arguments, exec.view);
      if ((typeof raw === 'object' && raw !== null) || typeof raw === 'function') {
        // Read once, as an async function's return reads it.
        const then = (raw as { then?: unknown }).then;
        if (typeof then === 'function') body = followThenable(raw, then as (...args: unknown[]) => unknown);
      }
    }
    if (body !== undefined) {
      bodies?.track(body);
      if (releaseLock !== undefined) {
        // Held until the body itself settles, even when the call is given up on first.
        const release = releaseLock;
        releaseLock = undefined;
        void body.then(release, release).catch(() => {});
      }
      raw = isSelfBounded(tool) ? await body : await untilGivenUp(body, exec.callerSignal, graceMs);
    }
    if (raw === GIVEN_UP) {
      const unsettled = body!;
      if (bodies === undefined) givenUp?.().track(unsettled);
      draft = givenUpDraft(deps, exec, unsettled, graceMs);
    } else {
      draft = returnedDraft(tool, exec, raw, fused.signal);
    }
  } catch (error) {
    draft = threwDraft(error, fused.signal);
  } finally {
    // invoke threw before it returned a promise: nothing runs under the lock.
    if (releaseLock !== undefined) void releaseLock().catch(() => {});
    // Nested calls the body left running are aborted and drained before its outcome moves on.
    const calls = composite();
    if (calls !== undefined) await calls.close();
    exec.setCallTool(undefined);
    fused.dispose();
    exec.setBodySignal(wrapperSignal);
    exec.enterPhase(after);
  }
  return draft;
}

/**
 * dispatchBody for an unjournaled call without a tools/execute wrapper: the same steps,
 * but a body that returns a value (not a thenable) gives its draft synchronously, with no
 * async frame and no turn between the body and the pipeline's next stage. A body that
 * returns a promise continues as dispatchBody would (the same turns); a declared resource
 * lock, or a definition without a checked body, takes dispatchBody itself.
 */
export function dispatchDirect(
  deps: PipelineDeps,
  exec: ExecutionState,
  givenUp?: () => BodyTracker,
): Draft | Promise<Draft> {
  const tool = deps.resolveTool(exec.name, exec.agent);
  const direct =
    tool === undefined || (tool.resourceKey !== undefined && deps.resourceLocks !== undefined)
      ? undefined
      : checkedBody(tool);
  if (tool === undefined || direct === undefined) return dispatchBody(deps, exec, undefined, 'post', givenUp, true);
  const wrapperSignal = exec.signal;
  const fused = fuseSignals(exec.callerSignal, wrapperSignal);
  if (fused.signal.aborted) {
    fused.dispose();
    return refused(exec, 'post', errorDraft(ERROR_CODES.ABORTED_BEFORE_DISPATCH));
  }
  // Invalid input never runs the body, so it is refused before bodyInvoked is set.
  const issues = tool.argIssues(exec.arguments);
  if (issues.length > 0) {
    fused.dispose();
    return refused(exec, 'post', errorDraft(ERROR_CODES.INVALID_ARGS, new ToolArgsError(tool.name, issues).message));
  }
  const composite = enterBody(deps, exec, tool, fused.signal);
  // What dispatchBody's `finally` does once the draft is known (after the composite calls closed).
  const settle = (draft: Draft): Draft => {
    exec.setCallTool(undefined);
    fused.dispose();
    exec.setBodySignal(wrapperSignal);
    exec.enterPhase('post');
    return draft;
  };
  // Undefined only when the body returned a thenable (`body`): its draft comes when it settles.
  let draft: Draft | undefined;
  let body: Promise<unknown> | undefined;
  try {
    const raw = direct(exec.arguments, exec.view);
    if ((typeof raw === 'object' && raw !== null) || typeof raw === 'function') {
      // Read once, as an async function's return reads it.
      const then = (raw as { then?: unknown }).then;
      if (typeof then === 'function') body = followThenable(raw, then as (...args: unknown[]) => unknown);
    }
    if (body === undefined) draft = returnedDraft(tool, exec, raw, fused.signal);
  } catch (error) {
    draft = threwDraft(error, fused.signal);
  }
  if (draft === undefined) return settleDirectBody(deps, exec, tool, body!, fused.signal, givenUp, composite, settle);
  // Nested calls the body left running are aborted and drained before its outcome moves on.
  const calls = composite();
  if (calls !== undefined) {
    const done = draft;
    return calls.close().then(() => settle(done));
  }
  return settle(draft);
}

/** The draft of a body that returned `raw`: an abort (or the loss of its lock) that came meanwhile wins. */
function returnedDraft(tool: Tool, exec: ExecutionState, raw: unknown, signal: AbortSignal): Draft {
  if (!signal.aborted) return successDraft(tool, exec, raw);
  const lost = fenceLostReason(signal);
  return lost === undefined ? errorDraft(ERROR_CODES.ABORTED) : fenceLostDraft(lost);
}

/** The draft of a body that threw `error` (a ToolArgsError is the body refusing its arguments). */
function threwDraft(error: unknown, signal: AbortSignal): Draft {
  const lost = fenceLostReason(signal);
  if (lost !== undefined) return fenceLostDraft(lost);
  return error instanceof ToolArgsError
    ? errorDraft(ERROR_CODES.INVALID_ARGS, error.message)
    : thrownDraft(error, signal.aborted, signal.reason);
}

/** An aborted call whose body ignored the abort for `graceMs`: reported as unsettled, and its draft. */
function givenUpDraft(deps: PipelineDeps, exec: ExecutionState, body: Promise<unknown>, graceMs: number): Draft {
  reportUnsettled(deps.onUnsettled ?? warnUnsettled, {
    callId: exec.callId,
    name: exec.name,
    agent: exec.agent,
    reason: 'aborted',
    timeoutMs: undefined,
    graceMs,
    settled: body.then(noop, noop),
  });
  return errorDraft(
    ERROR_CODES.ABORTED,
    `tool call aborted; its body ignored the abort and was still running ${graceMs} ms later, so the call was given up on (the body may still have side effects)`,
    { bodySettled: false },
  );
}

/**
 * The body starts: its signal, phase, definition and `invoked` mark, and exec.callTool.
 * Returns the body's composite calls (opened on its first exec.callTool only: most bodies
 * never make one), undefined until then.
 */
function enterBody(
  deps: PipelineDeps,
  exec: ExecutionState,
  tool: Tool,
  signal: AbortSignal,
): () => CompositeCalls | undefined {
  exec.setBodySignal(signal);
  exec.enterPhase('body');
  exec.useDefinition(tool);
  exec.markBodyInvoked();
  let composite: CompositeCalls | undefined;
  exec.setCallTool((name, args) =>
    (composite ??= openCompositeCalls(deps.openNestedCalls, exec, signal)).callTool(name, args),
  );
  return () => composite;
}

/** The rest of dispatchDirect for a body that returned a thenable: dispatchBody's steps and turns from its await on. */
async function settleDirectBody(
  deps: PipelineDeps,
  exec: ExecutionState,
  tool: Tool,
  body: Promise<unknown>,
  signal: AbortSignal,
  givenUp: (() => BodyTracker) | undefined,
  composite: () => CompositeCalls | undefined,
  settle: (draft: Draft) => Draft,
): Promise<Draft> {
  let draft: Draft;
  try {
    const graceMs = deps.abortGraceMs ?? DEFAULT_GRACE_MS;
    const raw = isSelfBounded(tool) ? await body : await untilGivenUp(body, exec.callerSignal, graceMs);
    if (raw === GIVEN_UP) {
      givenUp?.().track(body);
      draft = givenUpDraft(deps, exec, body, graceMs);
    } else {
      draft = returnedDraft(tool, exec, raw, signal);
    }
  } catch (error) {
    draft = threwDraft(error, signal);
  }
  const open = composite();
  if (open !== undefined) await open.close();
  return settle(draft);
}

/** A call refused before its body runs: the phase moves on as after a body. */
function refused(exec: ExecutionState, after: 'around' | 'post', draft: Draft): Draft {
  exec.enterPhase(after);
  return draft;
}
