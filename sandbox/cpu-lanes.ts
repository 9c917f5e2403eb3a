// CPU lanes for the process sandbox. A run that has used more than HEAVY_CPU_MS of CPU is
// CPU-bound (an ordinary program awaiting tools uses a few milliseconds). Its sandbox
// process is then demoted: the host stops giving it new runs (a fresh process takes its
// slot) and the process lowers the OS priority of its isolate threads to DEMOTED_NICE, so
// that on a busy machine CPU-bound programs get the cores only when ordinary runs leave
// them idle. On an idle machine a demoted run goes as fast as before. The process exits
// once its runs end, so no thread stays demoted for a later run. The main thread (IPC,
// timers, watchdog answers) keeps its priority.
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

/** CPU time after which a run counts as CPU-bound. */
export const HEAVY_CPU_MS = 50;
/** The OS priority (nice value) of a demoted process's isolate threads. */
export const DEMOTED_NICE = 19;

/**
 * Lowers the priority of every thread of this process but the main one (Linux: nice is
 * per thread, listed in /proc/self/task). Elsewhere nothing happens (the process still
 * gets no new runs). Returns how many threads were demoted.
 */
export function demoteWorkerThreads(): number {
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return 0;
  }
  let demoted = 0;
  for (const entry of tids) {
    const tid = Number(entry);
    if (!Number.isSafeInteger(tid) || tid === process.pid) continue;
    try {
      setPriority(tid, DEMOTED_NICE);
      demoted += 1;
    } catch {
      // the thread is gone, or the priority cannot be changed here
    }
  }
  return demoted;
}
