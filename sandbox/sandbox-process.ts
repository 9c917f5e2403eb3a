// Entry point of the sandbox child process: keeps a pool of pre-warmed isolates and
// runs programs for the host, one fresh isolate per run; nested calls and logs travel
// to the host over IPC. Started by process-sandbox.ts with --no-node-snapshot and --no-sparkplug.
import { callAndWait } from './blocking-call-pipe.ts';
import { notDispatched, type CallDispatcher, type DispatchRequest } from './call-bridge.ts';
import type { CallItem, ChildConfig, ChildToHost, ChildToHostOnWire, HostToChild } from './ipc-messages.ts';
import { demoteAndWatch, HEAVY_CPU_MS, restoreAfterRun, restoreThreads } from './cpu-lanes.ts';
import { IsolatePool, residentBeyondReady } from './isolate-pool.ts';
import { DEFAULT_POOL_SIZE } from './pool-size.ts';
import { startIsolateRun, type IsolateRun } from './isolate-run.ts';
import { LogBuffer, type LogCaps } from './log-buffer.ts';
import { failure } from './run-outcome.ts';
import type { FailureKind, HostCallOutcome } from './types.ts';

/**
 * IPC messages sent to the host, and the host's handled here: a call blocked on the pipes
 * carries both, so the host keeps it in order with the IPC channel (blocking-call-pipe.ts);
 * every IPC message carries the second (`heard`), so when this process dies the host knows
 * which outcomes it never handled (process-sandbox.ts, `#wasWaiting`).
 */
let ipcSent = 0;
let hostMessagesHandled = 0;

function sendNow(message: ChildToHost): void {
  if (process.send === undefined) return;
  try {
    const onWire: ChildToHostOnWire = { ...message, heard: hostMessagesHandled };
    process.send(onWire);
    ipcSent += 1;
  } catch {
    // the host is gone; 'disconnect' ends this process
  }
}

// Calls made in one stretch (a guest batch, or several runs' calls) go to the host in
// one IPC message at the next microtask; any other message sends them first, so the
// host sees everything in the order it happened here.
let queuedCalls: CallItem[] = [];

function queueCall(call: CallItem): void {
  queuedCalls.push(call);
  if (queuedCalls.length === 1) queueMicrotask(flushCalls);
}

function flushCalls(): void {
  const calls = queuedCalls;
  if (calls.length === 0) return;
  queuedCalls = [];
  const [only] = calls;
  if (calls.length === 1 && only !== undefined) sendNow({ type: 'call', ...only });
  else sendNow({ type: 'calls', calls });
}

function send(message: ChildToHost): void {
  flushCalls();
  sendNow(message);
}

class IpcDispatcher implements CallDispatcher {
  readonly #runId: number;
  readonly #pending = new Map<number, { toolName: string; resolve: (outcome: HostCallOutcome) => void }>();
  #closed = false;

  constructor(runId: number) {
    this.#runId = runId;
  }

  call(request: DispatchRequest): Promise<HostCallOutcome> {
    if (this.#closed) return Promise.resolve(notDispatched(request.toolName));
    queueCall({ runId: this.#runId, ...request });
    return new Promise((resolve) => this.#pending.set(request.seq, { toolName: request.toolName, resolve }));
  }

  /**
   * The call the guest is blocked on, while this process has no other run: this thread
   * blocks in read() until the host answers (blocking-call-pipe.ts), so the answer needs
   * no event-loop wake-up here. Undefined when this process has other work (other runs,
   * calls queued) and the call must go over IPC.
   */
  callBlocking(request: DispatchRequest): HostCallOutcome | Promise<HostCallOutcome> | undefined {
    if (this.#closed || !blockingPipe || runs.size !== 1 || queuedCalls.length > 0) return undefined;
    let outcome: HostCallOutcome | undefined | 'not-sent';
    try {
      outcome = callAndWait({ runId: this.#runId, ...request, sent: ipcSent, handled: hostMessagesHandled });
    } catch {
      // The host is gone (as on 'disconnect').
      process.kill(process.pid, 'SIGKILL');
      return undefined;
    }
    if (outcome === 'not-sent') return undefined;
    if (outcome !== undefined) return outcome;
    // Released: the outcome comes over IPC.
    return new Promise((resolve) => this.#pending.set(request.seq, { toolName: request.toolName, resolve }));
  }

  cancel(seq: number): void {
    if (!this.#closed && this.#pending.has(seq)) send({ type: 'cancel-call', runId: this.#runId, seq });
  }

  settle(seq: number, outcome: HostCallOutcome): void {
    const entry = this.#pending.get(seq);
    this.#pending.delete(seq);
    entry?.resolve(outcome);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    // With none of its calls still out (the common end) the host has nothing to abort, and
    // it closes the run's bridge when 'done' arrives anyway: one IPC message fewer a run.
    if (this.#pending.size > 0) send({ type: 'calls-closed', runId: this.#runId });
    for (const [seq, entry] of this.#pending) this.settle(seq, notDispatched(entry.toolName));
  }
}

/** Child-side log cap; what it keeps is forwarded, so logs survive a crash of this process. */
class IpcLogSink {
  readonly #runId: number;
  readonly #buffer: LogBuffer;
  #truncatedSent = false;

  constructor(runId: number, caps: LogCaps) {
    this.#runId = runId;
    this.#buffer = new LogBuffer(caps);
  }

  add(text: string): void {
    const kept = this.#buffer.add(text);
    if (kept !== undefined) send({ type: 'log', runId: this.#runId, text: kept });
    if (this.#buffer.truncated) this.markTruncated(this.#buffer.truncatedBy ?? 'bytes');
  }

  markTruncated(by: 'bytes' | 'lines'): void {
    this.#buffer.markTruncated(by);
    if (this.#truncatedSent) return;
    this.#truncatedSent = true;
    send({ type: 'logs-truncated', runId: this.#runId, by: this.#buffer.truncatedBy ?? by });
  }
}

interface ChildRun {
  readonly dispatcher: IpcDispatcher;
  handle?: IsolateRun;
  cancel?: { kind: FailureKind; message: string };
}

const config = JSON.parse(process.argv[2] ?? '{}') as Partial<ChildConfig>;
/** The host opened the blocking-call pipes (it does when blocking calls are on). */
const blockingPipe = config.blockingCalls !== false;

let retiring = false;
/** The host closed the sandbox: runs still starting end as aborted. */
let closing = false;
const CLOSED_MESSAGE = 'The sandbox was closed.';
const pool = new IsolatePool({
  size: config.poolSize ?? DEFAULT_POOL_SIZE,
  blockingCalls: config.blockingCalls !== false,
  // An isolate a run waits for costs less CPU made on this thread than on isolated-vm's
  // (bench/README "Start CPU per run"); the pool's refills stay on isolated-vm's threads.
  prepareOnThisThread: true,
  memoryMb: config.memoryMb ?? 128,
  ...(config.fillBudgetBytes === undefined ? {} : { fillBudgetBytes: config.fillBudgetBytes }),
  onCatastrophic: (reason) => {
    if (retiring) return;
    retiring = true;
    send({ type: 'retire', reason });
  },
});
const runs = new Map<number, ChildRun>();
/** Runs reported CPU-bound (cpu-lanes.ts). */
const heavyRuns = new Set<number>();

/**
 * While runs are in flight, this process's memory figure (resident, less its ready
 * isolates) goes to the host every MEMORY_REPORT_MS when it has moved by MEMORY_REPORT_STEP
 * since the last one sent: admission by memory sees a run's heap grow between the
 * messages that carry the figure anyway (ready, done, the heartbeat's pong, ~1 s apart).
 */
const MEMORY_REPORT_MS = 250;
const MEMORY_REPORT_STEP = 1_048_576;
let memoryReported = 0;
let memoryTimer: ReturnType<typeof setInterval> | undefined;

/** The figure, noted as the last one the host was sent. */
function memoryFigure(): number {
  memoryReported = residentBeyondReady(pool);
  return memoryReported;
}

function reportMemoryWhileBusy(): void {
  if (memoryTimer !== undefined) return;
  memoryTimer = setInterval(() => {
    if (runs.size === 0) {
      clearInterval(memoryTimer);
      memoryTimer = undefined;
      return;
    }
    if (Math.abs(residentBeyondReady(pool) - memoryReported) >= MEMORY_REPORT_STEP) {
      send({ type: 'memory', rss: memoryFigure() });
    }
  }, MEMORY_REPORT_MS);
}

/** A demoted thread could not get its priority back: this process is replaced once its runs end. */
function retireUnlessRestored(restored: boolean): void {
  if (restored || retiring) return;
  retiring = true;
  send({ type: 'retire', reason: 'the priority of its demoted threads could not be restored' });
}

async function startRun(message: Extract<HostToChild, { type: 'run' }>): Promise<void> {
  const { runId, program, toolNames, limits, determinism, state } = message;
  const run: ChildRun = { dispatcher: new IpcDispatcher(runId) };
  runs.set(runId, run);
  reportMemoryWhileBusy();
  try {
    const prepared = await pool.take(limits.memoryMb);
    const handle = startIsolateRun({
      prepared,
      program: { ...program, sourceMap: '' },
      toolNames,
      limits,
      determinism,
      state,
      dispatcher: run.dispatcher,
      logs: new IpcLogSink(runId, { maxBytes: limits.maxLogBytes, maxLines: limits.maxLogLines }),
      onCpuHeavy: () => {
        heavyRuns.add(runId);
        send({ type: 'heavy', runId });
      },
      heavyCpuMs: HEAVY_CPU_MS,
    });
    run.handle = handle;
    if (run.cancel !== undefined) handle.terminate(run.cancel.kind, run.cancel.message);
    const outcome = await handle.outcome;
    send({ type: 'done', runId, outcome, rss: memoryFigure() });
    pool.replenish();
  } catch (error) {
    // Closed or cancelled while its isolate was being prepared: that is how it ended.
    const ended = run.cancel ?? (closing ? { kind: 'abort' as const, message: CLOSED_MESSAGE } : undefined);
    send({
      type: 'done',
      runId,
      outcome:
        ended !== undefined
          ? failure(ended.kind, ended.message)
          : failure('crash', `the sandbox process could not start the run: ${String(error)}`),
    });
  } finally {
    run.dispatcher.close();
    runs.delete(runId);
    const wasHeavy = heavyRuns.delete(runId);
    if (heavyRuns.size > 0 || wasHeavy) retireUnlessRestored(restoreAfterRun(heavyRuns.size > 0));
  }
}

function onMessage(value: unknown): void {
  const message = value as HostToChild;
  switch (message.type) {
    case 'run':
      void startRun(message);
      return;
    case 'call-result':
      runs.get(message.runId)?.dispatcher.settle(message.seq, message.outcome);
      return;
    case 'call-results':
      for (const result of message.results) runs.get(result.runId)?.dispatcher.settle(result.seq, result.outcome);
      return;
    case 'cancel': {
      const run = runs.get(message.runId);
      if (run === undefined) return;
      run.cancel ??= { kind: message.kind, message: message.message };
      run.handle?.terminate(message.kind, message.message);
      return;
    }
    case 'demote':
      // Again for each later CPU-bound run: its thread may have started since. None left:
      // the host asked before the last one's 'done' reached it, and a thread spinning now
      // is an ordinary run's.
      if (heavyRuns.size === 0) return;
      void demoteAndWatch(retireUnlessRestored);
      return;
    case 'restore':
      // The CPU-bound runs are alone now: nothing of ours to make way for.
      retireUnlessRestored(restoreThreads());
      return;
    case 'ping':
      send({ type: 'pong', rss: memoryFigure() });
      return;
    case 'close':
      closing = true;
      pool.close();
      for (const run of runs.values()) run.handle?.terminate('abort', CLOSED_MESSAGE);
      setImmediate(() => process.exit(0));
      return;
  }
}

process.on('message', (value) => {
  hostMessagesHandled += 1;
  try {
    onMessage(value);
  } catch {
    // a malformed message from the host: ignore it
  }
});
// The host is gone. Not process.exit(): its teardown waits for the isolates, and one
// still busy in native code (a huge BigInt product, say) would leave this process behind.
process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
send({ type: 'ready', pid: process.pid, rss: memoryFigure() });
pool.replenish();
