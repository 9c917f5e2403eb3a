// Re-runs of the runs a dead sandbox process held (see process-sandbox.ts for why and
// when): each is queued with the rest of its wall-clock time and a bridge that answers
// its nested calls from its record, then started in a re-run process of its own (at most
// maxRerunProcesses at a time) or in a shared one (at most maxSharedRerunProcesses, each
// with up to maxRunsPerSharedRerun runs). Re-run processes have no pool and exit once
// their runs are done.
import type { CallBridge } from './call-bridge.ts';
import type { Divergence } from './call-record.ts';
import type { HostToChild } from './ipc-messages.ts';
import type { ProcessSettings } from './process-settings.ts';
import { failure } from './run-outcome.ts';
import type { Child, HostRun } from './sandbox-child.ts';
import type { FailureKind, RunRequest, SandboxLimits } from './types.ts';

/** What re-runs need of the pool that owns them. */
export interface RerunHost {
  isClosed(): boolean;
  /** Starts a sandbox process with a pool of `poolSize` prepared isolates. */
  spawn(poolSize: number): Child;
  /** Gives `run` to `child` (and keeps the heartbeat going). */
  assign(child: Child, run: HostRun): void;
  send(child: Child, message: HostToChild): void;
  /** Starts the run's wall clock: `ms` from now it is cancelled as timed out. */
  startClock(run: HostRun, ms: number): void;
  cancel(run: HostRun, kind: FailureKind, message: string): void;
  bridgeFor(
    runOf: () => HostRun,
    hostCall: RunRequest['hostCall'],
    toolNames: readonly string[],
    limits: SandboxLimits,
  ): CallBridge;
}

type RerunSettings = Pick<
  ProcessSettings,
  'rerunRecordBytes' | 'maxRerunProcesses' | 'maxSharedRerunProcesses' | 'maxRunsPerSharedRerun'
>;

export class Reruns {
  readonly #host: RerunHost;
  readonly #settings: RerunSettings;
  /** Live re-run processes of one run each, and the re-runs waiting for one of them to exit. */
  readonly #alone = new Set<Child>();
  readonly #aloneQueue: HostRun[] = [];
  /** Live shared re-run processes, and the re-runs waiting for a place in one. */
  readonly #shared = new Set<Child>();
  readonly #sharedQueue: HostRun[] = [];

  constructor(host: RerunHost, settings: RerunSettings) {
    this.#host = host;
    this.#settings = settings;
  }

  /** Pids of the live re-run processes: those of one run each, and the shared ones. */
  pids(): { readonly alone: number[]; readonly shared: number[] } {
    const pids = (children: Set<Child>): number[] =>
      [...children].flatMap((child) => (child.dead || child.process.pid === undefined ? [] : [child.process.pid]));
    return { alone: pids(this.#alone), shared: pids(this.#shared) };
  }

  /** Whether `child` is a shared re-run process (a run that ends there frees a place). */
  isShared(child: Child): boolean {
    return this.#shared.has(child);
  }

  /** `child` is gone: its place as a re-run process is free for the re-runs of its own runs. */
  forget(child: Child): void {
    this.#alone.delete(child);
    this.#shared.delete(child);
  }

  /** Takes a waiting re-run out of its queue (it is being cancelled). */
  withdraw(run: HostRun): void {
    const queue = run.shared ? this.#sharedQueue : this.#aloneQueue;
    queue.splice(queue.indexOf(run), 1);
  }

  /** Empties both queues (the sandbox closes): the re-runs that never got a process. */
  takeWaiting(): HostRun[] {
    return [...this.#aloneQueue.splice(0), ...this.#sharedQueue.splice(0)];
  }

  /** Why `run` was not re-run, as the end of its failure message (empty: no reason to give). */
  whyNot(run: HostRun): string {
    if (!run.record.replayable) {
      return `; it was not re-run because its nested calls outgrew the ${this.#settings.rerunRecordBytes}-byte record a re-run needs`;
    }
    return run.deadline !== undefined && run.deadline <= Date.now()
      ? '; it was not re-run because its deadline had passed'
      : '';
  }

  /**
   * Queues a run whose process died under it (it was not being cancelled) for a re-run
   * in a fresh process, with the rest of its wall-clock time; its nested calls are
   * answered from its record. False when it cannot be re-run.
   *
   * Which run killed the process is not known: the host sees calls and outcomes, not
   * whether an isolate was running guest code. A run that was most likely waiting
   * (`wasWaiting`) goes to a shared re-run process; any other (running, on a timer, just
   * started, or answered a while before) goes alone.
   * The guess is only about cost, never about outcomes: a run whose shared re-run process
   * dies too gets a last attempt alone (its record kept growing meanwhile), so an innocent
   * run is never lost to sharing and a culprit that looked idle is alone the next time.
   * At most three attempts: first, shared, alone; or first, alone.
   */
  queue(from: Child, run: HostRun): boolean {
    // A process that died before it was ready never started the run's clock.
    const remaining = run.deadline === undefined ? run.limits.wallTimeMs : run.deadline - Date.now();
    const attemptsLeft = run.attempt === 1 || (run.attempt === 2 && run.shared);
    if (this.#host.isClosed() || !attemptsLeft || !run.record.replayable || remaining <= 0) return false;
    const shared = run.attempt === 1 && wasWaiting(from, run);
    from.runs.delete(run.runId);
    run.bridge.retire();
    // Its first process died before its clock started: the clock starts now.
    if (run.deadline === undefined) this.#host.startClock(run, remaining);
    run.attempt += 1;
    run.shared = shared;
    run.callsOut = 0;
    run.answeredAtMessage = undefined;
    run.answerSentAs = undefined;
    // The lines any earlier attempt logged (and streamed) are not repeated.
    run.repeatedLogLines = Math.max(run.repeatedLogLines, run.logLines);
    run.logLines = 0;
    const onDiverge = (divergence: Divergence): void =>
      this.#host.cancel(
        run,
        'crash',
        `The sandbox process stopped unexpectedly and the run was re-run in a fresh one, but the re-run diverged from the first attempt at call #${divergence.seq} (tools.${divergence.toolName}, first tools.${divergence.recordedToolName}, or other arguments), so it was stopped rather than repeat a tool call.`,
      );
    const replaying = run.record.replaying(run.hostCall, onDiverge, shared);
    const bridge = this.#host.bridgeFor(() => run, replaying, run.toolNames, run.limits);
    run.bridge = bridge;
    run.bridges.push(bridge);
    // Its clock keeps running while it waits: its deadline or an abort ends it there.
    run.waiting = true;
    (shared ? this.#sharedQueue : this.#aloneQueue).push(run);
    return true;
  }

  /** Starts the waiting re-runs that have room: alone ones in fresh processes, shared ones where there is a place. */
  startWaiting(): void {
    if (this.#host.isClosed()) return;
    while (this.#aloneQueue.length > 0 && this.#alone.size < this.#settings.maxRerunProcesses) {
      // Alone in its process: if this run was the culprit, its re-run takes nobody with it.
      this.#start(this.#aloneQueue.shift()!, this.#spawnRerunProcess(this.#alone));
    }
    while (this.#sharedQueue.length > 0) {
      const child = this.#sharedRerunProcessWithRoom();
      if (child === undefined) return;
      this.#start(this.#sharedQueue.shift()!, child);
    }
  }

  /** A live shared re-run process with a place left (the fullest first: fewer processes), else a new one if allowed. */
  #sharedRerunProcessWithRoom(): Child | undefined {
    let best: Child | undefined;
    for (const child of this.#shared) {
      if (child.dead || child.retired || child.killedBecause !== undefined) continue;
      if (child.runs.size >= this.#settings.maxRunsPerSharedRerun) continue;
      if (best === undefined || child.runs.size > best.runs.size) best = child;
    }
    if (best !== undefined || this.#shared.size >= this.#settings.maxSharedRerunProcesses) return best;
    return this.#spawnRerunProcess(this.#shared);
  }

  /** A fresh process for re-runs (no pool: it prepares an isolate per run), gone once its runs are done. */
  #spawnRerunProcess(kind: Set<Child>): Child {
    const child = this.#host.spawn(0);
    child.draining = true;
    kind.add(child);
    return child;
  }

  #start(run: HostRun, child: Child): void {
    run.waiting = false;
    run.child = child;
    this.#host.assign(child, run);
    const remaining = (run.deadline ?? Date.now() + run.limits.wallTimeMs) - Date.now();
    this.#host.send(child, {
      type: 'run',
      runId: run.runId,
      program: run.program,
      toolNames: run.toolNames,
      limits: { ...run.limits, wallTimeMs: Math.max(1, Math.ceil(remaining)) },
      determinism: run.determinism,
      ...(run.state === undefined ? {} : { state: run.state }),
    });
  }
}

/**
 * Whether `run` was most likely waiting on the host when `from` died: a call out and no
 * outcome back since its latest call, or an outcome `from` never said it had handled —
 * a process that dies is seen dead hundreds of ms later (the kernel frees its memory
 * first), and outcomes sent meanwhile never arrived. Each of its IPC messages says how
 * many of the host's it had handled, so one read late (sent before the outcome arrived)
 * does not count as a sign the run went on. An outcome answered on the blocking pipe:
 * waiting unless the process was heard from at all after it. A run that got its outcome
 * and may be running on it goes alone.
 */
function wasWaiting(from: Child, run: HostRun): boolean {
  if (run.answeredAtMessage === undefined) return run.callsOut > 0;
  if (run.answerSentAs !== undefined) return from.ipcHandled < run.answerSentAs;
  return run.answeredAtMessage === from.messagesHeard;
}

/** Ends a re-run that never got a process (aborted, out of time, or the sandbox closed). */
export function endWaiting(run: HostRun, kind: FailureKind, message: string): void {
  run.waiting = false;
  run.cancelKind ??= kind;
  clearTimeout(run.wallTimer);
  run.resolve(failure(kind, message));
}
