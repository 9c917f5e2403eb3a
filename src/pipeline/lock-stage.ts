// Stage: the resource lock. A tool that declares `resourceKey` runs its body only while
// it holds the lock on that key (in this process, or across hosts with the PostgreSQL
// store); waiting is reported to run events and the execution's span.
// Contract: `lockResource` resolves with the release to call when the body settles (and
// the lock's fence, when the store fences it), or with the draft of a call that must not
// run (a bad key, an abort while waiting, a lock that could not be taken); it never rejects.
import { ERROR_CODES } from '../errors/error-codes.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { ExecutionState } from './execution-state.ts';
import type { Fence, FenceLostError } from './fence.ts';
import { errorDraft, pipelineErrorDraft, type Draft } from './result-drafts.ts';
import type { ReleaseLock, ResourceLocks } from './resource-locks.ts';
import { fuseSignals, type FusedSignal } from './signal-fusion.ts';
import { describeThrown } from './thrown.ts';
import type { PipelineDeps, ResourceWait } from './pipeline-deps.ts';

/** Waits for the call's resource lock; a draft instead when the call must not run. */
export async function lockResource(
  deps: PipelineDeps,
  locks: ResourceLocks,
  exec: ExecutionState,
  resourceKey: (args: JsonValue) => string,
  signal: AbortSignal,
): Promise<{ release: ReleaseLock; fence: Fence | undefined } | { draft: Draft }> {
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
    return { release, fence: release.fence };
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

/**
 * The body's signal under a fenced lock: the lock's loss aborts it too, and the body sees
 * the lock's token as `exec.fencingToken`.
 */
export function fenceBody(fused: FusedSignal, fence: Fence, exec: ExecutionState): FusedSignal {
  exec.setFencingToken(fence.token);
  const inner = fuseSignals(fused.signal, fence.signal);
  return {
    signal: inner.signal,
    dispose: () => {
      inner.dispose();
      fused.dispose();
    },
  };
}

/** The draft of a body whose lock or claim was lost while it ran: not its result, which the lock no longer covered. */
export function fenceLostDraft(lost: FenceLostError): Draft {
  return errorDraft(
    ERROR_CODES.ABORTED,
    `${lost.message}; the call's result was not kept, since another holder may have run meanwhile`,
    { fenceLost: lost.held, fencingToken: lost.token },
  );
}
