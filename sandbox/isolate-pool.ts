// Pre-warmed, single-use isolates: each holds a fresh context with the guest prelude
// already evaluated, so a run only configures it and evaluates the program. A small
// pool is refilled in the background, one isolate at a time, and grows with the bursts
// it has seen: isolates nobody takes are never prepared.
import ivm from 'isolated-vm';
import {
  BLOCKING_CALL_GLOBAL,
  CONFIGURE_GLOBAL,
  DELIVER_GLOBAL,
  GUEST_PRELUDE_SOURCE,
  GUEST_URL_LIBRARY_SOURCE,
  SEND_GLOBAL,
  URL_LIBRARY_GLOBAL,
} from './guest-prelude.ts';
import type { GuestLink, IsolateForRun } from './isolate-for-run.ts';
import { warmUpRun } from './prelude-warm-up.ts';

export type { GuestLink } from './isolate-for-run.ts';

export class PreparedIsolate implements IsolateForRun {
  readonly isolate: ivm.Isolate;
  readonly context: ivm.Context;
  readonly memoryMb: number;
  /** The prelude's `configure(json)`, held by the host only. */
  readonly configure: ivm.Reference<(json: string) => void>;
  /** The prelude's `deliver(json)`, held by the host only. */
  readonly deliver: ivm.Reference<(json: string) => void>;
  #link: GuestLink | undefined;
  #catastrophic: string | undefined;
  #disposed = false;

  private constructor(
    isolate: ivm.Isolate,
    context: ivm.Context,
    memoryMb: number,
    configure: ivm.Reference<(json: string) => void>,
    deliver: ivm.Reference<(json: string) => void>,
  ) {
    this.isolate = isolate;
    this.context = context;
    this.memoryMb = memoryMb;
    this.configure = configure;
    this.deliver = deliver;
  }

  static async create(
    memoryMb: number,
    onCatastrophic?: (message: string) => void,
    blockingCalls = true,
    onThisThread = false,
  ): Promise<PreparedIsolate> {
    let prepared: PreparedIsolate | undefined;
    const isolate = new ivm.Isolate({
      memoryLimit: memoryMb,
      // Without a handler isolated-vm aborts the whole process; with one, only the
      // isolate's thread is parked for good. Never touch such an isolate again.
      onCatastrophicError: (message: string) => {
        try {
          onCatastrophic?.(message);
          prepared?.reportCatastrophic(message);
        } catch {
          // nothing may escape into isolated-vm
        }
      },
    });
    try {
      const context = onThisThread ? isolate.createContextSync() : await isolate.createContext();
      const send = new ivm.Callback(
        (text: unknown) => {
          try {
            if (typeof text === 'string') prepared?.receive(text);
          } catch {
            // nothing may escape into isolated-vm
          }
        },
        { ignored: true },
      );
      const globals: [string, unknown][] = [[SEND_GLOBAL, send]];
      if (blockingCalls) {
        // A reply known at once is returned as it is, not as a promise: isolated-vm then
        // hands it over inside this call, with nothing left pending (see isolate-run.ts end()).
        // A promised reply never reaches isolated-vm rejected, and the run learns when it settled.
        const settled = (reply: string): string => {
          prepared?.blockingReplySettled();
          return reply;
        };
        const failed = (): string => settled('');
        const blocking = new ivm.Reference((text: unknown): string | Promise<string> => {
          try {
            const reply = typeof text === 'string' && prepared !== undefined ? prepared.receiveBlocking(text) : '';
            return typeof reply === 'string' ? reply : reply.then(settled, failed);
          } catch {
            return ''; // nothing may escape into isolated-vm
          }
        });
        globals.push([BLOCKING_CALL_GLOBAL, blocking]);
      }
      // One copy of the URL library's text per process: each isolate gets a string that
      // refers to it (isolated-vm makes strings of 1 KiB and more external, not copied).
      urlLibrary ??= new ivm.ExternalCopy(GUEST_URL_LIBRARY_SOURCE);
      globals.push([URL_LIBRARY_GLOBAL, urlLibrary.copyInto()]);
      // The first isolate of a process waits for the warm code cache (once, ~20 ms).
      if (!preludeCacheWarm) await warmPreludeCache(memoryMb, blockingCalls);
      let configure: ivm.Reference<(json: string) => void>;
      let deliver: ivm.Reference<(json: string) => void>;
      if (onThisThread) {
        for (const [name, value] of globals) context.global.setSync(name, value);
        const script = await compilePrelude(isolate, true);
        script.runSync(context);
        script.release();
        configure = context.global.getSync(CONFIGURE_GLOBAL, { reference: true }) as typeof configure;
        deliver = context.global.getSync(DELIVER_GLOBAL, { reference: true }) as typeof deliver;
        context.global.deleteSync(CONFIGURE_GLOBAL);
        context.global.deleteSync(DELIVER_GLOBAL);
      } else {
        for (const [name, value] of globals) await context.global.set(name, value);
        const script = await compilePrelude(isolate, false);
        await script.run(context);
        script.release();
        configure = (await context.global.get(CONFIGURE_GLOBAL, { reference: true })) as typeof configure;
        deliver = (await context.global.get(DELIVER_GLOBAL, { reference: true })) as typeof deliver;
        await context.global.delete(CONFIGURE_GLOBAL);
        await context.global.delete(DELIVER_GLOBAL);
      }
      prepared = new PreparedIsolate(isolate, context, memoryMb, configure, deliver);
      return prepared;
    } catch (error) {
      if (!isolate.isDisposed) isolate.dispose();
      throw error;
    }
  }

  /** Internal: a message from the guest prelude. */
  receive(text: string): void {
    this.#link?.onMessage(text);
  }

  /** Internal: a call the guest blocks on; '' when no run is bound or it takes none. */
  receiveBlocking(text: string): Promise<string> | string {
    const link = this.#link;
    return link?.onBlockingCall === undefined ? '' : link.onBlockingCall(text);
  }

  /** Internal: the promised reply of a blocking call has settled. */
  blockingReplySettled(): void {
    try {
      this.#link?.onBlockingReplySettled?.();
    } catch {
      // nothing may escape into isolated-vm
    }
  }

  /** Internal: isolated-vm parked this isolate's thread; it must never be disposed. */
  reportCatastrophic(message: string): void {
    this.#catastrophic = message;
    this.#link?.onCatastrophic(message);
  }

  /** Routes this isolate's messages to one run (an isolate serves a single run). */
  bind(link: GuestLink): void {
    this.#link = link;
  }

  /** The catastrophic error isolated-vm reported, if any. */
  get catastrophic(): string | undefined {
    return this.#catastrophic;
  }

  get disposed(): boolean {
    return this.#disposed || this.isolate.isDisposed;
  }

  /** Disposes the isolate; a no-op after a catastrophic error (disposing would block). */
  dispose(): void {
    this.#link = undefined;
    if (this.#disposed || this.#catastrophic !== undefined) return;
    this.#disposed = true;
    // Release the handles now rather than when this process's GC gets to them.
    for (const handle of [this.configure, this.deliver, this.context]) {
      try {
        handle.release();
      } catch {
        // already released with the isolate
      }
    }
    try {
      if (!this.isolate.isDisposed) this.isolate.dispose();
    } catch {
      // already gone
    }
  }
}

// V8's code cache for the prelude, handed to every isolate of this process. It is built
// from our own source only (never from guest code), and V8 checks it against the source
// and its own version and flags, rejecting a cache that does not fit. It is made warm:
// after a warm-up run of our own program (prelude-warm-up.ts), so it also holds every
// function the prelude's evaluation and an ordinary run compile, which each isolate
// would otherwise parse and compile again (~2-3 ms of a run's CPU).
let preludeCache: ivm.ExternalCopy<ArrayBuffer> | undefined;
/** The URL library's text, shared by every isolate of this process (guest/url.ts). */
let urlLibrary: ivm.ExternalCopy<string> | undefined;
let preludeCacheWarm = false;
/** How the prelude's code cache fared in this process (for tests and diagnostics). */
export const preludeCacheStats = { produced: 0, warm: 0, accepted: 0, rejected: 0 };

/** What compileScript returns with cached-data options (its declared type omits these). */
type CachingScript = ivm.Script & ivm.CachedDataResult & { readonly cachedDataRejected?: boolean };

const PRELUDE_FILE_NAME = 'ptc-prelude.js';

/** Compiles the prelude with this process's code cache (making it if there is none yet). */
async function compilePrelude(isolate: ivm.Isolate, onThisThread: boolean): Promise<ivm.Script> {
  const cache = preludeCache;
  const options =
    cache === undefined
      ? { filename: PRELUDE_FILE_NAME, produceCachedData: true }
      : { filename: PRELUDE_FILE_NAME, cachedData: cache };
  const script: CachingScript = onThisThread
    ? isolate.compileScriptSync(GUEST_PRELUDE_SOURCE, options)
    : await isolate.compileScript(GUEST_PRELUDE_SOURCE, options);
  if (cache === undefined) {
    if (script.cachedData !== undefined) preludeCacheStats.produced += 1;
    preludeCache ??= script.cachedData;
  } else if (script.cachedDataRejected === true) {
    preludeCacheStats.rejected += 1;
    preludeCache = undefined;
  } else {
    preludeCacheStats.accepted += 1;
  }
  return script;
}

/**
 * Makes the warm code cache: a throwaway isolate goes through a warm-up run, then the
 * prelude is compiled again in it, which finds V8's own script in the isolate's
 * compilation cache with every function compiled so far. Once per process; until it is
 * done, isolates prepared meanwhile use the cache the first compile made.
 */
async function warmPreludeCache(memoryMb: number, blockingCalls: boolean): Promise<void> {
  preludeCacheWarm = true; // once per process, whatever happens
  let prepared: PreparedIsolate | undefined;
  try {
    prepared = await PreparedIsolate.create(memoryMb, undefined, blockingCalls);
    if (!(await warmUpRun(prepared)) || prepared.disposed) return;
    // Synchronous, before the run's own dispose (next task): the isolate is idle now.
    const script: CachingScript = prepared.isolate.compileScriptSync(GUEST_PRELUDE_SOURCE, {
      filename: PRELUDE_FILE_NAME,
      produceCachedData: true,
    });
    script.release();
    if (script.cachedData === undefined) return;
    preludeCache = script.cachedData;
    preludeCacheStats.warm += 1;
  } catch {
    // the cache the first compile made stays
  } finally {
    prepared?.dispose();
  }
}

export interface IsolatePoolOptions {
  /**
   * Most isolates kept ready. 0 disables pre-warming (every run creates its isolate). The
   * first `PROMPT_REFILL` are prepared at once and refilled as soon as runs take them; beyond
   * them the pool grows, in idle time, to the most runs it has seen at once (see `warm`).
   */
  readonly size: number;
  /** Heap limit of pooled isolates; runs asking for another limit get a fresh isolate. */
  readonly memoryMb: number;
  readonly onCatastrophic?: (message: string) => void;
  /** Isolates being prepared at once; more wait their turn, first come first served. @default MAX_PREPARING */
  readonly maxPreparing?: number;
  /** Give the guest the blocking call path (SandboxOptions.blockingCalls). @default true */
  readonly blockingCalls?: boolean;
  /**
   * Prepare the isolate a run waits for on this thread (synchronous isolated-vm calls):
   * less CPU than on isolated-vm's threads, but this thread is busy meanwhile. @default false
   */
  readonly prepareOnThisThread?: boolean;
  /** How long no run may have taken an isolate before the pool fills beyond `PROMPT_REFILL`. @default IDLE_FILL_MS */
  readonly idleFillMs?: number;
  /**
   * The pool fills (in the background, `replenish`/`warm`) only while this process's
   * resident memory plus one more ready isolate stays within this many bytes; past it,
   * filling stops until a run ends and the pool is replenished again. @default no bound
   */
  readonly fillBudgetBytes?: number;
  /** This process's resident memory now (bytes). @default process.memoryUsage.rss */
  readonly residentBytes?: () => number;
}

/**
 * Isolates prepared at once (see IsolatePool.take). Preparing one is ~10-20 ms of CPU,
 * part of it on this thread; a burst of runs preparing theirs all at once advances in
 * lockstep (the first is ready only when nearly all are), and this thread answers
 * nothing in between. A few at a time keeps the cores busy and lets each run start as
 * soon as its own isolate is ready.
 */
export const MAX_PREPARING = 3;

/**
 * Ready isolates refilled as soon as runs take them (one at a time, between runs). The
 * rest of the pool is for bursts: it fills only in idle time, so that refilling it never
 * takes CPU from runs that are starting.
 */
export const PROMPT_REFILL = 2;

/**
 * Resident memory one ready isolate holds (its context and the evaluated prelude): the
 * process grew by ~94 MiB as 64 filled in idle time, ~1.5 MiB each.
 */
export const READY_ISOLATE_BYTES = 1.5 * 1_048_576;

/**
 * This process's resident memory less what its ready isolates hold: the memory runs
 * hold (or a run would have to wait for). Ready isolates are a cache runs start on, so
 * they must not count against admitting runs.
 */
export function residentBeyondReady(pool: IsolatePool): number {
  return Math.max(0, process.memoryUsage.rss() - pool.readyBytes);
}

/** Idle time: no run took an isolate for this long (ms), and none is being prepared. */
export const IDLE_FILL_MS = 250;
/** While not idle, how often (ms) the pool looks again. */
const IDLE_RECHECK_MS = 25;

const nextTask = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

export class IsolatePool {
  readonly #options: IsolatePoolOptions;
  readonly #ready: PreparedIsolate[] = [];
  #warming: Promise<void> | undefined;
  #closed = false;
  readonly #maxPreparing: number;
  #preparing = 0;
  /** Preparations waiting for their turn, in arrival order. */
  readonly #turns: Array<() => void> = [];
  readonly #idleFillMs: number;
  /** When a run last took an isolate (performance.now()): idle time counts from then. */
  #lastTake = Number.NEGATIVE_INFINITY;
  /** Isolates taken whose runs are not over yet (each `replenish` marks one over). */
  #out = 0;
  /**
   * The most isolates out at once so far (at most `size`): beyond `PROMPT_REFILL` the pool
   * fills up to it and no further, so a sandbox whose runs come one at a time, or that is
   * closed soon after it starts (a CLI run), never prepares isolates no run takes. `warm`
   * sets it to `size`.
   */
  #demand = 0;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #stoppedForMemory = 0;

  constructor(options: IsolatePoolOptions) {
    this.#options = options;
    this.#idleFillMs = options.idleFillMs ?? IDLE_FILL_MS;
    if (!(this.#idleFillMs >= 0)) throw new TypeError(`idleFillMs must be >= 0, got ${String(options.idleFillMs)}`);
    const budget = options.fillBudgetBytes;
    if (budget !== undefined && !(Number.isSafeInteger(budget) && budget > 0)) {
      throw new TypeError(`fillBudgetBytes must be a positive integer, got ${String(budget)}`);
    }
    this.#maxPreparing = options.maxPreparing ?? MAX_PREPARING;
    if (!Number.isSafeInteger(this.#maxPreparing) || this.#maxPreparing < 1) {
      throw new TypeError(`maxPreparing must be a positive integer, got ${String(options.maxPreparing)}`);
    }
  }

  /** Isolates being prepared now (at most `maxPreparing`), and preparations waiting for a turn. */
  get preparing(): { readonly now: number; readonly waiting: number } {
    return { now: this.#preparing, waiting: this.#turns.length };
  }

  /**
   * An isolate for one run: a pooled one when the heap limit matches, else a new one.
   * Call `replenish()` once the run is over: creating an isolate blocks this thread for
   * a millisecond or two, which should not land in the middle of the run.
   */
  async take(memoryMb: number): Promise<PreparedIsolate> {
    if (this.#closed) throw new Error('the sandbox is closed');
    this.#lastTake = performance.now();
    this.#out += 1;
    this.#demand = Math.min(this.#options.size, Math.max(this.#demand, this.#out));
    if (memoryMb === this.#options.memoryMb) {
      const ready = this.#ready.shift();
      if (ready !== undefined) return ready;
    }
    try {
      return await this.#prepare(memoryMb, true);
    } catch (error) {
      // No isolate: no run of it to be over.
      this.#out -= 1;
      throw error;
    }
  }

  /**
   * Prepares an isolate once fewer than `maxPreparing` are being prepared; for a run
   * waiting on it (`forRun`) on this thread if `prepareOnThisThread`. Refills stay on
   * isolated-vm's threads: this thread is then free for the runs that come meanwhile.
   */
  async #prepare(memoryMb: number, forRun: boolean): Promise<PreparedIsolate> {
    if (this.#preparing >= this.#maxPreparing) {
      await new Promise<void>((resolve) => this.#turns.push(resolve));
    } else {
      this.#preparing += 1;
    }
    try {
      const onThisThread = forRun && this.#options.prepareOnThisThread === true;
      // Each preparation on this thread in a task of its own: turns pass on in microtasks,
      // and a burst's preparations back to back would hold every reply meanwhile.
      if (onThisThread) await nextTask();
      if (this.#closed) throw new Error('the sandbox is closed');
      const prepared = await PreparedIsolate.create(
        memoryMb,
        this.#options.onCatastrophic,
        this.#options.blockingCalls !== false,
        onThisThread,
      );
      // The run's first asynchronous call into the isolate in a later task: made in the
      // task of the synchronous ones, it held this thread ~0.7 ms (isolated-vm 7.0.1).
      if (onThisThread) await nextTask();
      return prepared;
    } finally {
      // The turn passes straight to the next waiter (the count stays), else it is freed.
      const next = this.#turns.shift();
      if (next !== undefined) next();
      else this.#preparing -= 1;
    }
  }

  /**
   * Once per run that is over (and once at start): refills the pool in the background,
   * `PROMPT_REFILL` isolates now, the rest (up to the most runs seen at once) in idle time.
   */
  replenish(): void {
    if (this.#out > 0) this.#out -= 1;
    this.#refill(false);
  }

  /** Fills the whole pool now, and keeps it full from then on; resolves when it is full (or closed). */
  async warm(): Promise<void> {
    this.#demand = this.#options.size;
    // Bounded: isolates that fail to start must not make this spin.
    for (
      let attempt = 0;
      attempt < this.#options.size * 2 && !this.#closed && this.#ready.length < this.#options.size;
      attempt++
    ) {
      this.#refill(true);
      await this.#warming;
    }
  }

  get readyCount(): number {
    return this.#ready.length;
  }

  /** Resident memory the ready isolates hold (estimated, READY_ISOLATE_BYTES each). */
  get readyBytes(): number {
    return this.#ready.length * READY_ISOLATE_BYTES;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    for (const prepared of this.#ready.splice(0)) prepared.dispose();
  }

  /** Whether one more ready isolate fits in `fillBudgetBytes`. */
  #roomForOne(): boolean {
    const budget = this.#options.fillBudgetBytes;
    if (budget === undefined) return true;
    const resident = (this.#options.residentBytes ?? process.memoryUsage.rss)();
    if (resident + READY_ISOLATE_BYTES <= budget) return true;
    this.#stoppedForMemory += 1;
    return false;
  }

  /** Times the fill stopped because one more ready isolate would not fit in `fillBudgetBytes`. */
  get stoppedForMemory(): number {
    return this.#stoppedForMemory;
  }

  /** How many ready isolates the pool fills to: `PROMPT_REFILL`, or the most runs seen at once (at most `size`). */
  #target(): number {
    return Math.min(this.#options.size, Math.max(PROMPT_REFILL, this.#demand));
  }

  /** Prepares one more isolate for the pool (then the next), now or once the pool is idle. */
  #refill(now: boolean): void {
    if (this.#closed || this.#warming !== undefined || this.#ready.length >= this.#target()) return;
    if (!this.#roomForOne()) return;
    if (!now && this.#ready.length >= PROMPT_REFILL) {
      this.#fillWhenIdle();
      return;
    }
    let failed = false;
    this.#warming = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.#prepare(this.#options.memoryMb, false))
      .then(
        (prepared) => {
          if (this.#closed) prepared.dispose();
          else this.#ready.push(prepared);
        },
        () => {
          // A failed warm-up only costs the next run a cold start.
          failed = true;
        },
      )
      .finally(() => {
        this.#warming = undefined;
        // Not again at once after a failure (it would fail again, back to back, burning a
        // core): the next run's replenish tries again.
        if (!failed) this.#refill(false);
      });
  }

  #fillWhenIdle(): void {
    if (this.#idleTimer !== undefined) return;
    const remaining = this.#lastTake + this.#idleFillMs - performance.now();
    if (remaining <= 0 && this.#preparing === 0 && this.#turns.length === 0) {
      this.#refill(true); // idle: the next isolate at once (a take in between stops the fill)
      return;
    }
    this.#idleTimer = setTimeout(
      () => {
        this.#idleTimer = undefined;
        this.#refill(false);
      },
      Math.max(IDLE_RECHECK_MS, remaining),
    );
    // Filling a pool never keeps a process alive.
    this.#idleTimer.unref?.();
  }
}
