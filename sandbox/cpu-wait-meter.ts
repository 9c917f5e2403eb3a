// What Linux says about a sandbox process's main thread (the one that answers the host's
// pings), so that the watchdog judges a silent process by the time it could have used: a
// healthy process on an overloaded host is runnable but waits for a CPU, and that wait is
// no sign of a hang. A stopped, sleeping (deadlocked) or spinning main thread gets no such
// credit. Where /proc cannot be read the meter knows nothing and the watchdog goes by the
// clock alone.
import { readFileSync } from 'node:fs';

/** One reading of /proc/<pid>/schedstat: the main thread's counters. */
interface Sample {
  /** Date.now() when read. */
  readonly at: number;
  /** CPU time it ran, in ns. */
  readonly ranNs: number;
  /** Time it was runnable but waited for a CPU, in ns; Linux adds a wait when it ends. */
  readonly waitedNs: number;
  /** Times it got a CPU. */
  readonly slices: number;
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

/** The main thread's counters now, or undefined where /proc cannot tell (no /proc, the process is gone). */
function readSample(pid: number, now: number): Sample | undefined {
  const text = readProc(`/proc/${pid}/schedstat`);
  const [ranNs, waitedNs, slices] = (text ?? '').trim().split(' ').map(Number);
  if (ranNs === undefined || waitedNs === undefined || slices === undefined || Number.isNaN(slices)) return undefined;
  return { at: now, ranNs, waitedNs, slices };
}

/** The main thread's scheduler state letter (R, S, D, T...), or undefined where /proc cannot tell. */
function readState(pid: number): string | undefined {
  const text = readProc(`/proc/${pid}/stat`);
  // The command name, in parentheses, may itself hold spaces and parentheses.
  const afterName = text?.slice(text.lastIndexOf(')') + 2);
  return afterName === undefined || afterName === '' ? undefined : afterName[0];
}

/**
 * Milliseconds of a wait for a CPU still under way at `later`, which the counters do not
 * hold yet (Linux adds a wait when it ends). A runnable main thread that has not run at all
 * since `earlier` has been waiting all along (Infinity); one that ran meanwhile has waited
 * at most the part of that interval it neither ran nor spent in waits already counted. A
 * thread that is not runnable (sleeping, stopped) waits for no CPU: 0.
 */
function unseenWaitMs(earlier: Sample, later: Sample, state: string | undefined): number {
  if (state !== 'R') return 0;
  if (later.ranNs === earlier.ranNs && later.slices === earlier.slices) return Number.POSITIVE_INFINITY;
  const accountedNs = later.ranNs - earlier.ranNs + (later.waitedNs - earlier.waitedNs);
  return Math.max(0, later.at - earlier.at - accountedNs / 1e6);
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
   * The heartbeat's reading (one small /proc read): the milliseconds the main thread spent
   * waiting for a CPU, in waits that ended since the previous reading. 0 on the first
   * reading, and where /proc cannot tell.
   */
  waitedMs(now: number): number {
    const sample = this.#read(now);
    if (sample === undefined) {
      this.reset();
      return 0;
    }
    this.#previous = this.#last;
    this.#last = sample;
    return this.#previous === undefined ? 0 : Math.max(0, sample.waitedNs - this.#previous.waitedNs) / 1e6;
  }

  /**
   * Milliseconds of a wait for a CPU still under way at the heartbeat's last reading, which
   * `waitedMs` could not count yet; asked only when the watchdog is about to kill (one more
   * /proc read). Infinity for a runnable main thread that has not run at all since the
   * reading before; 0 for one that is not runnable, or where /proc cannot tell.
   */
  unseenWaitMs(): number {
    const last = this.#last;
    const previous = this.#previous;
    if (last === undefined || previous === undefined) return 0;
    return unseenWaitMs(previous, last, readState(this.#pid));
  }

  /** A reading to measure from with `waitedSince` (undefined where /proc cannot tell). */
  mark(now: number): CpuWaitMark | undefined {
    return this.#read(now);
  }

  /**
   * Milliseconds the main thread has waited for a CPU since `from`, a wait still under way
   * included (at most the time elapsed since `from`); 0 where /proc cannot tell.
   */
  waitedSince(from: CpuWaitMark | undefined, now: number): number {
    if (from === undefined) return 0;
    const later = this.#read(now);
    if (later === undefined) return 0;
    const unseen = unseenWaitMs(from, later, readState(this.#pid));
    return Math.min(now - from.at, (later.waitedNs - from.waitedNs) / 1e6 + unseen);
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
