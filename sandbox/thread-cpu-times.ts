// What /proc/self/task tells about each thread of this process (Linux): CPU time
// (schedstat), how often it slept (status) and its name (comm), read by the CPU lanes
// (cpu-lanes.ts) and the placement of a blocking streak (blocking-streak-placement.ts) to
// tell which threads run guest code.
import { readdirSync, readFileSync } from 'node:fs';

/**
 * The text of thread `tid`'s /proc file `name`; undefined once the thread has ended.
 * readFileSync with 'utf8' is one native call (open, read, close): cheaper than the three
 * calls of openSync, readSync into a kept buffer and closeSync (measured on Node 24).
 */
function readTaskFile(tid: number, name: string): string | undefined {
  try {
    return readFileSync(`/proc/self/task/${tid}/${name}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** The ids of this process's threads; empty where /proc is not there. */
export function threadIds(): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc/self/task');
  } catch {
    return [];
  }
  const tids: number[] = [];
  for (const entry of entries) {
    const tid = Number(entry);
    if (Number.isSafeInteger(tid)) tids.push(tid);
  }
  return tids;
}

/** Thread `tid`'s schedstat: nanoseconds on a CPU, and how many times it was put on one. */
export interface Schedstat {
  readonly ns: number;
  /** Times the scheduler switched to it (at least once between two of its sleeps). */
  readonly runs: number;
}

/** Thread `tid`'s schedstat; undefined once it has ended. */
export function threadSchedstat(tid: number): Schedstat | undefined {
  const fields = readTaskFile(tid, 'schedstat')?.split(' ');
  const ns = Number.parseInt(fields?.[0] ?? '', 10);
  // The third field is the count (the second, time waiting for a CPU).
  const runs = Number.parseInt(fields?.[2] ?? '', 10);
  return Number.isFinite(ns) && Number.isFinite(runs) ? { ns, runs } : undefined;
}

/** Nanoseconds on a CPU of each thread of this process; empty where /proc is not there. */
export function threadCpuTimes(): Map<number, number> {
  const times = new Map<number, number>();
  for (const tid of threadIds()) {
    const stat = threadSchedstat(tid);
    if (stat !== undefined) times.set(tid, stat.ns);
  }
  return times;
}

/** How many times thread `tid` gave the CPU up by itself; undefined once it has ended. */
export function voluntarySwitches(tid: number): number | undefined {
  const status = readTaskFile(tid, 'status');
  const count = Number(/\nvoluntary_ctxt_switches:\s*(\d+)/.exec(status ?? '')?.[1]);
  return Number.isFinite(count) ? count : undefined;
}

/** Thread `tid`'s name (comm); '' once it has ended. */
export function threadName(tid: number): string {
  return readTaskFile(tid, 'comm')?.trim() ?? '';
}

/**
 * Threads Node, V8 and libuv name for themselves (isolated-vm's keep the name of the
 * thread that started them), so never an isolate's: a tool reading a file on each call
 * wakes a libuv worker per call, and V8's garbage collector keeps a V8Worker busy for
 * hundreds of ms in a large heap.
 */
export const NOT_ISOLATE_THREADS: ReadonlySet<string> = new Set([
  'libuv-worker',
  'V8Worker',
  'DelayedTaskSche',
  'SignalInspector',
]);
