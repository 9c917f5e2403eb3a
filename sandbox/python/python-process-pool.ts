// The Python processes of a sandbox: a few kept warm (Monty loaded) so a run starts at
// once. A process holds one job at a time, so a job whose process dies or is killed takes
// no other job with it. Most jobs are short (a run leaves its process at each call), so
// a job that finds every process busy waits for one first: while jobs keep waiting, the
// pool grows by one process at a time (every GROW_AFTER_MS), up to `maxProcesses`. A burst of runs is
// served by the processes there are in milliseconds, not by starting dozens of processes
// (each a second of CPU on a loaded machine), while long-running programs still get
// processes of their own.
import { PythonChild } from './python-child.ts';

export interface PythonPoolSettings {
  /** Idle processes kept ready for the next runs. */
  readonly warmProcesses: number;
  /** Processes at most, busy and idle. */
  readonly maxProcesses: number;
  /** Jobs one process takes before a fresh one replaces it. */
  readonly recycleAfterJobs: number;
}

/**
 * An idle process beyond the warm ones exits after this long without a job: runs that
 * leave their processes at each call and come back find one without a start each time.
 */
const IDLE_LINGER_MS = 2_000;

/** How long jobs wait for a busy process before one more is started. */
const GROW_AFTER_MS = 20;

/** Processes that die before they are ready this many times in a row are not started ahead of need. */
const MAX_EARLY_DEATHS = 3;

interface Waiter {
  readonly take: (child: PythonChild) => void;
  readonly fail: (error: Error) => void;
}

export class PythonProcessPool {
  readonly #settings: PythonPoolSettings;
  readonly #all = new Set<PythonChild>();
  readonly #idle: PythonChild[] = [];
  /** Idle processes beyond the warm ones, and when each exits. */
  readonly #lingering = new Map<PythonChild, NodeJS.Timeout>();
  /** Started and not ready yet. */
  readonly #starting = new Set<PythonChild>();
  readonly #waiters: Waiter[] = [];
  #earlyDeaths = 0;
  #closed = false;
  #growTimer: NodeJS.Timeout | undefined;

  constructor(settings: PythonPoolSettings) {
    this.#settings = settings;
    this.#warm();
  }

  /** Pids of the live processes (for tests and diagnostics). */
  get pids(): number[] {
    return [...this.#all].flatMap((child) =>
      child.dead || child.process.pid === undefined ? [] : [child.process.pid],
    );
  }

  /** A ready process for one job, the caller's alone until it gives it back (`give`) or kills it. */
  take(signal?: AbortSignal): Promise<PythonChild> {
    if (this.#closed) return Promise.reject(new Error('the Python sandbox is closed'));
    for (let child = this.#idle.pop(); child !== undefined; child = this.#idle.pop()) {
      if (!child.dead) return Promise.resolve(this.#hand(child));
    }
    return new Promise<PythonChild>((resolve, reject) => {
      const waiter: Waiter = {
        take: (child) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.#hand(child));
        },
        fail: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      const onAbort = (): void => {
        const at = this.#waiters.indexOf(waiter);
        if (at >= 0) this.#waiters.splice(at, 1);
        reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
      // None at all (or all starting already): one starts now; else the busy ones may free up first.
      if (this.#all.size === this.#starting.size) this.#grow();
      else this.#growTimer ??= setTimeout(() => this.#growWhileWaiting(), GROW_AFTER_MS);
      // A job waits on them: they keep the host alive until they are ready.
      for (const starting of this.#starting) starting.busy();
    });
  }

  /** A process whose job ended cleanly: it takes the next one (or is kept warm, or exits). */
  give(child: PythonChild): void {
    child.idle();
    if (child.dead) return;
    if (this.#closed || child.jobs >= this.#settings.recycleAfterJobs) {
      this.#retire(child);
      this.#warm();
      return;
    }
    this.#place(child);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#growTimer);
    for (const waiter of this.#waiters.splice(0)) waiter.fail(new Error('the Python sandbox is closed'));
    const exits = [...this.#all].map((child) => {
      // Until it has exited: an unref'd process (and its 'exit') would not keep the host alive.
      child.busy();
      this.#retire(child);
      return child.exited;
    });
    this.#idle.length = 0;
    await Promise.all(exits);
  }

  #hand(child: PythonChild): PythonChild {
    clearTimeout(this.#lingering.get(child));
    this.#lingering.delete(child);
    child.jobs += 1;
    child.busy();
    this.#warm();
    return child;
  }

  /** A ready, free process: to the first waiting job, else kept warm, else it exits. */
  #place(child: PythonChild): void {
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) waiter.take(child);
    else if (this.#closed) this.#retire(child);
    else {
      if (this.#idle.length >= this.#settings.warmProcesses) {
        const linger = setTimeout(() => this.#retire(child), IDLE_LINGER_MS);
        linger.unref();
        this.#lingering.set(child, linger);
      }
      this.#idle.push(child);
    }
  }

  /** One more process for the jobs waiting, if they outnumber those starting and there is room. */
  #grow(): void {
    if (this.#closed || this.#waiters.length <= this.#starting.size) return;
    if (this.#all.size < this.#settings.maxProcesses) this.#start();
  }

  #growWhileWaiting(): void {
    this.#growTimer = undefined;
    if (this.#waiters.length === 0) return;
    // One start at a time: starting processes is what a loaded machine has least room for.
    if (this.#starting.size === 0) this.#grow();
    this.#growTimer = setTimeout(() => this.#growWhileWaiting(), GROW_AFTER_MS);
  }

  /** Ends a process: it exits at once (its job, if any, is over). */
  #retire(child: PythonChild): void {
    child.kill('it was retired');
  }

  /** Starts processes until the idle and starting ones make up the warm ones (and waiting jobs). */
  #warm(): void {
    if (this.#closed || this.#earlyDeaths >= MAX_EARLY_DEATHS) return;
    while (
      this.#idle.length + this.#starting.size < this.#settings.warmProcesses &&
      this.#all.size < this.#settings.maxProcesses
    ) {
      this.#start();
    }
  }

  #start(): void {
    let child: PythonChild;
    try {
      child = new PythonChild((gone) => this.#gone(gone));
    } catch (error) {
      // fork() itself threw: the job waiting for a process fails with why.
      this.#waiters.shift()?.fail(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.#all.add(child);
    this.#starting.add(child);
    child.ready.then(
      () => {
        this.#starting.delete(child);
        child.idle();
        this.#earlyDeaths = 0;
        this.#place(child);
      },
      (error: unknown) => {
        this.#starting.delete(child);
        this.#earlyDeaths += 1;
        // A job waits for a process that cannot start: it fails with why, unless another is starting for it.
        if (this.#waiters.length > this.#starting.size) this.#waiters.shift()?.fail(error as Error);
      },
    );
  }

  #gone(child: PythonChild): void {
    this.#all.delete(child);
    clearTimeout(this.#lingering.get(child));
    this.#lingering.delete(child);
    const at = this.#idle.indexOf(child);
    if (at >= 0) this.#idle.splice(at, 1);
    this.#warm();
    // A job still waits and no process is starting for it (this one died at work): start one.
    this.#grow();
  }
}
