// Sandbox whose isolates live in this process (`isolation: 'in-process'`). Same limits
// as the process mode, but an isolated-vm crash or deadlock would take this process
// with it: use it where a sandbox child process is not an option. CPU lanes as in the
// process mode (cpu-lanes.ts): while other runs are in flight, the threads running
// CPU-bound programs are demoted, so this process's own thread and ordinary runs keep
// the cores; only where the priority can be raised again (else nothing is demoted).
import { CallBridge } from './call-bridge.ts';
import { demoteAndWatch, HEAVY_CPU_MS, mayRestorePriority, restoreAfterRun, restoreThreads } from './cpu-lanes.ts';
import { IsolatePool, residentBeyondReady } from './isolate-pool.ts';
import { DEFAULT_IN_PROCESS_POOL_SIZE } from './pool-size.ts';
import { startIsolateRun } from './isolate-run.ts';
import { resolveLimits } from './limits.ts';
import { finalizeOutcome } from './run-outcome.ts';
import { ABORT_MESSAGE, prepareRun } from './run-request.ts';
import type { RunOutcome, RunRequest, Sandbox, SandboxLimits } from './types.ts';

export interface InProcessSandboxOptions {
  readonly poolSize?: number;
  /** See SandboxOptions.memoryBudgetBytes: the pool fills within it. */
  readonly memoryBudgetBytes?: number;
  /** See SandboxOptions.blockingCalls. @default true */
  readonly blockingCalls?: boolean;
  /** See SandboxOptions.placeBlockingStreaks. @default true */
  readonly placeBlockingStreaks?: boolean;
  readonly limits?: Partial<SandboxLimits>;
  /** How long a run waits for aborted in-flight host calls to settle. @default 2000 */
  readonly settleGraceMs?: number;
}

let warnedParkedThread = false;
let warnedRestore = false;

function warnUnlessRestored(restored: boolean): void {
  if (restored || warnedRestore) return;
  warnedRestore = true;
  console.warn('ptc-runtime sandbox: the priority of a demoted isolate thread could not be restored.');
}

export class InProcessSandbox implements Sandbox {
  readonly #defaults: SandboxLimits;
  readonly #pool: IsolatePool;
  readonly #settleGraceMs: number;
  #closed = false;
  /** Runs holding an isolate now, and those of them reported CPU-bound. */
  #inFlight = 0;
  readonly #heavy = new Set<object>();
  #demoted = false;
  readonly #lanes = mayRestorePriority();
  readonly #placeBlockingStreaks: boolean;

  constructor(options: InProcessSandboxOptions = {}) {
    this.#defaults = resolveLimits(options.limits);
    this.#settleGraceMs = options.settleGraceMs ?? 2_000;
    this.#placeBlockingStreaks = options.placeBlockingStreaks !== false && options.blockingCalls !== false;
    this.#pool = new IsolatePool({
      size: options.poolSize ?? DEFAULT_IN_PROCESS_POOL_SIZE,
      ...(options.memoryBudgetBytes === undefined ? {} : { fillBudgetBytes: options.memoryBudgetBytes }),
      blockingCalls: options.blockingCalls !== false,
      memoryMb: this.#defaults.memoryMb,
      onCatastrophic: (message) => {
        if (warnedParkedThread) return;
        warnedParkedThread = true;
        console.warn(
          `ptc-runtime sandbox: isolated-vm reported "${message}"; one of its threads is parked for good in this process. ` +
            "Prefer isolation: 'process', which replaces the sandbox process instead.",
        );
      },
    });
    this.#pool.replenish();
  }

  /** Resolves when the pool of pre-warmed isolates is full. */
  warm(): Promise<void> {
    return this.#pool.warm();
  }

  async run(request: RunRequest): Promise<RunOutcome> {
    if (this.#closed) throw new Error('sandbox.run: the sandbox is closed');
    const ready = await prepareRun(request, this.#defaults);
    if (ready.outcome !== undefined) return ready.outcome;
    const { toolNames, limits, logs, program, determinism, state } = ready;
    const { signal } = request;
    const prepared = await this.#pool.take(limits.memoryMb);
    let terminate: (kind: 'call-limit' | 'exception' | 'abort', message: string) => void = () => undefined;
    const bridge = new CallBridge({
      hostCall: request.hostCall,
      toolNames,
      maxCalls: limits.maxCalls,
      maxConcurrentCalls: limits.maxConcurrentCalls,
      onViolation: (kind, message) => terminate(kind, message),
    });
    const token = {};
    this.#inFlight += 1;
    this.#demoteIfContended();
    const run = startIsolateRun({
      prepared,
      program,
      toolNames,
      limits,
      determinism,
      state,
      dispatcher: bridge,
      logs,
      placeBlockingStreaks: this.#placeBlockingStreaks,
      ...(this.#lanes
        ? {
            onCpuHeavy: () => {
              this.#heavy.add(token);
              // A later CPU-bound run's thread may have started since the last demotion.
              this.#demoted = false;
              this.#demoteIfContended();
            },
            heavyCpuMs: HEAVY_CPU_MS,
          }
        : {}),
    });
    terminate = run.terminate;
    const onAbort = (): void => run.terminate('abort', ABORT_MESSAGE);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    const raw = await run.outcome;
    this.#inFlight -= 1;
    if (this.#heavy.delete(token) || this.#heavy.size > 0) this.#restoreAfterRun();
    this.#pool.replenish();
    signal?.removeEventListener('abort', onAbort);
    bridge.close();
    await bridge.settled(this.#settleGraceMs);
    return finalizeOutcome(raw, logs, limits, state);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#pool.close();
  }

  /** Demotes the threads running CPU-bound programs once any other run is in flight. */
  #demoteIfContended(): void {
    if (this.#demoted || this.#heavy.size === 0 || this.#inFlight <= this.#heavy.size) return;
    this.#demoted = true;
    void demoteAndWatch(warnUnlessRestored);
  }

  /**
   * A run ended beside CPU-bound ones, or was the last of them: threads it no longer needs
   * demoted serve other runs at full priority. Once only CPU-bound runs are left, they get
   * their priority back too (a later ordinary run demotes them again): kept demoted beside
   * other processes' work, they would get almost no CPU until their wall clock ended them.
   */
  #restoreAfterRun(): void {
    // The last CPU-bound run ended: a later one is demoted afresh.
    if (this.#heavy.size === 0) this.#demoted = false;
    if (this.#demoted && this.#inFlight <= this.#heavy.size) {
      this.#demoted = false;
      warnUnlessRestored(restoreThreads());
      return;
    }
    warnUnlessRestored(restoreAfterRun(this.#heavy.size > 0));
  }

  /** Resident memory of this whole process (its isolates live here), less its ready isolates. */
  memoryInUse(): number {
    return residentBeyondReady(this.#pool);
  }
}
