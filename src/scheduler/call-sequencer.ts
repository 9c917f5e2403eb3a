// The streaming call sequencer: calls are submitted one at
// a time, in model (or program) order, and run through the full pipeline with
// these rules:
//   - a call starts (pre-policy) only after the previous call's policy is done, and
//     after the previous call committed if that one is exclusive;
//   - when it starts it is classified with the latest visible definition: parallel
//     only if `isConcurrencySafe(args)` is exactly true, else exclusive;
//   - parallel bodies share a bounded p-queue pool; an exclusive body waits for every
//     earlier call to commit, and later calls wait for it to commit;
//   - post-policy, finish (observers) and the commit (journal, result) follow
//     submission order, while bodies overlap.
// With a journal, each call's `tool/call` event is durable before its policy runs
// (write-ahead) and its `tool/result` event before observers see it (the commit).
// On abort nothing new starts: unstarted calls still go through the pipeline, which
// gives them ABORTED_BEFORE_DISPATCH (observers included), and started calls drain.
// An internal failure (a journal that cannot be written) stops dispatch and waits for
// started work; every call that had not committed then resolves with a structured
// SCHEDULER_FAILURE result (not journaled, not observed; `info.dispatched` says
// whether its body may have run). Nothing is retried and nothing else is invented.
// executeTurn uses it for one model message; run_code and composite tools reuse it
// for nested calls.
// A call given up on while its body still runs (its deadline or its caller's abort)
// commits its result, but keeps its slot until the body settles: a later exclusive
// call, and any call after an exclusive one, starts only then — bounded by
// `holdAfterGiveUpMs`, after which the sequence stops (given-up-hold.ts).
// Nothing of a call is kept once it has committed: a run of many calls with large
// arguments or results holds only the calls still in flight.
import PQueue from 'p-queue';
import { NEVER_ABORTED } from '../pipeline/never-aborted.ts';
import { trySnapshotJson, type JsonValue } from '../json/json-value.ts';
import { executeTool } from '../pipeline/execute-tool.ts';
import type { NestedExecuteRequest } from '../pipeline/execute-request.ts';
import type { ExecutionGates, PipelineDeps } from '../pipeline/pipeline-deps.ts';
import { checkCallIdLength } from '../pipeline/call-id-bound.ts';
import { hasSnapshotArguments, snapshotRequest } from '../pipeline/snapshot-request.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import type { AgentRef } from '../registry/tool-registry.ts';
import { classifyCall, type CallMode } from './classify-call.ts';
import { checkHoldAfterGiveUpMs, holdExpiredError, holdGivenUpBody, type GivenUpHold } from './given-up-hold.ts';
import { checkConcurrency } from './concurrency-limit.ts';
import { deferred, type Deferred } from './deferred.ts';
import type { Journal } from '../journal/journal.ts';
import { journalGates, type JournalGates } from './journal-gates.ts';
import { SchedulerError, SCHEDULER_ERROR_CODES, schedulerFailureResult } from './scheduler-error.ts';

export interface CallSequencerOptions {
  /** Agent of the submitted calls (a request's own `agent` wins). Default: the global scope. */
  readonly agent?: AgentRef;
  /** Cancels the whole sequence: nothing new starts, started calls drain, unstarted ones get ABORTED_BEFORE_DISPATCH. */
  readonly signal?: AbortSignal;
  /**
   * How many concurrency-safe calls may run their around-dispatch + body at once.
   * @default 8
   */
  readonly concurrency?: number;
  /** Each call is appended (durably) before its policy runs, and its result before observers see it. */
  readonly journal?: Journal;
  /**
   * How long later calls wait for the body of a call that was given up on; then the
   * sequence stops (SCHEDULER_FAILURE for the calls not started). Default: the deps' own,
   * else 30 s.
   */
  readonly holdAfterGiveUpMs?: number;
  /**
   * The caller makes every callId new itself (run_code numbers its calls `<run>:ptc:<n>`):
   * the duplicate check is skipped and no id is kept per call (a Set lookup and insert of
   * a fresh string per call, and the ids of a long run held until it ends).
   */
  readonly callIdsUnique?: boolean;
}

export interface CallSequencer {
  /**
   * Queues one call behind the ones already submitted and resolves with its final
   * result once it has committed, or with a `SCHEDULER_FAILURE` result when an internal
   * failure kept it from committing. Rejects with a TypeError for a malformed request
   * (nothing is queued) and with SchedulerError `NOT_DISPATCHED` after `close()`.
   */
  submit(request: NestedExecuteRequest): Promise<ToolResult>;
  /** Waits until every call submitted so far has a result; rejects with the internal failure if there was one. */
  drain(): Promise<void>;
  /** Refuses further submissions, then drains. */
  close(): Promise<void>;
  readonly closed: boolean;
}

interface Slot {
  readonly request: NestedExecuteRequest;
  readonly agent: string | undefined;
  /** The argument snapshot the tool will see, or undefined when they are not JSON. */
  readonly args: JsonValue | undefined;
  mode: CallMode | 'aborted' | undefined;
  /** Its around-dispatch and body were started (they may have had effects). */
  dispatched: boolean;
  /** Resolves once the call committed; rejects with the SchedulerError otherwise. */
  readonly committed: Deferred<void>;
  /** Set when its call was given up on while the body still ran. */
  hold: GivenUpHold | undefined;
  readonly result: Deferred<ToolResult>;
  /** Stops relaying the call's own signal (after its commit or failure). */
  readonly unlink: () => void;
  /** Its place in the sequence's list of open calls; -1 when not in it. */
  openIndex: number;
}

const noop = (): void => {};
const SETTLED: Promise<void> = Promise.resolve();

/** The pipeline's dispatch of one call: undefined when it finished synchronously. */
type Dispatch = () => Promise<void> | undefined;

/** The request a slot runs: its own fields, the call's signal and agent, frozen and marked when its arguments are a snapshot. */
function normalizedRequest(
  request: NestedExecuteRequest,
  snapshot: { readonly ok: true; readonly value: JsonValue } | { readonly ok: false },
  agent: string | undefined,
  callSignal: AbortSignal,
): NestedExecuteRequest {
  // Optional fields only when set, in this order (no spread of a temporary object each).
  const fields: { -readonly [K in keyof NestedExecuteRequest]: NestedExecuteRequest[K] } = {
    callId: request.callId,
    name: request.name,
    arguments: snapshot.ok ? snapshot.value : request.arguments,
    signal: callSignal,
  };
  if (agent !== undefined) fields.agent = agent;
  if (request.parent !== undefined) fields.parent = request.parent;
  if (request.rootCallId !== undefined) fields.rootCallId = request.rootCallId;
  if (request.caller !== undefined) fields.caller = request.caller;
  if (request.callerRefusal !== undefined) fields.callerRefusal = request.callerRefusal;
  if (request.idempotencyKey !== undefined) fields.idempotencyKey = request.idempotencyKey;
  if (request.runId !== undefined) fields.runId = request.runId;
  if (request.fencingToken !== undefined) fields.fencingToken = request.fencingToken;
  return snapshot.ok ? snapshotRequest(fields) : fields;
}

// Long: a factory; its closure is the sequencer's private state (queue, in-flight calls,
// give-up holds), shared by the short functions declared inside it.
export function createCallSequencer(deps: PipelineDeps, options: CallSequencerOptions = {}): CallSequencer {
  const concurrency = checkConcurrency(options.concurrency, 'createCallSequencer');
  const holdMs = checkHoldAfterGiveUpMs(options.holdAfterGiveUpMs ?? deps.holdAfterGiveUpMs, 'createCallSequencer');
  const defaultAgent = deps.registry.agentId(options.agent);
  const signal = options.signal ?? NEVER_ABORTED;
  if (!(signal instanceof AbortSignal)) throw new TypeError('createCallSequencer: signal must be an AbortSignal');
  const { journal } = options;
  const record: Partial<JournalGates> = journal === undefined ? {} : journalGates(journal);
  const pool = new PQueue({ concurrency });
  // A parallel body that starts while the pool is idle runs beside it: the pool's bound
  // cannot bite then, and entering it costs a few microseconds, ~4 KB and seven events per
  // call (most programs await one call at a time). While that body runs the pool's own
  // bound is one lower, so all bodies together still never exceed `concurrency`.
  let besidePool = false;
  const mayBypassPool = (): boolean => !besidePool && concurrency > 1 && pool.pending === 0 && pool.size === 0;
  const leavePool = (): void => {
    besidePool = false;
    pool.concurrency = concurrency;
  };
  // Not an async frame: the dispatch's own promise, with the pool's bound restored when it
  // settles (at once, and undefined, when the dispatch finished synchronously).
  const beside = (slot: Slot, dispatch: Dispatch): Promise<void> | undefined => {
    besidePool = true;
    pool.concurrency = concurrency - 1;
    slot.dispatched = true;
    let dispatched: Promise<void> | undefined;
    try {
      dispatched = dispatch();
    } catch (error) {
      leavePool();
      return Promise.reject(error);
    }
    if (dispatched === undefined) {
      leavePool();
      return undefined;
    }
    return dispatched.then(leavePool, (error: unknown) => {
      leavePool();
      throw error;
    });
  };
  // Calls submitted and not yet committed or failed, in no order; a slot leaves at its
  // commit. A list with each slot's place, not a Set: a sequence awaiting one call at a
  // time would empty a Set on every commit, and V8 reallocates a table that drops to empty.
  const open: Slot[] = [];
  const leaveOpen = (slot: Slot): void => {
    const at = slot.openIndex;
    if (at < 0) return;
    slot.openIndex = -1;
    const last = open.pop()!;
    if (last !== slot) {
      open[at] = last;
      last.openIndex = at;
    }
  };
  const callIds = new Set<string>();
  const callIdsUnique = options.callIdsUnique === true;
  let failure: SchedulerError | undefined;
  let closed = false;
  // Start order: each link waits for the gate the previous call sets for the next.
  let startChain: Promise<void> = Promise.resolve();
  let lastCommitted: Promise<void> = Promise.resolve();
  // Bodies given up on that still run: an exclusive body waits for all of them (they all
  // belong to earlier calls: later ones have not started their bodies yet).
  const holds = new Set<GivenUpHold>();
  // Write-ahead records follow submission order even when starts do not wait for the
  // previous call's policy (after an abort) and the pipeline yields before recording.
  let lastRecorded: Promise<void> = Promise.resolve();

  // Resolves when waiting for a gate is pointless: the sequence was aborted or failed.
  const stopped = deferred<void>();
  let isStopped = false;
  // Ends the wait of the start waiting for its gate now (starts are chained: one at a time).
  let releaseWaitingStart: (() => void) | undefined;
  const stop = (): void => {
    isStopped = true;
    stopped.resolve();
    releaseWaitingStart?.();
  };
  // Settles when `gate` does, or at once when the sequence stops. (Not a Promise.race with
  // `stopped.promise`: every race would leave a reaction on that promise, kept until the
  // sequence ends, for every call of a long run.)
  const untilGateOrStop = (gate: Promise<unknown>): Promise<void> => {
    if (isStopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        if (releaseWaitingStart === done) releaseWaitingStart = undefined;
        resolve();
      };
      releaseWaitingStart = done;
      gate.then(done, done);
    });
  };
  // Signals of calls that carry their own signal, aborted with the sequence's: a manual
  // AbortSignal.any, whose weak links cost a GC-heavy few microseconds per call.
  const composites = new Set<AbortController>();
  const onAbort = (): void => {
    stop();
    for (const composite of composites) composite.abort(signal.reason);
    composites.clear();
  };
  if (signal.aborted) stop();
  else if (signal !== NEVER_ABORTED) signal.addEventListener('abort', onAbort, { once: true });

  const fail = (error: unknown): SchedulerError => {
    if (failure === undefined) {
      failure = SchedulerError.failure(error);
      stop();
    }
    return failure;
  };

  // Calls that entered the start chain, and how many of them committed. A call commits
  // only after the one before it did (beforeCommit), so the committed ones are always the
  // first `committedCalls` of the chain: a call whose predecessor is among them has
  // nothing to wait for before its commit.
  let chainedCalls = 0;
  let committedCalls = 0;
  // The result is already durable (recordResult ran inside the pipeline's finish).
  const commit = (slot: Slot, result: ToolResult): void => {
    committedCalls += 1;
    slot.unlink();
    leaveOpen(slot);
    slot.result.resolve(result);
    slot.committed.resolve();
  };

  const heldBodies = async (): Promise<void> => {
    while (holds.size > 0 && failure === undefined && !signal.aborted) {
      await Promise.race([Promise.all([...holds].map((h) => h.released)), stopped.promise]);
    }
  };

  // Not committed: the caller still gets a result for the call, saying so.
  const reject = (slot: Slot, f: SchedulerError): void => {
    slot.unlink();
    leaveOpen(slot);
    slot.result.resolve(schedulerFailureResult(slot.request.callId, slot.request.name, f, slot.dispatched));
    slot.committed.reject(f);
  };

  // The call's signal: the sequence's and its own, whichever aborts first (like
  // AbortSignal.any([signal, own])). The sequence's reaches it through onAbort until
  // close; the own one is relayed until the call commits or fails.
  const link = (own: AbortSignal): { signal: AbortSignal; unlink: () => void } => {
    const composite = new AbortController();
    if (signal.aborted) composite.abort(signal.reason);
    else if (own.aborted) composite.abort(own.reason);
    if (composite.signal.aborted) return { signal: composite.signal, unlink: noop };
    const relay = (): void => composite.abort(own.reason);
    own.addEventListener('abort', relay, { once: true });
    composites.add(composite);
    return {
      signal: composite.signal,
      unlink: () => {
        own.removeEventListener('abort', relay);
        composites.delete(composite);
      },
    };
  };

  // A journaled call keeps the turns it always took (an async frame around `beside`): its
  // records interleave with those of the calls around it in the order they always had.
  const besideAwaited = async (slot: Slot, dispatch: Dispatch): Promise<void> => {
    await beside(slot, dispatch);
  };
  // A dispatch that waits: in the pool, or behind the calls before it.
  const queuedDispatch = async (slot: Slot, previousCommitted: Promise<void>, dispatch: Dispatch): Promise<void> => {
    if (slot.mode === 'parallel') {
      await pool.add(async () => {
        if (failure !== undefined) throw failure;
        slot.dispatched = true;
        await dispatch();
      });
      return;
    }
    // A barrier: every earlier call has committed, and every earlier body settled
    // (or the sequence stopped), before this body starts.
    await previousCommitted;
    await heldBodies();
    if (failure !== undefined) throw failure;
    slot.dispatched = true;
    await dispatch();
  };

  // The wait on the gate for the next call, as an async frame: the chain follows it with the
  // turns it always had.
  const waitForGate = async (gate: Promise<unknown>): Promise<void> => {
    await untilGateOrStop(gate);
  };
  // Not an async frame: a parallel call whose policy is done when its pipeline returns
  // gives the chain a settled promise to follow; every other way returns a promise as the
  // async function this was did (a throw included). The chain keeps its turns either way:
  // the next call starts at the same turn relative to the bodies running (the host fast
  // path's property test pins that order).
  const start = (slot: Slot, previousCommitted: Promise<void>, position: number): Promise<void> => {
    try {
      return startCall(slot, previousCommitted, position);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const startCall = (slot: Slot, previousCommitted: Promise<void>, position: number): Promise<void> => {
    if (failure !== undefined) {
      // Never started: its result says so (SCHEDULER_FAILURE, not dispatched).
      reject(slot, failure);
      return SETTLED;
    }
    const { request } = slot;
    slot.mode = signal.aborted ? 'aborted' : classifyCall(deps, request.name, slot.agent, slot.args);
    // Only a journal records: without one, no write-ahead chain is built.
    const journaled = record.recordCall === undefined ? undefined : { previous: lastRecorded, done: deferred<void>() };
    if (journaled !== undefined) lastRecorded = journaled.done.promise;
    let policyDone = false;
    // The next call's gate, made only if the policy is still pending when the pipeline
    // returns (most calls get theirs done synchronously and nobody waits for it).
    let policyGate: Deferred<void> | undefined;
    const gates: { -readonly [K in keyof ExecutionGates]: ExecutionGates[K] } = {
      onPolicyDone: () => {
        policyDone = true;
        policyGate?.resolve();
      },
      runDispatch: (dispatch) => {
        if (failure !== undefined) return Promise.reject(failure);
        // The common case (one call at a time) without an async frame of its own.
        if (slot.mode === 'parallel' && mayBypassPool())
          return journaled === undefined ? beside(slot, dispatch) : besideAwaited(slot, dispatch);
        return queuedDispatch(slot, previousCommitted, dispatch);
      },
      onBodyOutlived: (settled) => {
        const { callId, name } = request;
        const hold = holdGivenUpBody({ callId, name, settled }, holdMs, () => fail(holdExpiredError(request, holdMs)));
        holds.add(hold);
        void hold.released.then(() => holds.delete(hold));
        slot.hold = hold;
      },
      // Post-policy, finish and commit in submission order.
      // (A journaled call awaits it always: its records keep the order they always had.)
      beforeCommit: () => (journaled === undefined && committedCalls >= position - 1 ? undefined : previousCommitted),
    };
    // Only with a journal (assigned, not spread: no temporary object per call).
    if (journaled !== undefined) {
      // A durable run's nested call: its rows name the run (other runs may use the same callIds).
      const runId = request.runId;
      gates.recordCall = async (call, wait) => {
        await journaled.previous;
        try {
          await record.recordCall!(runId === undefined ? call : { ...call, runId }, wait);
        } finally {
          journaled.done.resolve();
        }
      };
      const recordResult = record.recordResult;
      if (recordResult !== undefined)
        gates.recordResult = runId === undefined ? recordResult : (result, wait) => recordResult(result, wait, runId);
    }
    const settled = executeTool(deps, request, gates).then(
      (result) => commit(slot, result),
      (error: unknown) => reject(slot, fail(error)),
    );
    if (journaled !== undefined) void settled.finally(() => journaled.done.resolve());
    // The gate for the next call: its pre-policy follows this call's policy; an
    // exclusive call holds every later call until it has committed and its body settled.
    if (slot.mode === 'exclusive') return waitForGate(slot.committed.promise.then(() => slot.hold?.released));
    // Its policy already done (a pipeline that ran through synchronously): nothing to wait
    // for. A journaled call keeps its turns (its records' order with the calls around it):
    // it waits on a settled gate, as it did on its settled policy promise.
    if (policyDone) return journaled === undefined ? SETTLED : waitForGate(SETTLED);
    policyGate = deferred<void>();
    return waitForGate(policyGate.promise);
  };

  const normalize = (request: NestedExecuteRequest): Slot => {
    if (typeof request !== 'object' || request === null)
      throw new TypeError('submit: expected a call { callId, name, arguments }');
    const { callId, name } = request;
    if (typeof callId !== 'string' || callId.length === 0)
      throw new TypeError('submit: callId must be a non-empty string');
    if (request.parent === undefined) checkCallIdLength(callId, 'submit');
    if (typeof name !== 'string') throw new TypeError(`submit(${callId}): name must be a string`);
    if (!callIdsUnique && callIds.has(callId))
      throw new TypeError(`submit(${callId}): duplicate callId; every call of a sequence needs its own id`);
    const agent = request.agent === undefined ? defaultAgent : deps.registry.agentId(request.agent);
    const own = request.signal;
    if (own !== undefined && !(own instanceof AbortSignal))
      throw new TypeError(`submit(${callId}): signal must be an AbortSignal`);
    // A sequence that cannot abort needs no link: the call's own signal is all there is.
    const linked = own === undefined || own === signal || signal === NEVER_ABORTED ? undefined : link(own);
    const callSignal = linked === undefined ? (own ?? signal) : linked.signal;
    // Snapshot once: classification and the tool see the very same arguments (run_code's
    // are one already).
    const vouched = hasSnapshotArguments(request);
    const snapshot = vouched
      ? { ok: true as const, value: request.arguments as JsonValue }
      : trySnapshotJson(request.arguments, 'arguments');
    const args = snapshot.ok ? snapshot.value : undefined;
    // A frozen snapshot request that already says what the copy below would (run_code's,
    // built in the same key order, with the call's own signal when the sequence's cannot
    // abort) is taken as it is.
    const normalized =
      vouched && callSignal === own && agent === request.agent && request.hostedProgram === undefined
        ? request
        : normalizedRequest(request, snapshot, agent, callSignal);
    const slot: Slot = {
      request: normalized,
      agent,
      args,
      mode: undefined,
      dispatched: false,
      committed: deferred<void>(),
      hold: undefined,
      result: deferred<ToolResult>(),
      unlink: linked === undefined ? noop : linked.unlink,
      openIndex: -1,
    };
    slot.committed.promise.catch(noop);
    if (!callIdsUnique) callIds.add(callId);
    return slot;
  };

  const drain = async (): Promise<void> => {
    // Calls submitted while we wait are waited for too.
    while (open.length > 0) {
      await Promise.allSettled(open.map((s) => s.committed.promise));
    }
    if (failure !== undefined) throw failure;
  };

  return {
    submit(request) {
      if (closed) {
        const id = (request as { callId?: unknown } | null)?.callId;
        return Promise.reject(
          new SchedulerError(
            SCHEDULER_ERROR_CODES.NOT_DISPATCHED,
            `call ${JSON.stringify(id)} was not dispatched: the sequence is closed`,
          ),
        );
      }
      let slot: Slot;
      try {
        slot = normalize(request);
      } catch (error) {
        return Promise.reject(error);
      }
      if (failure !== undefined) {
        // After a failure nothing starts, but the call still gets its result.
        reject(slot, failure);
        return slot.result.promise;
      }
      slot.openIndex = open.length;
      open.push(slot);
      const previousCommitted = lastCommitted;
      const position = ++chainedCalls;
      lastCommitted = slot.committed.promise;
      startChain = startChain
        .then(() => start(slot, previousCommitted, position))
        .catch((error: unknown) => {
          // `start` itself broke: an internal failure.
          reject(slot, fail(error));
        });
      return slot.result.promise;
    },
    drain,
    async close() {
      closed = true;
      try {
        await drain();
      } finally {
        if (signal !== NEVER_ABORTED) signal.removeEventListener('abort', onAbort);
        composites.clear();
        // No call is left to wait for a given-up body: stop its bound's timer.
        for (const hold of holds) hold.end();
        holds.clear();
      }
    },
    get closed() {
      return closed;
    },
  };
}
