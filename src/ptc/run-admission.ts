// Admission of run_code runs by resources, not by count. A run awaiting tools costs a
// context and some memory, not CPU; so two things bound what a runtime takes on:
//  - CPU: at most `cpuSlots` runs (default 4 per core) may be starting or executing at
//    once. A run holds its slot only while it is CPU-active: from admission until its
//    first nested call goes out, and again whenever it has no nested call in flight. A run
//    that stays CPU-active for longer than `sliceMs` gives its slot up (it runs on; the OS
//    shares the cores between such runs, and the process sandbox moves new runs away from
//    them, see process-sandbox.ts), so CPU-bound programs never hold the queue behind them.
//  - memory: the runs in flight reserve max(measured, runs × footprint) bytes (the
//    sandbox's measure leaves out the isolates it keeps ready for runs); a run is
//    admitted only if its whole heap limit still fits under `memoryBudgetBytes`.
// A run that cannot start waits in a FIFO queue for at most `queueTimeoutMs`; then (or at
// once, when it can never fit) it is refused with the reason and when to retry.
import { availableParallelism, totalmem } from 'node:os';
import { NEVER_ABORTED } from '../pipeline/never-aborted.ts';

/** CPU-active runs per core. @default 4 */
export const DEFAULT_CPU_SLOTS_PER_CORE = 4;
/** How long a run may stay CPU-active holding a slot. @default 100 */
export const DEFAULT_SLICE_MS = 100;
/** How long a run may wait for admission. @default 10000 */
export const DEFAULT_QUEUE_TIMEOUT_MS = 10_000;
/**
 * What one run in flight is assumed to hold when nothing newer is measured: a fresh
 * isolate with its context and the guest prelude measures ~1.8 MiB resident; 4 MiB
 * leaves room for a small working set.
 */
export const DEFAULT_RUN_FOOTPRINT_BYTES = 4 * 1_048_576;

/**
 * The memory budget when none is given: half of the memory this process may use — the
 * machine's, or its container's limit (cgroup) when that is lower: in a container the
 * machine's memory is not what the kernel lets the process have.
 */
export function defaultMemoryBudgetBytes(
  machineBytes: number = totalmem(),
  constrainedBytes: number = process.constrainedMemory(),
): number {
  // No constraint reads as 0 or as an enormous number, depending on the platform.
  const usable = constrainedBytes > 0 && constrainedBytes < machineBytes ? constrainedBytes : machineBytes;
  return Math.floor(usable / 2);
}

/** `cpuSlotsPerCore` × the cores Node may use. */
export function defaultCpuSlots(): number {
  return DEFAULT_CPU_SLOTS_PER_CORE * Math.max(1, availableParallelism());
}

/** How run_code runs are admitted (`createToolRuntime({ admission })`). */
export interface AdmissionOptions {
  /** Runs starting or executing at once (runs awaiting tools do not count). @default 4 × cores */
  readonly cpuSlots?: number;
  /** A run CPU-active longer than this stops holding a CPU slot. @default 100 */
  readonly sliceMs?: number;
  /** Bytes the runs in flight may reserve together (each new run needs its heap limit free). @default half of the machine's memory, or of the container's limit when lower */
  readonly memoryBudgetBytes?: number;
  /** Bytes one run in flight is assumed to hold, unless the sandbox measures more. @default 4 MiB */
  readonly runFootprintBytes?: number;
  /** How long a run may wait for admission before it is refused. @default 10000 */
  readonly queueTimeoutMs?: number;
  /** Bytes the sandbox holds now, measured (process RSS), if it can tell. */
  readonly measureMemory?: () => number | undefined;
}

export type RefusalReason = 'memory' | 'queue-time';

/** A run that was not admitted: why, and after how long a retry may work. */
export class AdmissionRefusal extends Error {
  readonly reason: RefusalReason;
  readonly retryAfterMs: number;
  constructor(reason: RefusalReason, message: string, retryAfterMs: number) {
    super(message);
    this.name = 'AdmissionRefusal';
    this.reason = reason;
    this.retryAfterMs = retryAfterMs;
  }
}

/** An admitted run: tells the admission whether it is awaiting tools; release it once, at the end. */
export interface AdmissionTicket {
  /** A nested call went out (with none out before): the run no longer needs CPU. */
  waiting(): void;
  /** Its last nested call came back: the run executes again (it takes its slot back at once). */
  active(): void;
  release(): void;
}

interface Waiter {
  readonly heapBytes: number;
  readonly since: number;
  readonly resolve: (ticket: AdmissionTicket) => void;
  readonly reject: (error: Error) => void;
  timer?: ReturnType<typeof setTimeout>;
  done: boolean;
}

interface Admitted {
  /** When it last became CPU-active; undefined while it awaits tools. */
  activeSince: number | undefined;
  /** Its neighbours in the list of CPU-active runs (while it is in it). */
  prev: Admitted | undefined;
  next: Admitted | undefined;
}

export class RunAdmission {
  readonly cpuSlots: number;
  readonly sliceMs: number;
  readonly memoryBudgetBytes: number;
  readonly runFootprintBytes: number;
  readonly queueTimeoutMs: number;
  readonly #measure: (() => number | undefined) | undefined;
  readonly #now: () => number;
  /** Runs admitted and not yet released (a count: no set of them is ever walked). */
  #inFlight = 0;
  /**
   * The CPU-active runs (`activeSince` set: within their slice or past it), linked through
   * their own fields: counting slots walks these few, not every run in flight (a burst holds
   * hundreds awaiting tools, and the count is taken for each run admitted). Not a set: a run
   * that awaits one tool call at a time leaves and rejoins on every call, here a few pointer
   * writes (a set's delete reallocates a table that drops to empty).
   */
  #activeHead: Admitted | undefined;
  readonly #queue: Waiter[] = [];
  #sliceTimer: ReturnType<typeof setTimeout> | undefined;
  /** Recent admission waits, for the retry hint. */
  #recentWaitMs = 0;

  constructor(options: AdmissionOptions = {}, now: () => number = () => performance.now()) {
    this.cpuSlots = positiveInt('cpuSlots', options.cpuSlots ?? defaultCpuSlots());
    this.sliceMs = positiveInt('sliceMs', options.sliceMs ?? DEFAULT_SLICE_MS);
    this.memoryBudgetBytes = positiveInt('memoryBudgetBytes', options.memoryBudgetBytes ?? defaultMemoryBudgetBytes());
    this.runFootprintBytes = positiveInt('runFootprintBytes', options.runFootprintBytes ?? DEFAULT_RUN_FOOTPRINT_BYTES);
    this.queueTimeoutMs = positiveInt('queueTimeoutMs', options.queueTimeoutMs ?? DEFAULT_QUEUE_TIMEOUT_MS);
    if (options.measureMemory !== undefined && typeof options.measureMemory !== 'function') {
      throw new TypeError('admission: measureMemory must be a function returning bytes');
    }
    this.#measure = options.measureMemory;
    this.#now = now;
  }

  /** Runs admitted and not released. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Runs waiting for admission. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Runs holding a CPU slot now (CPU-active, within their slice). */
  get cpuActive(): number {
    const now = this.#now();
    let count = 0;
    for (let run = this.#activeHead; run !== undefined; run = run.next) {
      if (now - run.activeSince! < this.sliceMs) count++;
    }
    return count;
  }

  /** Bytes the runs in flight reserve: measured, or the footprint estimate if that is more. */
  get reservedBytes(): number {
    let measured: number | undefined;
    try {
      measured = this.#measure?.();
    } catch {
      measured = undefined;
    }
    const estimate = this.#inFlight * this.runFootprintBytes;
    return typeof measured === 'number' && Number.isFinite(measured) ? Math.max(measured, estimate) : estimate;
  }

  /**
   * Admits a run whose heap may grow to `heapBytes`: at once if a CPU slot and the memory
   * are free and nobody is queued, else after waiting its turn. Rejects with an
   * AdmissionRefusal (or the signal's reason).
   */
  admit(heapBytes: number, signal?: AbortSignal): Promise<AdmissionTicket> {
    if (heapBytes > this.memoryBudgetBytes) {
      return Promise.reject(
        new AdmissionRefusal(
          'memory',
          `its heap limit (${mib(heapBytes)} MiB) is larger than the memory budget of all runs (${mib(this.memoryBudgetBytes)} MiB); ` +
            'lower limits.memoryMb or raise admission.memoryBudgetBytes. Retrying will not help.',
          0,
        ),
      );
    }
    if (this.#queue.length === 0 && this.#fits(heapBytes)) return Promise.resolve(this.#ticket());
    // A run given no signal shares NEVER_ABORTED with every other: a listener on it per
    // queued run would make each add and remove walk all the others' (a burst's queue).
    const abortable = signal === NEVER_ABORTED ? undefined : signal;
    return new Promise<AdmissionTicket>((resolve, reject) => {
      const waiter: Waiter = { heapBytes, since: this.#now(), resolve, reject, done: false };
      const onAbort = (): void => {
        if (waiter.done) return;
        this.#drop(waiter);
        reject(abortable?.reason instanceof Error ? abortable.reason : new Error('The run was cancelled.'));
      };
      waiter.timer = setTimeout(() => {
        if (waiter.done) return;
        this.#drop(waiter);
        abortable?.removeEventListener('abort', onAbort);
        reject(this.#timedOut(waiter));
      }, this.queueTimeoutMs);
      abortable?.addEventListener('abort', onAbort, { once: true });
      const settle = waiter.resolve;
      (waiter as { resolve: (ticket: AdmissionTicket) => void }).resolve = (ticket) => {
        abortable?.removeEventListener('abort', onAbort);
        settle(ticket);
      };
      this.#queue.push(waiter);
      // Slices may have ended since the queue was last checked.
      this.#pump();
    });
  }

  #fits(heapBytes: number): boolean {
    return this.cpuActive < this.cpuSlots && this.reservedBytes + heapBytes <= this.memoryBudgetBytes;
  }

  #ticket(): AdmissionTicket {
    const run: Admitted = { activeSince: this.#now(), prev: undefined, next: undefined };
    this.#inFlight += 1;
    this.#linkActive(run);
    let released = false;
    // With nobody queued and no slice timer, pump and the timer's check would do nothing.
    const idle = (): boolean => this.#queue.length === 0 && this.#sliceTimer === undefined;
    return {
      waiting: () => {
        if (released || run.activeSince === undefined) return;
        run.activeSince = undefined;
        this.#unlinkActive(run);
        if (!idle()) this.#pump();
      },
      active: () => {
        if (released || run.activeSince !== undefined) return;
        run.activeSince = this.#now();
        this.#linkActive(run);
        if (!idle()) this.#armSliceTimer();
      },
      release: () => {
        if (released) return;
        released = true;
        this.#inFlight -= 1;
        if (run.activeSince !== undefined) this.#unlinkActive(run);
        this.#pump();
      },
    };
  }

  /** Admits queued runs, in order, while the head fits. */
  #pump(): void {
    while (this.#queue.length > 0) {
      const head = this.#queue[0]!;
      if (!this.#fits(head.heapBytes)) break;
      this.#queue.shift();
      head.done = true;
      clearTimeout(head.timer);
      this.#recentWaitMs = this.#now() - head.since;
      head.resolve(this.#ticket());
    }
    this.#armSliceTimer();
  }

  /** While runs wait, wakes up when the first CPU-active run's slice ends (its slot frees then). */
  #armSliceTimer(): void {
    if (this.#queue.length === 0) {
      clearTimeout(this.#sliceTimer);
      this.#sliceTimer = undefined;
      return;
    }
    if (this.#sliceTimer !== undefined) return;
    const now = this.#now();
    let next = Number.POSITIVE_INFINITY;
    for (let run = this.#activeHead; run !== undefined; run = run.next) {
      const end = run.activeSince! + this.sliceMs;
      if (end > now) next = Math.min(next, end);
    }
    if (next === Number.POSITIVE_INFINITY) return;
    this.#sliceTimer = setTimeout(
      () => {
        this.#sliceTimer = undefined;
        this.#pump();
      },
      Math.max(1, Math.ceil(next - now)),
    );
    this.#sliceTimer.unref?.();
  }

  #linkActive(run: Admitted): void {
    run.prev = undefined;
    run.next = this.#activeHead;
    if (this.#activeHead !== undefined) this.#activeHead.prev = run;
    this.#activeHead = run;
  }

  #unlinkActive(run: Admitted): void {
    if (run.prev === undefined) this.#activeHead = run.next;
    else run.prev.next = run.next;
    if (run.next !== undefined) run.next.prev = run.prev;
    run.prev = undefined;
    run.next = undefined;
  }

  #drop(waiter: Waiter): void {
    waiter.done = true;
    clearTimeout(waiter.timer);
    const at = this.#queue.indexOf(waiter);
    if (at >= 0) this.#queue.splice(at, 1);
    this.#pump();
  }

  #timedOut(waiter: Waiter): AdmissionRefusal {
    const memoryShort = this.reservedBytes + waiter.heapBytes > this.memoryBudgetBytes;
    // A run usually gets in within about one slice per queued run per slot; the wait the
    // last admitted run had says how long the queue takes now.
    const retryAfterMs = Math.max(1_000, Math.ceil(Math.max(this.#recentWaitMs, this.sliceMs) / 1_000) * 1_000);
    if (memoryShort && this.#inFlight === 0) {
      // Nothing to wait for: the memory is the sandbox's own (or other code in this process).
      return new AdmissionRefusal(
        'memory',
        `no runs are in flight, yet the sandbox already holds ${mib(this.reservedBytes)} MiB of the ${mib(this.memoryBudgetBytes)} MiB memory budget ` +
          `(its measured resident memory, not counting isolates kept ready for runs), and this run's heap limit (${mib(waiter.heapBytes)} MiB) did not fit ` +
          `within ${this.queueTimeoutMs} ms; it did not run. Raise admission.memoryBudgetBytes or lower limits.memoryMb; retrying may not help.`,
        retryAfterMs,
      );
    }
    if (memoryShort) {
      return new AdmissionRefusal(
        'memory',
        `the ${this.#inFlight} runs in flight reserve ${mib(this.reservedBytes)} MiB of the ${mib(this.memoryBudgetBytes)} MiB memory budget, ` +
          `and this run's heap limit (${mib(waiter.heapBytes)} MiB) did not fit within ${this.queueTimeoutMs} ms; it did not run. ` +
          `Retry in about ${Math.ceil(retryAfterMs / 1_000)} s, once runs have finished.`,
        retryAfterMs,
      );
    }
    return new AdmissionRefusal(
      'queue-time',
      `it waited ${this.queueTimeoutMs} ms for a CPU slot (${this.cpuSlots} runs may execute at once; ${this.#queue.length} more are queued) and did not run. ` +
        `Retry in about ${Math.ceil(retryAfterMs / 1_000)} s.`,
      retryAfterMs,
    );
  }
}

function mib(bytes: number): number {
  return Math.round(bytes / 1_048_576);
}

function positiveInt(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`admission: ${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}
