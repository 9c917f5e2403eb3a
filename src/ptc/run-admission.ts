// Admission of run_code runs by resources, not by count. A run awaiting tools costs a
// context and some memory, not CPU; so two things bound what a runtime takes on:
//  - CPU: at most `cpuSlots` runs (default 4 per core) may be starting or executing at
//    once. A run holds its slot only while it is CPU-active: from admission until its
//    first nested call goes out, and again whenever it has no nested call in flight. A run
//    that stays CPU-active for longer than `sliceMs` gives its slot up (it runs on; the OS
//    shares the cores between such runs, and the process sandbox moves new runs away from
//    them, see process-sandbox.ts), so CPU-bound programs never hold the queue behind them.
//  - memory: each admitted run reserves what it may use — its heap limit plus
//    `runFootprintBytes` off the heap (context, prelude, buffers) — and a run is admitted
//    only if the reservations of all runs in flight, its own included, stay within
//    `memoryBudgetBytes` and so does the sandbox's measured memory plus its reservation
//    (the measure leaves out the isolates the sandbox keeps ready for runs).
//  - fairness: runs are admitted per tenant (the call's principal, else its agent). A
//    tenant that has runs in flight may reserve at most the budget minus one run's
//    reservation, so another tenant's first run always finds room; and memory that frees
//    up goes to the waiting tenant that holds the least, not to the longest queue.
// A run that cannot start waits (FIFO within its tenant) for at most `queueTimeoutMs`; then
// (or at once, when it can never fit) it is refused with the budget that held it and when
// to retry.
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
  /** Bytes the runs in flight may reserve together (each its heap limit plus runFootprintBytes). @default half of the machine's memory, or of the container's limit when lower */
  readonly memoryBudgetBytes?: number;
  /** Bytes one run holds off its heap (its context, the prelude), reserved with its heap limit. @default 4 MiB */
  readonly runFootprintBytes?: number;
  /** How long a run may wait for admission before it is refused. @default 10000 */
  readonly queueTimeoutMs?: number;
  /** Bytes the sandbox holds now, measured (process RSS), if it can tell. */
  readonly measureMemory?: () => number | undefined;
}

/**
 * `memory`: the memory budget of all runs; `tenant-share`: the part of it one tenant
 * (principal, else agent) may hold while others may need room; `queue-time`: CPU slots.
 */
export type RefusalReason = 'memory' | 'tenant-share' | 'queue-time';

/** Whose share a run counts against: the principal it is for, else its agent (the global scope is ''). */
export function admissionTenant(principal: string | undefined, agent: string | undefined): string {
  if (principal !== undefined) return `principal:${principal}`;
  return agent === undefined ? '' : `agent:${agent}`;
}

/** The budget each reason names, as a refusal states it. */
export const REFUSAL_BUDGETS: Readonly<Record<RefusalReason, string>> = {
  memory: 'memory budget',
  'tenant-share': "this tenant's share of the memory budget",
  'queue-time': 'queue time',
};

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

  /** The budget that held the run, in words. */
  get budget(): string {
    return REFUSAL_BUDGETS[this.reason];
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
  /** Its reservation: heapBytes + runFootprintBytes. */
  readonly bytes: number;
  readonly tenant: string;
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
  /** Waiting runs by tenant, each FIFO (a tenant with none waiting has no entry). */
  readonly #queues = new Map<string, Waiter[]>();
  #queued = 0;
  /** Bytes reserved by the runs in flight, in all and by tenant. */
  #reserved = 0;
  readonly #reservedBy = new Map<string, number>();
  /** Runs in flight by tenant. */
  readonly #runsBy = new Map<string, number>();
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
    return this.#queued;
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

  /** Bytes the runs in flight reserve (heap limits plus footprints), or what is measured if that is more. */
  get reservedBytes(): number {
    let measured: number | undefined;
    try {
      measured = this.#measure?.();
    } catch {
      measured = undefined;
    }
    return typeof measured === 'number' && Number.isFinite(measured)
      ? Math.max(measured, this.#reserved)
      : this.#reserved;
  }

  /** Bytes the runs in flight reserve, as admitted (never more than the budget). */
  get admittedBytes(): number {
    return this.#reserved;
  }

  /**
   * Admits a run whose heap may grow to `heapBytes`: at once if a CPU slot and the memory
   * are free and nobody is queued, else after waiting its turn. Rejects with an
   * AdmissionRefusal (or the signal's reason).
   */
  admit(heapBytes: number, signal?: AbortSignal, tenant = ''): Promise<AdmissionTicket> {
    const bytes = heapBytes + this.runFootprintBytes;
    if (bytes > this.memoryBudgetBytes) {
      return Promise.reject(
        new AdmissionRefusal(
          'memory',
          `its heap limit (${mib(heapBytes)} MiB) and off-heap footprint (${mib(this.runFootprintBytes)} MiB) are larger than the memory budget of all runs (${mib(this.memoryBudgetBytes)} MiB); ` +
            'lower limits.memoryMb or raise admission.memoryBudgetBytes. Retrying will not help.',
          0,
        ),
      );
    }
    if (this.#queued === 0 && this.#fits(bytes, tenant)) return Promise.resolve(this.#ticket(bytes, tenant));
    // A run given no signal shares NEVER_ABORTED with every other: a listener on it per
    // queued run would make each add and remove walk all the others' (a burst's queue).
    const abortable = signal === NEVER_ABORTED ? undefined : signal;
    return new Promise<AdmissionTicket>((resolve, reject) => {
      const waiter: Waiter = { heapBytes, bytes, tenant, since: this.#now(), resolve, reject, done: false };
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
      const queue = this.#queues.get(tenant);
      if (queue === undefined) this.#queues.set(tenant, [waiter]);
      else queue.push(waiter);
      this.#queued += 1;
      // Slices may have ended since the queue was last checked.
      this.#pump();
    });
  }

  #fits(bytes: number, tenant: string): boolean {
    return this.cpuActive < this.cpuSlots && this.#memoryHolds(bytes, tenant) === undefined;
  }

  /** Which budget a run of `bytes` for `tenant` would break now, if any. */
  #memoryHolds(bytes: number, tenant: string): 'memory' | 'tenant-share' | undefined {
    if (this.reservedBytes + bytes > this.memoryBudgetBytes) return 'memory';
    // A tenant's later runs leave one run's room for everyone else.
    if ((this.#runsBy.get(tenant) ?? 0) > 0 && (this.#reservedBy.get(tenant) ?? 0) + 2 * bytes > this.memoryBudgetBytes)
      return 'tenant-share';
    return undefined;
  }

  #ticket(bytes: number, tenant: string): AdmissionTicket {
    const run: Admitted = { activeSince: this.#now(), prev: undefined, next: undefined };
    this.#inFlight += 1;
    this.#reserved += bytes;
    this.#reservedBy.set(tenant, (this.#reservedBy.get(tenant) ?? 0) + bytes);
    this.#runsBy.set(tenant, (this.#runsBy.get(tenant) ?? 0) + 1);
    this.#linkActive(run);
    let released = false;
    // With nobody queued and no slice timer, pump and the timer's check would do nothing.
    const idle = (): boolean => this.#queued === 0 && this.#sliceTimer === undefined;
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
        this.#reserved -= bytes;
        const left = this.#reservedBy.get(tenant)! - bytes;
        const runs = this.#runsBy.get(tenant)! - 1;
        if (runs === 0) {
          this.#reservedBy.delete(tenant);
          this.#runsBy.delete(tenant);
        } else {
          this.#reservedBy.set(tenant, left);
          this.#runsBy.set(tenant, runs);
        }
        if (run.activeSince !== undefined) this.#unlinkActive(run);
        this.#pump();
      },
    };
  }

  /**
   * Admits queued runs while one fits: of the tenants waiting, the one holding the least
   * goes first (its longest-waiting run), so a tenant's flood does not starve the others.
   */
  #pump(): void {
    while (this.#queued > 0 && this.cpuActive < this.cpuSlots) {
      const head = this.#nextFitting();
      if (head === undefined) break;
      this.#dequeue(head);
      head.done = true;
      clearTimeout(head.timer);
      this.#recentWaitMs = this.#now() - head.since;
      head.resolve(this.#ticket(head.bytes, head.tenant));
    }
    this.#armSliceTimer();
  }

  /** The head of the least-holding tenant's queue that fits now, if any. */
  #nextFitting(): Waiter | undefined {
    let best: Waiter | undefined;
    let bestHeld = Number.POSITIVE_INFINITY;
    for (const [tenant, queue] of this.#queues) {
      const held = this.#reservedBy.get(tenant) ?? 0;
      const head = queue[0]!;
      if (held < bestHeld && this.#memoryHolds(head.bytes, tenant) === undefined) {
        best = head;
        bestHeld = held;
      }
    }
    return best;
  }

  #dequeue(waiter: Waiter): void {
    const queue = this.#queues.get(waiter.tenant);
    const at = queue === undefined ? -1 : queue.indexOf(waiter);
    if (at < 0) return;
    queue!.splice(at, 1);
    if (queue!.length === 0) this.#queues.delete(waiter.tenant);
    this.#queued -= 1;
  }

  /** While runs wait, wakes up when the first CPU-active run's slice ends (its slot frees then). */
  #armSliceTimer(): void {
    if (this.#queued === 0) {
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
    this.#dequeue(waiter);
    this.#pump();
  }

  #timedOut(waiter: Waiter): AdmissionRefusal {
    const held = this.#memoryHolds(waiter.bytes, waiter.tenant);
    const memoryShort = held === 'memory';
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
          `and this run's reservation (heap limit ${mib(waiter.heapBytes)} MiB + ${mib(this.runFootprintBytes)} MiB off-heap) did not fit within ${this.queueTimeoutMs} ms; it did not run. ` +
          `Retry in about ${Math.ceil(retryAfterMs / 1_000)} s, once runs have finished.`,
        retryAfterMs,
      );
    }
    if (held === 'tenant-share') {
      const tenant = waiter.tenant === '' ? 'the global scope' : `"${waiter.tenant.slice(0, 80)}"`;
      return new AdmissionRefusal(
        'tenant-share',
        `the ${this.#runsBy.get(waiter.tenant) ?? 0} runs in flight of ${tenant} reserve ${mib(this.#reservedBy.get(waiter.tenant) ?? 0)} MiB, ` +
          `and one tenant (principal, else agent) may hold at most the ${mib(this.memoryBudgetBytes)} MiB memory budget minus room for one run of another; ` +
          `this run did not fit within ${this.queueTimeoutMs} ms and did not run. Retry in about ${Math.ceil(retryAfterMs / 1_000)} s, once your runs have finished.`,
        retryAfterMs,
      );
    }
    return new AdmissionRefusal(
      'queue-time',
      `it waited ${this.queueTimeoutMs} ms for a CPU slot (${this.cpuSlots} runs may execute at once; ${this.#queued} more are queued) and did not run. ` +
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
