// One execution, stage by stage, in this order:
//   create (snapshot + token) → write-ahead record → entry checks → tools/pre-execute → approval → guards
//   + cancellation recheck → tools/execute (around dispatch) → body, output, render
//   → projectContent → tools/post-execute → finish (finalizeContent, materialize,
//   freeze exec, tools/result observers).
// Pipeline throws in create/pre/around skip post-execute and go straight to finish.
import { checkedBody } from '../definition/checked-body.ts';
import type { Tool } from '../definition/define-tool.ts';
import { ERROR_CODES } from '../errors/error-codes.ts';
import { ToolArgsError } from '../errors/tool-args-error.ts';
import { trySnapshotJson, type JsonValue } from '../json/json-value.ts';
import { checkCallIdLength } from './call-id-bound.ts';
import { DEFAULT_MAX_CALL_DEPTH } from './call-depth.ts';
import { openCompositeCalls, type CompositeCalls } from './composite-calls.ts';
import type { ApprovalRequestInput, PostDecision, PreDecision } from './decisions.ts';
import { markContentReplaced } from './content-replaced.ts';
import { accept, allow } from './decisions.ts';
import { checkContent, checkContexts } from './content.ts';
import { ExecutionState } from './execution-state.ts';
import { waterfall, type ExecuteHandler, type PreExecuteHandler } from './hooks.ts';
import {
  errorDraft,
  materialize,
  normalizeForeignResult,
  pipelineErrorDraft,
  successDraft,
  thrownDraft,
  type Draft,
} from './result-drafts.ts';
import { NEVER_ABORTED } from './never-aborted.ts';
import { fuseSignals } from './signal-fusion.ts';
import type { ReleaseLock, ResourceLocks } from './resource-locks.ts';
import { hasSnapshotArguments } from './snapshot-request.ts';
import { describeThrown } from './thrown.ts';
import type { NestedExecuteRequest } from './execute-request.ts';
import type { ExecutionGates, PipelineDeps, ResourceWait } from './pipeline-deps.ts';
import type { ToolExecution } from './tool-execution.ts';
import type { ContextMessage, ToolResult } from './tool-result.ts';
import { DEFAULT_GRACE_MS, isSelfBounded, reportUnsettled, warnUnsettled } from './unsettled-body.ts';

export type { ExecuteRequest, NestedExecuteRequest } from './execute-request.ts';
export type {
  ApprovalAnswer,
  ApprovalRequest,
  ApprovalService,
  ExecutionGates,
  ExecutionTracer,
  PipelineDeps,
  ResourceWait,
} from './pipeline-deps.ts';

export function executeTool(
  deps: PipelineDeps,
  request: NestedExecuteRequest,
  gates: ExecutionGates = {},
): Promise<ToolResult> {
  const { tracer } = deps;
  if (tracer === undefined) return runExecution(deps, request, gates);
  return tracer.trace(request, (created) => runExecution(deps, request, gates, created));
}

async function runExecution(
  deps: PipelineDeps,
  request: NestedExecuteRequest,
  gates: ExecutionGates,
  created?: (exec: ToolExecution) => void,
): Promise<ToolResult> {
  // ---- create ----
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
  // Captured before the arguments are read: a getter on them cannot swap these.
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
  });
  created?.(exec.view);

  let policyReported = false;
  const policyDone = (): void => {
    if (!policyReported) {
      policyReported = true;
      gates.onPolicyDone?.();
    }
  };
  let committed = false;
  // The scheduler's commit order, waited for once (nothing to await without a scheduler).
  const commitTurn = (): Promise<void> | undefined => {
    if (committed) return undefined;
    committed = true;
    return gates.beforeCommit?.();
  };
  const finalResult = async (draft: Draft): Promise<ToolResult> => {
    policyDone();
    await commitTurn();
    return finish(deps, exec, draft, exec.deferredContexts, finalizeContent, gates.recordResult);
  };

  // ---- write-ahead: the call is durable before anything of it runs ----
  if (gates.recordCall !== undefined) {
    await gates.recordCall({
      callId,
      name,
      agent,
      arguments: exec.arguments,
      rootCallId: exec.rootCallId,
      parentCallId: exec.parentCallId,
    });
  }

  // ---- entry checks: final results, no policy ----
  if (!snapshot.ok) {
    return finalResult(
      errorDraft(ERROR_CODES.INVALID_ARGS, `invalid arguments for tool "${name}": ${snapshot.error.message}`),
    );
  }
  if (signal.aborted) return finalResult(errorDraft(ERROR_CODES.ABORTED_BEFORE_DISPATCH));
  const maxDepth = deps.maxCallDepth ?? DEFAULT_MAX_CALL_DEPTH;
  if (exec.depth > maxDepth) {
    return finalResult(
      errorDraft(
        ERROR_CODES.NESTING_TOO_DEEP,
        `call of "${name}" is nested ${exec.depth} calls deep, beyond the limit of ${maxDepth} (createToolRuntime({ maxCallDepth })); a composite tool may be calling itself`,
        { depth: exec.depth, maxCallDepth: maxDepth },
      ),
    );
  }
  if (request.callerRefusal !== undefined) {
    return finalResult(errorDraft(ERROR_CODES.DENIED, request.callerRefusal, { caller: exec.caller }));
  }
  if (request.parent === undefined) {
    const refusal = deps.directCallRefusal(name, agent);
    if (refusal !== undefined) return finalResult(errorDraft(ERROR_CODES.UNKNOWN_TOOL, refusal));
  }

  // ---- pre-execute, approval, guards, recheck ----
  let draft: Draft | undefined;
  try {
    const decided = policy(deps, exec);
    draft = decided instanceof Promise ? await decided : decided;
  } catch (error) {
    return finalResult(pipelineErrorDraft('tools/pre-execute', error));
  }
  policyDone();

  // ---- around dispatch + body ----
  if (draft === undefined) {
    let dispatched: { draft: Draft } | { pipelineError: unknown } | undefined;
    // Made only where a give-up can happen (a wrapper, or a caller signal that can abort).
    let bodies: BodyTracker | undefined;
    const tracker = gates.onBodyOutlived === undefined ? undefined : () => (bodies ??= new BodyTracker());
    // A journaled call keeps invoke's turns: its records interleave with the turn's other
    // calls in the order they always had.
    const unjournaled = gates.recordCall === undefined && gates.recordResult === undefined;
    const dispatchDone = (outcome: { draft: Draft } | { pipelineError: unknown }): undefined => {
      dispatched = outcome;
      if (bodies?.running === true) gates.onBodyOutlived!(bodies.settled());
      return undefined;
    };
    // Synchronous when the body's draft is (a body that returned a value): no turn, no promise.
    const dispatch = (): Promise<void> | undefined => {
      if (dispatched !== undefined) return Promise.reject(new Error('runDispatch called dispatch twice'));
      let running: Draft | Promise<Draft>;
      try {
        running = aroundDispatch(deps, exec, tracker, unjournaled);
      } catch (error) {
        return dispatchDone({ pipelineError: error });
      }
      if (!(running instanceof Promise)) return dispatchDone({ draft: running });
      return running.then(
        (draft) => dispatchDone({ draft }),
        (error: unknown) => dispatchDone({ pipelineError: error }),
      );
    };
    // A throw out of runDispatch is the scheduler's own failure: it propagates.
    const ran = gates.runDispatch === undefined ? dispatch() : gates.runDispatch(dispatch);
    if (ran !== undefined) await ran;
    if (dispatched === undefined) throw new Error(`scheduler did not dispatch call "${callId}"`);
    if ('pipelineError' in dispatched)
      return finalResult(pipelineErrorDraft('tools/execute', dispatched.pipelineError));
    draft = dispatched.draft;
    if (!draft.isError && projectContent !== undefined) {
      try {
        draft = {
          ...draft,
          content: checkContent(
            projectContent(exec.arguments, draft.value as JsonValue, draft.content),
            'projectContent',
          ),
        };
      } catch (error) {
        return finalResult(pipelineErrorDraft('projectContent', error));
      }
    }
  }

  // ---- post-execute ----
  const order = commitTurn();
  if (order !== undefined) await order;
  exec.enterPhase('post');
  let contexts: readonly ContextMessage[];
  try {
    // No handlers: accept() with no changes, so the outcome they would see is never built.
    if (deps.hooks.list('tools/post-execute').length === 0) contexts = exec.deferredContexts;
    else ({ draft, contexts } = await postExecute(deps, exec, draft));
  } catch (error) {
    return finish(
      deps,
      exec,
      pipelineErrorDraft('tools/post-execute', error),
      exec.deferredContexts,
      finalizeContent,
      gates.recordResult,
    );
  }
  return finish(deps, exec, draft, contexts, finalizeContent, gates.recordResult);
}

const ALLOW = allow();

/**
 * The idempotency key of a call outside a durable run: `call:<callId>`. A durable run's
 * nested calls get `run:<runId>:<n>`: the two prefixes keep the sets apart, so no callId
 * can produce another call's key.
 */
export function callIdempotencyKey(callId: string): string {
  return `call:${callId}`;
}

/**
 * Returns a draft when the call must not dispatch, undefined to dispatch; a promise of
 * that only when a pre-execute handler or a guard runs (most calls have neither, and an
 * async stage costs an async frame and a few promises per call).
 */
function policy(deps: PipelineDeps, exec: ExecutionState): Draft | undefined | Promise<Draft | undefined> {
  // A human denied this call when its paused run was resumed: denied whatever the hooks say now.
  if (deps.pauseGates?.decision(exec.parent, exec.callId) === 'deny')
    return errorDraft(ERROR_CODES.DENIED, `a human denied tool "${exec.name}" when the paused run was resumed`, {
      reason: 'denied-on-resume',
    });
  const handlers = deps.hooks.list('tools/pre-execute');
  // No handlers: the waterfall would only return allow(), so it is not built.
  if (handlers.length > 0) return policyWithHandlers(deps, exec, handlers);
  if (deps.registry.guardsFor(exec.agent).length > 0) return decide(deps, exec, ALLOW);
  return exec.callerSignal.aborted ? errorDraft(ERROR_CODES.ABORTED_BEFORE_DISPATCH) : undefined;
}

async function policyWithHandlers(
  deps: PipelineDeps,
  exec: ExecutionState,
  handlers: readonly PreExecuteHandler[],
): Promise<Draft | undefined> {
  const decision = await waterfall(
    handlers,
    (h, next: () => Promise<PreDecision>) => h(exec.view, next),
    async () => allow(),
  );
  return decide(deps, exec, decision);
}

/** The pre-execute decision, then approval and the guards. */
async function decide(deps: PipelineDeps, exec: ExecutionState, decision: unknown): Promise<Draft | undefined> {
  const kind = (decision as { kind?: unknown } | null)?.kind;
  switch (kind) {
    case 'deny': {
      const d = decision as Extract<PreDecision, { kind: 'deny' }>;
      return errorDraft(ERROR_CODES.DENIED, String(d.reason), d.info);
    }
    case 'cancel': {
      const d = decision as Extract<PreDecision, { kind: 'cancel' }>;
      return errorDraft(ERROR_CODES.CANCELLED, d.reason ?? 'tool call cancelled');
    }
    case 'ask': {
      const refused = await approve(deps, exec, (decision as Extract<PreDecision, { kind: 'ask' }>).request);
      if (refused !== undefined) return refused;
      break;
    }
    case 'allow':
      break;
    default:
      throw new TypeError(
        `a pre-execute handler returned ${JSON.stringify(decision)}; return allow(), deny(reason), cancel() or ask()`,
      );
  }
  // Guards are monotonic: any one can deny, none can undo another's denial.
  for (const guard of deps.registry.guardsFor(exec.agent)) {
    let verdict: unknown;
    try {
      verdict = await guard(exec.view);
    } catch (error) {
      return errorDraft(ERROR_CODES.DENIED, `a guard failed, so the call is denied: ${describeThrown(error).message}`, {
        guardError: true,
      });
    }
    if (verdict === undefined) continue;
    const reason = (verdict as { deny?: unknown } | null)?.deny;
    if (typeof reason === 'string')
      return errorDraft(ERROR_CODES.DENIED, reason, (verdict as { info?: { [k: string]: JsonValue } }).info);
    return errorDraft(ERROR_CODES.DENIED, 'a guard returned neither undefined nor { deny: reason }; denied', {
      guardError: true,
    });
  }
  // An abort during approval or guards is rechecked before dispatch.
  if (exec.callerSignal.aborted) return errorDraft(ERROR_CODES.ABORTED_BEFORE_DISPATCH);
  return undefined;
}

async function approve(
  deps: PipelineDeps,
  exec: ExecutionState,
  input: ApprovalRequestInput,
): Promise<Draft | undefined> {
  const unavailable = (reason: string, message: string): Draft =>
    errorDraft(ERROR_CODES.APPROVAL_UNAVAILABLE, `approval required but ${message}; the call was not approved`, {
      reason,
    });
  const failed = (error: unknown): Draft =>
    unavailable('approval-error', `the approval service failed (${describeThrown(error).message})`);
  // A human already approved this call (the run was paused on it and resumed).
  if (deps.pauseGates?.decision(exec.parent, exec.callId) === 'approve') return undefined;
  const service = deps.approval;
  if (service === undefined)
    return unavailable('no-approval-service', 'no approval service is configured (createToolRuntime({ approval }))');
  let routable: boolean;
  try {
    routable = service.canRoute === undefined || service.canRoute(exec.agent) === true;
  } catch (error) {
    return failed(error);
  }
  if (!routable)
    return unavailable('no-agent-routing', `no approval route exists for agent ${JSON.stringify(exec.agent ?? null)}`);
  if (exec.callerSignal.aborted) return errorDraft(ERROR_CODES.ABORTED_BEFORE_DISPATCH); // nobody to ask for
  let answer: unknown;
  try {
    const request = service.request({
      callId: exec.callId,
      name: exec.name,
      agent: exec.agent,
      arguments: exec.arguments,
      title: input.title ?? `Allow tool "${exec.name}" to run?`,
      ...(input.detail === undefined ? {} : { detail: input.detail }),
      signal: exec.callerSignal,
    });
    // The caller's abort ends the wait even if the service never answers.
    answer = await untilAborted(Promise.resolve(request), exec.callerSignal);
  } catch (error) {
    if (exec.callerSignal.aborted) return errorDraft(ERROR_CODES.ABORTED_BEFORE_DISPATCH);
    return failed(error);
  }
  // An abort during approval wins over whatever the service answered.
  if (exec.callerSignal.aborted) return errorDraft(ERROR_CODES.ABORTED_BEFORE_DISPATCH);
  switch (answer) {
    case 'allowed-once':
      return undefined;
    case 'rejected':
      return errorDraft(ERROR_CODES.APPROVAL_REJECTED, `the user rejected tool "${exec.name}"`);
    case 'cancelled':
      return errorDraft(ERROR_CODES.CANCELLED, 'the user cancelled the approval request', { reason: 'user-cancelled' });
    case 'unavailable':
      return unavailable('channel-unavailable', 'the approval channel is unavailable');
    case 'pause': {
      const refusal = deps.pauseGates === undefined ? PAUSE_NEEDS_JOURNAL : deps.pauseGates.refusal(exec.parent);
      if (refusal !== undefined)
        return unavailable('cannot-pause', `the approval service answered 'pause', but ${refusal}`);
      const title = input.title ?? `Allow tool "${exec.name}" to run?`;
      return errorDraft(ERROR_CODES.PAUSED, `tool "${exec.name}" awaits a human's approval: the run pauses`, { title });
    }
    default:
      return unavailable('invalid-answer', `the approval service answered ${JSON.stringify(answer)}`);
  }
}

const PAUSE_NEEDS_JOURNAL =
  'a run can pause only on a runtime with a journal (createToolRuntime({ journal: path or store }))';

const ABORTED_WAIT: unique symbol = Symbol('aborted');

/** Settles like `promise`, or with ABORTED_WAIT as soon as `signal` aborts (the listener is removed either way). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED_WAIT> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(ABORTED_WAIT);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function aroundDispatch(
  deps: PipelineDeps,
  exec: ExecutionState,
  tracker: (() => BodyTracker) | undefined,
  unjournaled: boolean,
): Draft | Promise<Draft> {
  exec.enterPhase('around');
  const handlers = deps.hooks.list('tools/execute', exec.view);
  if (handlers.length === 0) {
    // No wrapper: the body's draft is the outcome, with no result object built for one to see.
    // Without a wrapper only the caller's abort can give the body up, and the body is
    // tracked from that moment (the grace ran out) rather than from its start.
    const givenUp = exec.callerSignal === NEVER_ABORTED ? undefined : tracker;
    return unjournaled
      ? dispatchDirect(deps, exec, givenUp)
      : dispatchBody(deps, exec, undefined, 'post', givenUp, false);
  }
  return aroundWrappers(deps, exec, handlers, tracker);
}

async function aroundWrappers(
  deps: PipelineDeps,
  exec: ExecutionState,
  handlers: readonly ExecuteHandler[],
  tracker?: () => BodyTracker,
): Promise<Draft> {
  // The result the body produced for this execution; anything else a wrapper returns is foreign.
  let canonical: ToolResult | undefined;
  const result = await waterfall(
    handlers,
    (h, next: () => Promise<ToolResult>) => h(exec.view, next),
    async () => {
      // A wrapper may return before the body settles (a deadline): the dispatch is tracked too.
      const bodies = tracker?.();
      const run = dispatchBody(deps, exec, bodies, 'around');
      bodies?.track(run);
      return (canonical = canonicalResult(exec, await run));
    },
  );
  exec.enterPhase('post');
  if (canonical !== undefined && result === canonical) return draftOf(result);
  const draft = normalizeForeignResult(deps.resolveTool(exec.name, exec.agent), exec, result);
  // A wrapper's own "success" cannot hide the caller's cancellation.
  if (!draft.isError && exec.callerSignal.aborted) {
    return errorDraft(exec.bodyInvoked ? ERROR_CODES.ABORTED : ERROR_CODES.ABORTED_BEFORE_DISPATCH);
  }
  return draft;
}

/** What tools/execute wrappers receive from `next()`: the body's outcome, frozen. */
function canonicalResult(exec: ExecutionState, draft: Draft): ToolResult {
  return Object.freeze({
    callId: exec.callId,
    name: exec.name,
    isError: draft.isError,
    content: draft.content,
    ...(draft.isError ? { error: draft.error! } : { value: draft.value as JsonValue }),
    ...(draft.presentationMeta === undefined ? {} : { presentationMeta: draft.presentationMeta }),
  });
}

function draftOf(result: ToolResult): Draft {
  return result.isError
    ? { isError: true, content: result.content, ...(result.error === undefined ? {} : { error: result.error }) }
    : {
        isError: false,
        value: result.value as JsonValue,
        content: result.content,
        ...(result.presentationMeta === undefined ? {} : { presentationMeta: result.presentationMeta }),
      };
}

/**
 * The default end of the tools/execute waterfall: resolve again, fuse signals, run the
 * body; then the phase is `after` (back to `around` inside a wrapper, `post` without one).
 * `bodies` tracks the body from its start; `givenUp` gives the tracker for a body that is
 * given up on while it still runs.
 */
async function dispatchBody(
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
  const fused = fuseSignals(exec.callerSignal, wrapperSignal);
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
function dispatchDirect(deps: PipelineDeps, exec: ExecutionState, givenUp?: () => BodyTracker): Draft | Promise<Draft> {
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

/** The draft of a body that returned `raw`: an abort that came meanwhile wins. */
function returnedDraft(tool: Tool, exec: ExecutionState, raw: unknown, signal: AbortSignal): Draft {
  return signal.aborted ? errorDraft(ERROR_CODES.ABORTED) : successDraft(tool, exec, raw);
}

/** The draft of a body that threw `error` (a ToolArgsError is the body refusing its arguments). */
function threwDraft(error: unknown, signal: AbortSignal): Draft {
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

/** Waits for the call's resource lock; a draft instead when the call must not run. */
async function lockResource(
  deps: PipelineDeps,
  locks: ResourceLocks,
  exec: ExecutionState,
  resourceKey: (args: JsonValue) => string,
  signal: AbortSignal,
): Promise<{ release: ReleaseLock } | { draft: Draft }> {
  let key: unknown;
  try {
    key = resourceKey(exec.arguments);
  } catch (error) {
    return { draft: pipelineErrorDraft('resourceKey', error) };
  }
  if (typeof key !== 'string' || key.length === 0)
    return {
      draft: pipelineErrorDraft(
        'resourceKey',
        new TypeError(`resourceKey returned ${JSON.stringify(key)}, not a non-empty string`),
      ),
    };
  const report = (state: ResourceWait['state'], waitedMs: number): void => {
    try {
      deps.onResourceWait?.(exec.view, { key, state, waitedMs, shared: locks.shared });
      deps.tracer?.event?.(exec.token, 'ptc.resource_lock', {
        'ptc.resource_lock.key': key,
        'ptc.resource_lock.state': state,
        'ptc.resource_lock.wait_ms': waitedMs,
        'ptc.resource_lock.shared': locks.shared,
      });
    } catch {
      // Observers only.
    }
  };
  const started = performance.now();
  report('waiting', 0);
  try {
    const release = await locks.acquire(key, signal);
    report('acquired', performance.now() - started);
    return { release };
  } catch (error) {
    const waited = performance.now() - started;
    if (signal.aborted) {
      report('aborted', waited);
      return { draft: errorDraft(ERROR_CODES.ABORTED_BEFORE_DISPATCH) };
    }
    report('failed', waited);
    return {
      draft: errorDraft(
        ERROR_CODES.SCHEDULER_FAILURE,
        `the lock on resource ${JSON.stringify(key)} could not be taken: ${describeThrown(error).message}`,
        { dispatched: false, resourceKey: key },
      ),
    };
  }
}

/** The body of one call (and the dispatch around it): whether any still runs once its call was given up on. */
class BodyTracker {
  #running = 0;
  readonly #all: Promise<unknown>[] = [];
  track<T>(promise: Promise<T>): Promise<T> {
    this.#running += 1;
    const done = (): void => {
      this.#running -= 1;
    };
    promise.then(done, done);
    this.#all.push(promise);
    return promise;
  }
  get running(): boolean {
    return this.#running > 0;
  }
  settled(): Promise<void> {
    return Promise.allSettled(this.#all).then(noop);
  }
}

const GIVEN_UP: unique symbol = Symbol('given up');
const promiseThen = Promise.prototype.then;

/** A thenable a body returned, followed as an async function's return follows it. */
function followThenable(value: object, then: (...args: unknown[]) => unknown): Promise<unknown> {
  if (value instanceof Promise && then === promiseThen) return value;
  return new Promise((resolve, reject) => {
    queueMicrotask(() => {
      try {
        Reflect.apply(then, value, [resolve, reject]);
      } catch (error) {
        reject(error);
      }
    });
  });
}
const noop = (): void => {};

/**
 * Settles like `body`, or with GIVEN_UP when `signal` aborted `graceMs` ago and the body
 * still has not settled: a body that ignores its signal cannot hold its caller (a
 * cancelled turn, an ended run_code run) without bound.
 */
function untilGivenUp<T>(body: Promise<T>, signal: AbortSignal, graceMs: number): Promise<T | typeof GIVEN_UP> {
  if (signal === NEVER_ABORTED) return body;
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = (): void => {
      timer = setTimeout(() => resolve(GIVEN_UP), graceMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const done = (): void => {
      signal.removeEventListener('abort', onAbort);
      clearTimeout(timer);
    };
    body.then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}

async function postExecute(
  deps: PipelineDeps,
  exec: ExecutionState,
  draft: Draft,
): Promise<{ draft: Draft; contexts: readonly ContextMessage[] }> {
  const handlers = deps.hooks.list('tools/post-execute');
  // No handlers: accept() with no changes, so the outcome they would see is never built.
  if (handlers.length === 0) return { draft, contexts: [...exec.deferredContexts] };
  const outcome = materialize(exec, draft, exec.deferredContexts, exec.concluded);
  const decision = await waterfall(
    handlers,
    (h, next: () => Promise<PostDecision>) => h(exec.view, outcome, next),
    async () => accept(),
  );
  const kind = (decision as { kind?: unknown } | null)?.kind;
  if (kind === 'block') {
    const d = decision as Extract<PostDecision, { kind: 'block' }>;
    // Body-deferred contexts are dropped; only the decision's own contexts remain.
    return {
      draft: errorDraft(ERROR_CODES.BLOCKED, String(d.feedback)),
      contexts: checkContexts(d.additionalContexts, 'block(..., { additionalContexts })'),
    };
  }
  if (kind !== 'accept')
    throw new TypeError(
      `a post-execute handler returned ${JSON.stringify(decision)}; return accept(...) or block(feedback)`,
    );
  const { changes } = decision as Extract<PostDecision, { kind: 'accept' }>;
  const hasValue = changes.value !== undefined;
  const hasContent = changes.content !== undefined;
  if (hasValue && hasContent) throw new TypeError('accept() may replace value or content, not both');
  if (hasValue && draft.isError) throw new TypeError('accept({ value }) cannot give a failed call a value');
  let next = draft;
  if (hasValue) {
    // Validated and rendered by the definition whose body produced the outcome, not by
    // whatever is registered under the name by now.
    const tool = exec.definition ?? deps.resolveTool(exec.name, exec.agent);
    next =
      tool === undefined
        ? errorDraft(ERROR_CODES.UNKNOWN_TOOL, `unknown tool "${exec.name}"`)
        : successDraft(tool, exec, changes.value);
  } else if (hasContent) {
    next = { ...draft, content: checkContent(changes.content, 'accept({ content })'), contentReplaced: true };
  }
  return {
    draft: next,
    contexts: [
      ...exec.deferredContexts,
      ...checkContexts(changes.additionalContexts, 'accept({ additionalContexts })'),
    ],
  };
}

function finish(
  deps: PipelineDeps,
  exec: ExecutionState,
  draft: Draft,
  contexts: readonly ContextMessage[],
  finalizeContent: Tool['finalizeContent'],
  recordResult: ((result: ToolResult) => Promise<void>) | undefined,
): ToolResult | Promise<ToolResult> {
  let result = materialize(exec, draft, contexts, exec.concluded);
  if (finalizeContent !== undefined) {
    try {
      const content = checkContent(finalizeContent(result.content, result), 'finalizeContent');
      result = materialize(exec, { ...draft, content }, contexts, exec.concluded);
    } catch (error) {
      // finalizeContent must be total; if it throws anyway, the outcome is still materialized.
      result = materialize(exec, pipelineErrorDraft('finalizeContent', error), contexts, false);
    }
  }
  if (draft.contentReplaced === true && !result.isError) markContentReplaced(result);
  exec.finish();
  // Nothing to wait for: the result is final now.
  if (recordResult === undefined && deps.hooks.list('tools/result').length === 0) return result;
  return tellResult(deps, exec, result, recordResult);
}

async function tellResult(
  deps: PipelineDeps,
  exec: ExecutionState,
  result: ToolResult,
  recordResult: ((result: ToolResult) => Promise<void>) | undefined,
): Promise<ToolResult> {
  // Durable before anyone is told: an observer never sees a result the journal lacks.
  if (recordResult !== undefined) await recordResult(result);
  for (const observer of deps.hooks.list('tools/result')) {
    try {
      await observer(result, exec.view);
    } catch {
      // Observers are contained: they cannot change the outcome.
    }
  }
  return result;
}
