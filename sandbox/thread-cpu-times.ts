// CPU time per thread of this process (Linux: /proc/self/task/<tid>/schedstat) and how
// often each slept, read by the CPU lanes (cpu-lanes.ts) and the placement of a blocking
// streak (blocking-streak-placement.ts) to tell which threads run guest code.
import { readdirSync, readFileSync } from 'node:fs';

/** Nanoseconds on a CPU of each thread of this process; empty where /proc is not there. */
export function threadCpuTimes(): Map<number, number> {
  const times = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc/self/task');
  } catch {
    return times;
  }
  for (const entry of entries) {
    const tid = Number(entry);
    if (!Number.isSafeInteger(tid)) continue;
    try {
      const ns = Number(readFileSync(`/proc/self/task/${entry}/schedstat`, 'utf8').split(' ')[0]);
      if (Number.isFinite(ns)) times.set(tid, ns);
    } catch {
      // the thread ended meanwhile
    }
  }
  return times;
}

/** How many times thread `tid` gave the CPU up by itself; undefined once it has ended. */
export function voluntarySwitches(tid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/self/task/${tid}/status`, 'utf8');
    const count = Number(/voluntary_ctxt_switches:\s*(\d+)/.exec(status)?.[1]);
    return Number.isFinite(count) ? count : undefined;
  } catch {
    return undefined;
  }
}
