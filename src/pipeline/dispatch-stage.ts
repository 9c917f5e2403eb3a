// Stage: dispatch. The call runs through the scheduler's dispatch gate (a bounded pool)
// and the tools/execute wrappers around its body; a wrapper may return before the body
// settles (a deadline) or return a result of its own (normalized, and never a success
// that hides the caller's abort). projectContent then shapes a successful outcome.
// Contract: startDispatch runs the gate once; its outcome is the draft the wrappers and
// body produced, or the error a wrapper threw. The body itself: body-stage.ts.
import type { Tool } from '../definition/define-tool.ts';
import { ERROR_CODES } from '../errors/error-codes.ts';
import type { JsonValue } from '../json/json-value.ts';
import { checkContent } from './content.ts';
import type { ExecutionState } from './execution-state.ts';
import { waterfall, type ExecuteHandler } from './hooks.ts';
import { errorDraft, normalizeForeignResult, type Draft } from './result-drafts.ts';
import { NEVER_ABORTED } from './never-aborted.ts';
import type { ExecutionGates, PipelineDeps } from './pipeline-deps.ts';
import type { ToolResult } from './tool-result.ts';
import { dispatchBody, dispatchDirect } from './body-stage.ts';
import { BodyTracker } from './body-give-up.ts';

/** How the dispatch ended: the body's (or a wrapper's) draft, or a wrapper's throw. */
export type Dispatched = { readonly draft: Draft } | { readonly pipelineError: unknown };

/**
 * Starts the call's dispatch through the scheduler's `runDispatch` gate (or at once).
 * `ran` is what to wait for (undefined: it finished synchronously, nothing to await);
 * `outcome()` is then how it ended, undefined if the gate never called `dispatch`.
 * A throw out of runDispatch is the scheduler's own failure: it propagates.
 */
export function startDispatch(
  deps: PipelineDeps,
  exec: ExecutionState,
  gates: ExecutionGates,
): { readonly ran: Promise<void> | undefined; outcome(): Dispatched | undefined } {
  let dispatched: Dispatched | undefined;
  // Made only where a give-up can happen (a wrapper, or a caller signal that can abort).
  let bodies: BodyTracker | undefined;
  const tracker = gates.onBodyOutlived === undefined ? undefined : () => (bodies ??= new BodyTracker());
  // A journaled call keeps invoke's turns: its records interleave with the turn's other
  // calls in the order they always had.
  const unjournaled = gates.recordCall === undefined && gates.recordResult === undefined;
  const dispatchDone = (outcome: Dispatched): undefined => {
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
  const ran = gates.runDispatch === undefined ? dispatch() : gates.runDispatch(dispatch);
  return { ran, outcome: () => dispatched };
}

/** The definition's `projectContent` applied to a successful draft (a throw propagates). */
export function projectedContent(exec: ExecutionState, draft: Draft, projectContent: Tool['projectContent']): Draft {
  if (draft.isError || projectContent === undefined) return draft;
  return {
    ...draft,
    content: checkContent(projectContent(exec.arguments, draft.value as JsonValue, draft.content), 'projectContent'),
  };
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
