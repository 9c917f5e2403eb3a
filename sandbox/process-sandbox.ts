// Sandbox whose isolates live in dedicated child processes (the default). The host
// compiles, serves nested calls over IPC with its own caps, and runs a watchdog: a run
// whose deadline passed (or that was cancelled) is cancelled in the child; a child that
// does not confirm within `hangGraceMs` is killed and replaced. The run whose cancel it
// ignored ends with that kind (`timeout`, `abort`, ...). The other runs that child held
// are re-run in fresh processes, their nested calls answered from the first attempt's
// record (call-record.ts: no tool body runs twice), so one run's crash or hang loses no
// other run. Which run killed the process cannot be known for sure; the ones that can
// hardly have (each was waiting on a host call that had not been answered) are re-run
// together in a few shared re-run processes, the others each alone (`maxRerunProcesses`
// at a time, the rest wait their turn). A run whose shared re-run process dies too gets
// one more attempt alone, so sharing never fails an innocent run and a culprit ends up
// alone. A run that cannot be re-run (its record outgrew its budget, its re-run diverged,
// its alone re-run died too) ends with kind `crash`.
// Up to `processes` children share the runs in flight, each run going to the one with
// the fewest, spreading the work over the cores.
// This file: the pool of sandbox processes and a run's life in one (assign, calls,
// cancel, finish). One process from fork to exit: sandbox-child.ts; re-runs: reruns.ts.
import { CallBridge } from './call-bridge.ts';
import { CallRecord } from './call-record.ts';
import {
  type CallItem,
  type CallResultItem,
  type ChildConfig,
  type ChildToHost,
  type HostToChild,
  heardCount,
  parseChildMessage,
} from './ipc-messages.ts';
import { resolveLimits, wallClockMessage } from './limits.ts';
import { withLocation } from './locate-in-program.ts';
import { DEFAULT_POOL_SIZE } from './pool-size.ts';
import { silentMainThreadWords } from './silent-main-thread.ts';
import { resolveProcessSettings } from './process-settings.ts';
import { failure, finalizeOutcome, type RawRunOutcome } from './run-outcome.ts';
import { ABORT_MESSAGE, prepareRun } from './run-request.ts';
import { endWaiting, Reruns } from './reruns.ts';
import {
  type Child,
  type ChildEvents,
  type HostRun,
  LATE_TIMER_MS,
  MAX_EARLY_DEATHS,
  type ProcessView,
  refChild,
  sendNow,
  startChild,
  unrefChild,
  viewOf,
} from './sandbox-child.ts';
import type { ProcessSandboxOptions } from './process-sandbox-options.ts';
import type { FailureKind, RunOutcome, RunRequest, Sandbox, SandboxLimits } from './types.ts';

// The defaults of the re-run bounds (ProcessSandboxOptions), where tests and callers have long read them.
export { MAX_RERUN_PROCESSES, MAX_RUNS_PER_SHARED_RERUN, MAX_SHARED_RERUN_PROCESSES } from './process-settings.ts';

export type { ProcessSandboxOptions } from './process-sandbox-options.ts';

export class ProcessSandbox implements Sandbox {
  readonly #defaults: SandboxLimits;
  readonly #poolSize: number;
  /** Each process's share of the memory budget its pool fills within. */
  readonly #fillBudgetBytes: number | undefined;
  readonly #blockingCalls: boolean;
  readonly #hangGraceMs: number;
  readonly #heartbeatMs: number;
  readonly #unresponsiveMs: number;
  readonly #startupLimitMs: number;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  /** When the heartbeat last ran. */
  #lastCheck = 0;
  readonly #recycleAfterRuns: number;
  readonly #settleGraceMs: number;
  readonly #childOutput: 'ignore' | 'inherit';
  readonly #rerunRecordBytes: number;
  readonly #children = new Set<Child>();
  readonly #reruns: Reruns;
  readonly #childEvents: ChildEvents = {
    message: (child, value) => this.#onChildMessage(child, value),
    call: (child, run, call) => this.#onCall(child, run, call),
    dyingAtStart: (child) => {
      const slot = this.#slots.indexOf(child);
      if (slot >= 0) this.#slots[slot] = undefined;
    },
    gone: (child, how) => this.#onGone(child, how),
  };
  /** One entry per process slot; a slot is empty until a run needs it (or after its process died). */
  readonly #slots: (Child | undefined)[];
  #nextRunId = 1;
  #earlyDeaths = 0;
  #closed = false;

  constructor(options: ProcessSandboxOptions = {}) {
    this.#defaults = resolveLimits(options.limits);
    this.#poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
    this.#blockingCalls = options.blockingCalls !== false;
    this.#hangGraceMs = options.hangGraceMs ?? 1_000;
    const settings = resolveProcessSettings(options);
    this.#heartbeatMs = settings.heartbeatMs;
    this.#unresponsiveMs = settings.unresponsiveMs;
    this.#startupLimitMs = settings.startupLimitMs;
    this.#settleGraceMs = options.settleGraceMs ?? 2_000;
    this.#recycleAfterRuns = settings.recycleAfterRuns;
    this.#childOutput = options.childOutput ?? 'ignore';
    this.#rerunRecordBytes = settings.rerunRecordBytes;
    this.#reruns = new Reruns(
      {
        isClosed: () => this.#closed,
        spawn: (poolSize) => this.#spawn(poolSize),
        assign: (child, run) => this.#assign(child, run),
        send: (child, message) => this.#send(child, message),
        startClock: (run, ms) => this.#startClock(run, ms),
        cancel: (run, kind, message) => this.#cancel(run, kind, message),
        bridgeFor: (runOf, hostCall, toolNames, limits) => this.#bridgeFor(runOf, hostCall, toolNames, limits),
      },
      settings,
    );
    const { processes } = settings;
    this.#fillBudgetBytes =
      options.memoryBudgetBytes === undefined
        ? undefined
        : Math.max(1, Math.floor(options.memoryBudgetBytes / processes));
    this.#slots = new Array<Child | undefined>(processes).fill(undefined);
    // Every process starts now: a burst right after the sandbox is made finds them all
    // booting rather than the second waiting for the first run's compile.
    this.#startIdleSlots();
  }

  /** Pid of the sandbox process that takes the next run (for tests and diagnostics). */
  get childPid(): number | undefined {
    return this.#pick()?.process.pid;
  }

  /** Pids of the live sandbox processes, by slot (for tests and diagnostics). */
  get childPids(): (number | undefined)[] {
    return this.#slots.map((child) => (child === undefined || child.dead ? undefined : child.process.pid));
  }

  /** Every process the host follows (pool and re-run ones), as it sees it (for tests and diagnostics). */
  get processViews(): ProcessView[] {
    return [...this.#children].map(viewOf);
  }

  /** Pids of the live re-run processes: those of one run each, and the shared ones (for tests and diagnostics). */
  get rerunPids(): { readonly alone: number[]; readonly shared: number[] } {
    return this.#reruns.pids();
  }

  async run(request: RunRequest): Promise<RunOutcome> {
    if (this.#closed) throw new Error('sandbox.run: the sandbox is closed');
    const prepared = await prepareRun(request, this.#defaults);
    if (prepared.outcome !== undefined) return prepared.outcome;
    const { toolNames, limits, logs, program, determinism, state } = prepared;
    const { signal } = request;
    if (this.#closed) throw new Error('sandbox.run: the sandbox is closed');

    const child = this.#takeChild();
    const runId = this.#nextRunId++;
    let run!: HostRun;
    const record = new CallRecord(this.#rerunRecordBytes);
    const bridge = this.#bridgeFor(() => run, record.recording(request.hostCall), toolNames, limits);
    const onAbort = (): void => {
      for (const each of run.bridges) each.close();
      this.#cancel(run, 'abort', ABORT_MESSAGE);
    };
    const raw = await new Promise<RawRunOutcome>((resolve) => {
      run = {
        runId,
        child,
        bridge,
        bridges: [bridge],
        record,
        hostCall: request.hostCall,
        program: { js: program.js, lineCount: program.lineCount },
        toolNames,
        logs,
        limits,
        determinism,
        state,
        resolve,
        attempt: 1,
        shared: false,
        callsOut: 0,
        answeredAtMessage: undefined,
        answerSentAs: undefined,
        logLines: 0,
        repeatedLogLines: 0,
      };
      this.#assign(child, run);
      this.#send(child, {
        type: 'run',
        runId,
        program: run.program,
        toolNames,
        limits,
        determinism,
        ...(state === undefined ? {} : { state }),
      });
      this.#demoteIfContended();
      // The deadline starts when the sandbox process can run the program, not while it boots.
      const armDeadline = (): void => {
        if (child.runs.get(runId) === run) this.#startClock(run, limits.wallTimeMs);
      };
      if (child.ready) armDeadline();
      else child.onReady.push(armDeadline);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (child.dead) this.#failRuns(child, 'the sandbox process was not running');
    });
    signal?.removeEventListener('abort', onAbort);
    for (const each of run.bridges) each.close();
    await Promise.all(run.bridges.map((each) => each.settled(this.#settleGraceMs)));
    // The source map never crossed: an exception's position is found here, only when needed.
    const located = !raw.ok && raw.stack !== undefined ? (withLocation(raw, program, raw.stack) ?? raw) : raw;
    return finalizeOutcome(located, logs, limits, state);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    this.#slots.fill(undefined);
    for (const run of this.#reruns.takeWaiting()) {
      endWaiting(run, 'abort', 'The sandbox was closed.');
    }
    const exits: Promise<void>[] = [];
    for (const child of this.#children) {
      for (const run of child.runs.values()) {
        run.cancelKind ??= 'abort';
        run.cancelMessage ??= 'The sandbox was closed.';
      }
      this.#send(child, { type: 'close' });
      // Until it has exited: an unref'd child (and its 'exit') would not keep the host's
      // event loop alive, and close() would never settle — e.g. when the child's own
      // exit is stuck behind an isolate busy in native code.
      refChild(child);
      const killer = setTimeout(() => child.process.kill('SIGKILL'), this.#hangGraceMs);
      exits.push(child.exited.finally(() => clearTimeout(killer)));
    }
    await Promise.all(exits);
  }

  /** Gives `run` to `child` and keeps the heartbeat going while any child has runs. */
  #assign(child: Child, run: HostRun): void {
    // An idle child owed no sign of life: its silence counts from now.
    if (child.runs.size === 0) {
      child.lastHeard = Date.now();
      child.cpuWait?.reset();
    }
    child.runs.set(run.runId, run);
    refChild(child);
    if (this.#heartbeat === undefined) {
      this.#lastCheck = Date.now();
      this.#heartbeat = setInterval(() => this.#checkLiveness(), this.#heartbeatMs);
      this.#heartbeat.unref();
    }
  }

  /**
   * Pings busy children; kills one that has been silent too long (its runs are re-run).
   * Silence is time the child could have used to answer: not the time this host's own
   * thread was late to read it, nor the time the child's main thread waited for a CPU
   * (an overloaded host starves healthy processes; killing them would turn overload into
   * lost runs). A stopped, sleeping (deadlocked) or spinning main thread gets no such credit.
   */
  #checkLiveness(): void {
    let busy = false;
    const now = Date.now();
    // A late check means this host's own thread was blocked (a synchronous tool, say):
    // no ping went out and no message was read meanwhile, so that time is no child's silence.
    const stalled = now - this.#lastCheck - this.#heartbeatMs;
    this.#lastCheck = now;
    for (const child of this.#children) {
      if (child.dead || child.runs.size === 0) continue;
      // Busy even while it starts: stopped now, the heartbeat would not ping it once it is
      // ready and waits on a call, and a later restart would find it silent all along.
      busy = true;
      if (!child.ready) continue;
      const excused = Math.max(0, stalled) + (child.cpuWait?.waitedMs(now) ?? 0);
      if (excused > 0) child.lastHeard = Math.min(now, child.lastHeard + excused);
      if (now - child.lastHeard > this.#unresponsiveMs && child.killedBecause === undefined) {
        // Asked only now: a wait for a CPU still under way is counted when it ends.
        if (now - child.lastHeard - (child.cpuWait?.unseenWaitMs() ?? 0) > this.#unresponsiveMs) {
          const pipe = child.blocking === undefined ? '' : ` (${child.blocking.describeWait()})`;
          child.killedBecause = `it sent nothing for ${this.#unresponsiveMs} ms and was killed${silentMainThreadWords(child.process.pid, child.cpuWait?.describeState(), child.blocking?.blocked === true)}${pipe}`;
          child.process.kill('SIGKILL');
          continue;
        }
      }
      this.#send(child, { type: 'ping' });
    }
    if (!busy && this.#heartbeat !== undefined) {
      clearInterval(this.#heartbeat);
      this.#heartbeat = undefined;
    }
  }

  #bridgeFor(
    runOf: () => HostRun,
    hostCall: RunRequest['hostCall'],
    toolNames: readonly string[],
    limits: SandboxLimits,
  ): CallBridge {
    return new CallBridge({
      hostCall,
      toolNames,
      maxCalls: limits.maxCalls,
      maxConcurrentCalls: limits.maxConcurrentCalls,
      onViolation: (kind, message) => this.#cancel(runOf(), kind, message),
    });
  }

  #spawn(poolSize: number = this.#poolSize): Child {
    const config: ChildConfig = {
      poolSize,
      memoryMb: this.#defaults.memoryMb,
      blockingCalls: this.#blockingCalls,
      ...(this.#fillBudgetBytes === undefined ? {} : { fillBudgetBytes: this.#fillBudgetBytes }),
    };
    const child = startChild(config, this.#childOutput, this.#childEvents, this.#startupLimitMs);
    this.#children.add(child);
    return child;
  }

  /** A child is gone: its slot is free, its runs end or are re-run, and one process is kept warm. */
  #onGone(child: Child, how: string): void {
    this.#children.delete(child);
    if (!child.ready) this.#earlyDeaths++;
    const slot = this.#slots.indexOf(child);
    if (slot >= 0) this.#slots[slot] = undefined;
    // Its place as a re-run process is free for the re-runs of its own runs.
    this.#reruns.forget(child);
    this.#failRuns(child, `the sandbox process stopped (${how})`);
    // Keep one process warm for the next run.
    if (!this.#closed && !this.#slots.some((c) => c !== undefined) && this.#earlyDeaths < MAX_EARLY_DEATHS) {
      this.#slots[0] = this.#spawn();
    }
  }

  /** The process for the next run: an idle one, else a new one in an empty slot, else the least busy. */
  #pick(): Child | undefined {
    let best: Child | undefined;
    for (const child of this.#slots) {
      if (child === undefined || child.dead || child.draining) continue;
      if (child.runs.size === 0) return child;
      if (best === undefined || child.runs.size < best.runs.size) best = child;
    }
    return best;
  }

  #takeChild(): Child {
    let child = this.#pick();
    if (child === undefined || child.runs.size > 0) {
      // Every live process has runs: start another one if a slot is free.
      const free = this.#slots.findIndex((c) => c === undefined || c.dead);
      if (free >= 0) {
        child = this.#spawn();
        this.#slots[free] = child;
      }
    }
    if (child === undefined) {
      // Not reached while slots are kept filled; a process of its own is the safe answer.
      child = this.#spawn();
    }
    this.#startIdleSlots();
    child.runsTaken += 1;
    if (child.runsTaken >= this.#recycleAfterRuns) {
      // This run is its last: a fresh process (already starting) takes its slot, and
      // this one exits when its runs are done.
      child.draining = true;
      this.#replace(child);
    }
    return child;
  }

  /**
   * Fills every empty process slot (at the start, and as runs come after a process died):
   * a burst of runs then finds every process ready rather than waiting half a second or
   * more (seconds on a loaded machine) for one to boot while the others work.
   */
  #startIdleSlots(): void {
    if (this.#closed || this.#earlyDeaths >= MAX_EARLY_DEATHS) return;
    for (let slot = 0; slot < this.#slots.length; slot++) {
      const child = this.#slots[slot];
      if (child === undefined || child.dead) this.#slots[slot] = this.#spawn();
    }
  }

  /** Puts a fresh process in the slot of `child` (which is draining or gone). */
  #replace(child: Child): void {
    const slot = this.#slots.indexOf(child);
    if (slot < 0) return;
    this.#slots[slot] = this.#closed ? undefined : this.#spawn();
  }

  /** Resident memory of the live sandbox processes, as they last reported it. */
  memoryInUse(): number {
    let bytes = 0;
    for (const child of this.#children) if (!child.dead) bytes += child.rss;
    return bytes;
  }

  #onChildMessage(child: Child, value: unknown): void {
    child.lastHeard = Date.now();
    child.messagesHeard += 1;
    const handled = heardCount(value);
    if (handled !== undefined && handled > child.ipcHandled) child.ipcHandled = handled;
    const message = parseChildMessage(value);
    if (message === undefined) return;
    if ('rss' in message && typeof message.rss === 'number' && message.rss >= 0) child.rss = message.rss;
    if (message.type === 'pong' || message.type === 'memory') return;
    if (message.type === 'calls') {
      for (const call of message.calls) {
        const run = child.runs.get(call.runId);
        if (run !== undefined) this.#onCall(child, run, call);
      }
      return;
    }
    if (message.type === 'ready') {
      child.ready = true;
      child.startupStderr?.stop();
      this.#earlyDeaths = 0;
      for (const arm of child.onReady.splice(0)) arm();
      return;
    }
    if (message.type === 'heavy') {
      this.#onHeavy(child, message.runId);
      return;
    }
    if (message.type === 'retire') {
      child.draining = true;
      child.retired = true;
      this.#replace(child);
      if (child.runs.size === 0) child.process.kill('SIGKILL');
      return;
    }
    const run = child.runs.get(message.runId);
    if (run === undefined) return;
    this.#onRunMessage(child, run, message);
  }

  /**
   * One of the child's runs is CPU-bound: as soon as other runs are in flight (now, or
   * when one is assigned) the child demotes the threads running such code (cpu-lanes.ts),
   * so a lone CPU-bound program keeps its priority; the child restores them when its last
   * CPU-bound run ends.
   */
  #onHeavy(child: Child, runId: number): void {
    if (child.dead || !child.runs.has(runId)) return;
    child.heavyRuns.add(runId);
    // A later CPU-bound run of a demoted process: its thread is demoted too.
    if (child.demoted) sendNow(child, { type: 'demote' });
    else this.#demoteIfContended();
  }

  /** Demotes the CPU-bound threads of every process once any run that is not CPU-bound is in flight. */
  #demoteIfContended(): void {
    const { heavy, inFlight } = this.#laneCounts();
    if (heavy === 0 || inFlight <= heavy) return;
    for (const child of this.#children) {
      if (child.heavyRuns.size === 0 || child.demoted || child.dead) continue;
      child.demoted = true;
      sendNow(child, { type: 'demote' });
    }
  }

  /**
   * Once every run in flight is CPU-bound, the demoted ones get their priority back: they
   * made way for ordinary runs, and none is left (a later one demotes them again). Kept
   * demoted beside other processes' work, a CPU-bound run on a busy machine would get
   * almost no CPU until its wall clock ended it.
   */
  #restoreIfUncontended(): void {
    const { heavy, inFlight } = this.#laneCounts();
    if (heavy === 0 || inFlight > heavy) return;
    for (const child of this.#children) {
      if (!child.demoted || child.dead) continue;
      child.demoted = false;
      sendNow(child, { type: 'restore' });
    }
  }

  /** CPU-bound runs and all runs in flight, over the live processes. */
  #laneCounts(): { heavy: number; inFlight: number } {
    let heavy = 0;
    let inFlight = 0;
    for (const child of this.#children) {
      if (child.dead) continue;
      heavy += child.heavyRuns.size;
      inFlight += child.runs.size;
    }
    return { heavy, inFlight };
  }

  #onRunMessage(
    child: Child,
    run: HostRun,
    message: Exclude<ChildToHost, { type: 'ready' | 'retire' | 'heavy' }>,
  ): void {
    switch (message.type) {
      case 'call':
        this.#onCall(child, run, message);
        return;
      case 'calls-closed':
        run.bridge.close();
        return;
      case 'cancel-call':
        run.bridge.cancel(message.seq);
        return;
      case 'log':
        run.logLines += 1;
        // A re-run's first lines are the ones its first attempt already logged (and streamed).
        if (run.logLines > run.repeatedLogLines) run.logs.add(message.text);
        return;
      case 'logs-truncated':
        run.logs.markTruncated(message.by);
        return;
      case 'done':
        this.#finishRun(child, run, message.outcome);
        return;
    }
  }

  #onCall(child: Child, run: HostRun, call: Omit<CallItem, 'runId'>): void {
    child.callsOut += 1;
    run.callsOut += 1;
    run.answeredAtMessage = undefined;
    run.answerSentAs = undefined;
    void run.bridge.call({ seq: call.seq, toolName: call.toolName, argsJson: call.argsJson }).then((outcome) => {
      child.callsOut -= 1;
      if (child.runs.get(run.runId) !== run) return;
      run.callsOut -= 1;
      run.answeredAtMessage = child.messagesHeard;
      // The call the process is blocked on is answered on its pipe; any other over IPC.
      if (child.blocking?.answer(run.runId, call.seq, outcome) !== true) {
        run.answerSentAs = Number.POSITIVE_INFINITY;
        this.#sendResult(child, { runId: run.runId, seq: call.seq, outcome });
      }
    });
  }

  // The last outstanding call's outcome crosses at once (a sequential program waits on
  // it); while the child has others out, outcomes gather and cross together once the
  // event loop has handled what arrived: one IPC message per loop turn, not per call.
  #sendResult(child: Child, result: CallResultItem): void {
    child.results.push(result);
    if (child.resultsScheduled) return;
    child.resultsScheduled = true;
    const flush = (): void => this.#flushResults(child);
    if (child.callsOut === 0) queueMicrotask(flush);
    else setImmediate(flush);
  }

  #flushResults(child: Child): void {
    child.resultsScheduled = false;
    const results = child.results;
    if (results.length === 0) return;
    child.results = [];
    const [only] = results;
    if (results.length === 1 && only !== undefined) sendNow(child, { type: 'call-result', ...only });
    else sendNow(child, { type: 'call-results', results });
    for (const { runId } of results) {
      const run = child.runs.get(runId);
      if (run?.answerSentAs === Number.POSITIVE_INFINITY) run.answerSentAs = child.ipcSent;
    }
  }

  /** Asks the run's child to end it; kills the child if it does not confirm in time. */
  #cancel(run: HostRun, kind: FailureKind, message: string): void {
    if (run.waiting === true) {
      this.#reruns.withdraw(run);
      endWaiting(run, kind, message);
      return;
    }
    const { child } = run;
    if (run.cancelKind !== undefined || child.runs.get(run.runId) !== run) return;
    run.cancelKind = kind;
    run.cancelMessage = message;
    this.#send(child, { type: 'cancel', runId: run.runId, kind, message });
    const armKill = (graceMs: number, lateAllowed: boolean): void => {
      const now = Date.now();
      const due = now + graceMs;
      // One /proc read per cancel (and per extension), none per run.
      const mark = child.cpuWait?.mark(now);
      run.killTimer = setTimeout(() => {
        // Fired late: this host's own thread was blocked (a synchronous tool, say) and the
        // confirmation may be waiting unread; the child gets back the time nobody listened
        // (once: a host lagging all the time must still kill a hung child).
        const late = Date.now() - due;
        if (lateAllowed && late > LATE_TIMER_MS) {
          armKill(late, false);
          return;
        }
        // Its main thread waited for a CPU meanwhile (an overloaded host): it gets that time
        // back. A stopped or deadlocked one waits for none, a spinning one only for part.
        const starved = child.cpuWait?.waitedSince(mark, Date.now()) ?? 0;
        if (starved > LATE_TIMER_MS) armKill(starved, false);
        // No confirmation: the child is hung (e.g. deadlocked inside isolated-vm).
        else child.process.kill('SIGKILL');
      }, graceMs);
    };
    armKill(this.#hangGraceMs, true);
  }

  #finishRun(child: Child, run: HostRun, outcome: RawRunOutcome): void {
    if (child.runs.get(run.runId) !== run) return;
    child.runs.delete(run.runId);
    // The child restores its demoted threads when its last CPU-bound run ends.
    if (child.heavyRuns.delete(run.runId) && child.heavyRuns.size === 0) child.demoted = false;
    this.#restoreIfUncontended();
    clearTimeout(run.wallTimer);
    clearTimeout(run.killTimer);
    run.resolve(outcome);
    // Its place in a shared re-run process goes to a re-run waiting for one.
    if (this.#reruns.isShared(child)) this.#reruns.startWaiting();
    if (child.runs.size === 0) {
      if (child.draining) child.process.kill('SIGKILL');
      else unrefChild(child);
    }
  }

  #failRuns(child: Child, reason: string): void {
    for (const run of [...child.runs.values()]) {
      const kind = run.cancelKind ?? 'crash';
      if (kind === 'crash' && this.#reruns.queue(child, run)) continue;
      this.#finishRun(child, run, failure(kind, this.#lostMessage(run, kind, reason)));
    }
    this.#reruns.startWaiting();
  }

  #lostMessage(run: HostRun, kind: FailureKind, reason: string): string {
    if (kind !== 'crash') return `${run.cancelMessage ?? kind} (the sandbox process did not respond and was replaced)`;
    if (run.attempt === 1) {
      return `The sandbox process stopped unexpectedly and was replaced; the run was lost (${reason})${this.#reruns.whyNot(run)}.`;
    }
    if (!run.shared) {
      return `The sandbox process stopped unexpectedly again when the run was re-run alone; the run was lost (${reason}).`;
    }
    return `The sandbox process stopped unexpectedly, and again when the run was re-run with other runs; the run was lost (${reason})${this.#reruns.whyNot(run)}.`;
  }

  /** Starts the run's wall clock: `ms` from now, the host cancels it as timed out. */
  #startClock(run: HostRun, ms: number): void {
    run.deadline = Date.now() + ms;
    run.wallTimer = setTimeout(() => this.#cancel(run, 'timeout', wallClockMessage(run.limits.wallTimeMs)), ms);
  }

  /** Sends `message` after any outcomes still gathering, so the child sees them in order. */
  #send(child: Child, message: HostToChild): void {
    this.#flushResults(child);
    sendNow(child, message);
  }
}
