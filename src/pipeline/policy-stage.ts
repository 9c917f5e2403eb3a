// Stage: policy and approval. tools/pre-execute handlers decide (allow, deny, cancel or
// ask), an `ask` goes to the approval service (or pauses a durable run), then every guard
// of the agent may deny, and an abort that came meanwhile is rechecked.
// Contract: `policy(deps, exec)` gives a draft when the call must not dispatch (its final
// outcome), undefined when it may; synchronous unless a handler or guard runs. A handler
// that throws rejects it (the driver makes that a pipeline error of tools/pre-execute).
import { ERROR_CODES } from '../errors/error-codes.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { ApprovalRequestInput, PreDecision } from './decisions.ts';
import { allow } from './decisions.ts';
import type { ExecutionState } from './execution-state.ts';
import { waterfall, type PreExecuteHandler } from './hooks.ts';
import { errorDraft, type Draft } from './result-drafts.ts';
import { describeThrown } from './thrown.ts';
import type { PipelineDeps } from './pipeline-deps.ts';

const ALLOW = allow();

export interface PolicyOptions {
  /** A preview: an `ask` is not put to anyone (the commit asks); denials and guards apply. */
  readonly skipAsk?: boolean;
}

/**
 * Returns a draft when the call must not dispatch, undefined to dispatch; a promise of
 * that only when a pre-execute handler or a guard runs (most calls have neither, and an
 * async stage costs an async frame and a few promises per call).
 */
export function policy(
  deps: PipelineDeps,
  exec: ExecutionState,
  options: PolicyOptions = {},
): Draft | undefined | Promise<Draft | undefined> {
  // A human denied this call when its paused run was resumed: denied whatever the hooks say now.
  if (deps.pauseGates?.decision(exec.parent, exec.callId) === 'deny')
    return errorDraft(ERROR_CODES.DENIED, `a human denied tool "${exec.name}" when the paused run was resumed`, {
      reason: 'denied-on-resume',
    });
  const handlers = deps.hooks.list('tools/pre-execute');
  // No handlers: the waterfall would only return allow(), so it is not built.
  if (handlers.length > 0) return policyWithHandlers(deps, exec, handlers, options);
  if (deps.registry.guardsFor(exec.agent).length > 0) return decide(deps, exec, ALLOW, options);
  return exec.callerSignal.aborted ? errorDraft(ERROR_CODES.ABORTED_BEFORE_DISPATCH) : undefined;
}

async function policyWithHandlers(
  deps: PipelineDeps,
  exec: ExecutionState,
  handlers: readonly PreExecuteHandler[],
  options: PolicyOptions,
): Promise<Draft | undefined> {
  const decision = await waterfall(
    handlers,
    (h, next: () => Promise<PreDecision>) => h(exec.view, next),
    async () => allow(),
  );
  return decide(deps, exec, decision, options);
}

/** The pre-execute decision, then approval and the guards. */
async function decide(
  deps: PipelineDeps,
  exec: ExecutionState,
  decision: unknown,
  options: PolicyOptions,
): Promise<Draft | undefined> {
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
      if (options.skipAsk === true) break;
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
