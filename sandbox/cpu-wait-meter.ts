// What Linux says about a sandbox process's threads, so that the watchdog judges a silent
// process by the time it could have used: a healthy process on an overloaded host is
// runnable but waits for a CPU, and that wait is no sign of a hang. The main thread answers
// the host's pings, but it may sleep on another of its threads (the isolate's thread running
// the program, V8's helpers) while that one waits for a CPU, so every thread's waits count:
// the longest of them, never their sum (threads wait side by side). A stopped or sleeping
// (deadlocked) process gets no such credit, a spinning one only for part of the time. Where
// /proc cannot be read the meter knows nothing and the watchdog goes by the clock alone.
import { readdirSync, readFileSync } from 'node:fs';

/** One thread's counters from /proc/<pid>/task/<tid>/schedstat. */
interface ThreadCounters {
  /** CPU time it ran, in ns. */
  readonly ranNs: number;
  /** Time it was runnable but waited for a CPU, in ns; Linux adds a wait when it ends. */
  readonly waitedNs: number;
  /** Times it got a CPU. */
  readonly slices: number;
}

/** One reading of the process's threads. */
interface Sample {
  /** Date.now() when read. */
  readonly at: number;
  /** Each thread's counters, by thread id. */
  readonly threads: ReadonlyMap<string, ThreadCounters>;
}

/** The main thread's scheduler state (third field of /proc/<pid>/stat), in words. */
const STATES: Readonly<Record<string, string>> = {
  R: 'runnable',
  S: 'sleeping',
  D: 'in uninterruptible sleep',
  T: 'stopped',
  t: 'stopped by a tracer',
  Z: 'a zombie',
  X: 'dead',
};

/** Reads a small /proc file; undefined when it cannot (no /proc, the process is gone). */
function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return undefined;
  }
}

/** The thread ids of `pid` (the main thread's is `pid`), or undefined where /proc cannot tell. */
function threadIds(pid: number): string[] | undefined {
  try {
    return readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
}

/** One thread's counters, or undefined (gone meanwhile, or no schedstat). */
function readCounters(pid: number, tid: string): ThreadCounters | undefined {
  const text = readProc(`/proc/${pid}/task/${tid}/schedstat`);
  const [ranNs, waitedNs, slices] = (text ?? '').trim().split(' ').map(Number);
  if (ranNs === undefined || waitedNs === undefined || slices === undefined || Number.isNaN(slices)) return undefined;
  return { ranNs, waitedNs, slices };
}

/** Every thread's counters now, or undefined where /proc cannot tell (no /proc, the process is gone). */
function readSample(pid: number, now: number): Sample | undefined {
  const threads = new Map<string, ThreadCounters>();
  for (const tid of threadIds(pid) ?? []) {
    const counters = readCounters(pid, tid);
    if (counters !== undefined) threads.set(tid, counters);
  }
  return threads.size === 0 ? undefined : { at: now, threads };
}

/** A thread's scheduler state letter (R, S, D, T...), or undefined where /proc cannot tell. */
function readState(pid: number, tid: string = String(pid)): string | undefined {
  const text = readProc(`/proc/${pid}/task/${tid}/stat`);
  // The command name, in parentheses, may itself hold spaces and parentheses.
  const afterName = text?.slice(text.lastIndexOf(')') + 2);
  return afterName === undefined || afterName === '' ? undefined : afterName[0];
}

/** Nanoseconds a thread waited between two readings (all its waits when it was born meanwhile). */
function waitedBetween(earlier: ThreadCounters | undefined, later: ThreadCounters): number {
  return Math.max(0, later.waitedNs - (earlier?.waitedNs ?? 0));
}

/** Milliseconds the longest-waiting thread waited, in waits that ended between the two readings. */
function endedWaitsMs(earlier: Sample, later: Sample): number {
  let longestNs = 0;
  for (const [tid, counters] of later.threads) {
    longestNs = Math.max(longestNs, waitedBetween(earlier.threads.get(tid), counters));
  }
  return longestNs / 1e6;
}

/**
 * Milliseconds of a wait for a CPU still under way at `later`, which the counters do not
 * hold yet (Linux adds a wait when it ends), for the thread that waits longest. A runnable
 * thread that has not run at all since `earlier` has been waiting all along (Infinity); one
 * that ran meanwhile has waited at most the part of that interval it neither ran nor spent
 * in waits already counted. A thread that is not runnable (sleeping, stopped) waits for no CPU.
 */
function unseenWaitMs(pid: number, earlier: Sample, later: Sample): number {
  let longest = 0;
  for (const [tid, now] of later.threads) {
    if (readState(pid, tid) !== 'R') continue;
    const before = earlier.threads.get(tid) ?? { ranNs: 0, waitedNs: 0, slices: 0 };
    if (now.ranNs === before.ranNs && now.slices === before.slices) return Number.POSITIVE_INFINITY;
    const accountedNs = now.ranNs - before.ranNs + (now.waitedNs - before.waitedNs);
    longest = Math.max(longest, later.at - earlier.at - accountedNs / 1e6);
  }
  return longest;
}

/** A reading taken with `CpuWaitMeter.mark`, to measure a wait from (see `waitedSince`). */
export type CpuWaitMark = Sample;

export class CpuWaitMeter {
  readonly #pid: number;
  #last: Sample | undefined;
  #previous: Sample | undefined;
  /** /proc has no schedstat for it (not Linux, or a kernel without it): read nothing more. */
  #unavailable = false;

  constructor(pid: number) {
    this.#pid = pid;
  }

  /** Forgets the heartbeat's readings (the process was idle meanwhile; its waits then excuse nothing now). */
  reset(): void {
    this.#last = undefined;
    this.#previous = undefined;
  }

  /**
   * The heartbeat's reading (a few small /proc reads, one per thread): the milliseconds the
   * longest-waiting thread spent waiting for a CPU, in waits that ended since the previous
   * reading (a wait is counted whole when it ends, so it may be longer than the time between
   * the readings). 0 on the first reading, and where /proc cannot tell.
   */
  waitedMs(now: number): number {
    const sample = this.#read(now);
    if (sample === undefined) {
      this.reset();
      return 0;
    }
    this.#previous = this.#last;
    this.#last = sample;
    return this.#previous === undefined ? 0 : endedWaitsMs(this.#previous, sample);
  }

  /**
   * Milliseconds of a wait for a CPU still under way at the heartbeat's last reading, which
   * `waitedMs` could not count yet; asked only when the watchdog is about to kill (one more
   * /proc read per thread). Infinity when a runnable thread has not run at all since the
   * reading before; 0 when no thread is runnable, or where /proc cannot tell.
   */
  unseenWaitMs(): number {
    const last = this.#last;
    const previous = this.#previous;
    if (last === undefined || previous === undefined) return 0;
    return unseenWaitMs(this.#pid, previous, last);
  }

  /** A reading to measure from with `waitedSince` (undefined where /proc cannot tell). */
  mark(now: number): CpuWaitMark | undefined {
    return this.#read(now);
  }

  /**
   * Milliseconds the longest-waiting thread has waited for a CPU since `from`, a wait still
   * under way included (at most the time elapsed since `from`); 0 where /proc cannot tell.
   */
  waitedSince(from: CpuWaitMark | undefined, now: number): number {
    if (from === undefined) return 0;
    const later = this.#read(now);
    if (later === undefined) return 0;
    return Math.min(now - from.at, endedWaitsMs(from, later) + unseenWaitMs(this.#pid, from, later));
  }

  /** The main thread's state in words, for a message (undefined where /proc cannot tell). */
  describeState(): string | undefined {
    const letter = readState(this.#pid);
    return letter === undefined ? undefined : (STATES[letter] ?? `in state ${letter}`);
  }

  #read(now: number): Sample | undefined {
    if (this.#unavailable) return undefined;
    const sample = readSample(this.#pid, now);
    // Never readable (not Linux, or no schedstat): not worth trying again.
    if (sample === undefined && this.#last === undefined && this.#previous === undefined) this.#unavailable = true;
    return sample;
  }
}
