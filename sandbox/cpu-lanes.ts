// CPU lanes for both sandboxes. A run whose guest code has run for more than
// HEAVY_CPU_MS of CPU without yielding is CPU-bound (an ordinary program runs a few
// milliseconds between its tool calls). Once other runs are in flight, the process that
// holds its isolate (a sandbox process, or the host with isolation: 'in-process') lowers
// the OS priority of its threads that run guest code without yielding to DEMOTED_NICE,
// and gives them a long scheduler slice where the kernel has slices (thread-slice.ts: the
// threads of ordinary runs then preempt them each time they wake): CPU-bound programs
// then get the cores that ordinary runs leave idle. On an idle machine
// a demoted run goes as fast as before; on a machine saturated by other work it may run
// into its wall-clock limit. When the process has no CPU-bound run left, or only
// CPU-bound runs are in flight (nothing is left to make way for), the threads get
// their priority back (a sandbox process that may not is retired; the in-process sandbox
// demotes nothing unless it may, see mayRestorePriority). The main thread (IPC, timers,
// watchdog answers, the host's own work) and the threads of ordinary runs keep their
// priority. Linux only (nice is per thread there).
//
// Not SCHED_IDLE (tried, bench/README "CPU lanes"): a demoted thread still takes locks the
// process's other threads need (isolated-vm's thread pool, V8's). At SCHED_IDLE it gets no
// CPU at all while other work at normal priority is runnable, so a lock it held when it
// was preempted stalled the whole process for as long as that work lasted (an ordinary
// in-process run took 2–108 s at load 30–60). At nice 19 it still gets a share.
import { accessSync, readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { NOT_ISOLATE_THREADS, threadCpuTimes, threadName, voluntarySwitches } from './thread-cpu-times.ts';
import { LONG_SLICE_NS, restoreThreadSlice, setThreadSlice } from './thread-slice.ts';

/** CPU time after which a run counts as CPU-bound. */
export const HEAVY_CPU_MS = 1_000;
/** The OS priority (nice value) of a demoted process's isolate threads. */
export const DEMOTED_NICE = 19;

/** How long the threads are watched to tell the CPU-bound ones. */
export const WATCH_MS = 300;

interface ThreadSample {
  /** Nanoseconds on a CPU (schedstat). */
  readonly cpuNs: number;
  /** Times it gave the CPU up by itself (waited for work, a lock, I/O). */
  readonly voluntary: number;
}

/**
 * Every thread of this process that may run an isolate (Linux: /proc/self/task): not the
 * main one, nor those Node, V8 and libuv name for themselves (a garbage collector's worker
 * busy for 300 ms in a large heap is no CPU-bound run); empty elsewhere.
 */
function sampleThreads(): Map<number, ThreadSample> {
  const samples = new Map<number, ThreadSample>();
  for (const [tid, cpuNs] of threadCpuTimes()) {
    if (tid === process.pid || NOT_ISOLATE_THREADS.has(threadName(tid))) continue;
    const voluntary = voluntarySwitches(tid);
    if (voluntary !== undefined) samples.set(tid, { cpuNs, voluntary });
  }
  return samples;
}

/** A thread this process demoted: the priority it had before, and its voluntary switches then. */
interface Demoted {
  readonly nice: number;
  readonly voluntary: number;
  /** The slice it had before it got LONG_SLICE_NS (given back on restore); undefined if it got none. */
  readonly slice: bigint | undefined;
}
const demoted = new Map<number, Demoted>();
/** How many times restoreThreads was called (a demotion under way when it is demotes nothing). */
let restoresOfAll = 0;

function threadAlive(tid: number): boolean {
  try {
    accessSync(`/proc/self/task/${tid}`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Lowers the priority of the threads of this process that are running guest code without
 * ever yielding: over WATCH_MS they used CPU and never gave it up by themselves (a thread
 * running an ordinary run's short tasks waits for the next one in between). The main
 * thread is never touched. Linux only (nice is per thread there); elsewhere nothing
 * happens (the process still gets no new runs). Resolves with how many were demoted.
 */
export async function demoteBusyThreads(): Promise<number> {
  const before = sampleThreads();
  if (before.size === 0) return 0;
  const restoresBefore = restoresOfAll;
  await new Promise<void>((resolve) => setTimeout(resolve, WATCH_MS));
  // Every thread got its priority back meanwhile (no CPU-bound run is left): a thread
  // still spinning now (an isolate unwinding from its termination) is not one to demote.
  if (restoresOfAll !== restoresBefore) return 0;
  let count = 0;
  for (const [tid, after] of sampleThreads()) {
    const start = before.get(tid);
    if (start === undefined || after.cpuNs <= start.cpuNs || after.voluntary !== start.voluntary) continue;
    const known = demoted.get(tid);
    if (known !== undefined) {
      // Demoted for an earlier run and busy again (another CPU-bound run's task): its
      // switches count from now, or its pause in between would read as having stopped.
      demoted.set(tid, { ...known, voluntary: after.voluntary });
      continue;
    }
    try {
      const nice = getPriority(tid);
      setPriority(tid, DEMOTED_NICE);
      // A long slice as well: threads that wake beside it preempt it (thread-slice.ts).
      const slice = setThreadSlice(tid, LONG_SLICE_NS);
      demoted.set(tid, { nice, voluntary: after.voluntary, slice });
      count += 1;
    } catch {
      // the thread is gone, or its priority cannot be changed here
    }
  }
  return count;
}

/**
 * Whether this process may give a thread at `nice` back its priority after demoting it
 * (raising a priority needs root, CAP_SYS_NICE or a high enough RLIMIT_NICE; only root
 * and the limit are checked, so a capability alone reads as no). A process that may not
 * must not demote threads it keeps using (the in-process sandbox).
 */
export function mayRestorePriority(nice = 0): boolean {
  if (process.getuid?.() === 0) return true;
  try {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    const soft = Number(/^Max nice priority\s+(\d+)/m.exec(limits)?.[1]);
    // RLIMIT_NICE r lets a thread's nice go down to 20 - r.
    return Number.isFinite(soft) && 20 - soft <= nice;
  } catch {
    return false;
  }
}

/**
 * Gives the demoted threads their priority back (the CPU-bound runs have ended; the
 * threads serve other runs now). False if one could not be restored (raising a priority
 * may need privileges): the process should then be retired.
 */
export function restoreThreads(): boolean {
  restoresOfAll += 1;
  return restore([...demoted.keys()]);
}

/**
 * Gives back their priority the demoted threads that have stopped spinning since (they
 * gave the CPU up by themselves at least once: the CPU-bound run they ran has ended or
 * yielded), while other CPU-bound runs go on. isolated-vm hands a free thread the next
 * task of any run; an ordinary run on a thread left at nice 19 would get only a sliver of
 * a busy CPU. False as restoreThreads says.
 */
export function restoreThreadsNoLongerBusy(): boolean {
  const idle: number[] = [];
  for (const [tid, { voluntary }] of demoted) {
    const now = voluntarySwitches(tid);
    if (now === undefined || now !== voluntary) idle.push(tid);
  }
  return restore(idle);
}

/**
 * A run ended in a process that demoted threads: with no CPU-bound run left every demoted
 * thread gets its priority back (restoreThreads), else those that stopped spinning
 * (restoreThreadsNoLongerBusy; the next task isolated-vm gives them may be any run's).
 * False as restoreThreads says.
 */
export function restoreAfterRun(cpuBoundRunsLeft: boolean): boolean {
  return cpuBoundRunsLeft ? restoreThreadsNoLongerBusy() : restoreThreads();
}

/** Demotes the busy threads (demoteBusyThreads), then watches them (watchDemotedThreads). */
export async function demoteAndWatch(onRestored: (restored: boolean) => void): Promise<void> {
  await demoteBusyThreads();
  watchDemotedThreads(onRestored);
}

let watchTimer: ReturnType<typeof setInterval> | undefined;
let onWatchRestored: (restored: boolean) => void = () => undefined;

/**
 * While any thread is demoted, every WATCH_MS those that have stopped spinning get their
 * priority back (restoreThreadsNoLongerBusy; `onRestored` gets each result, the latest
 * caller's). A run's end comes too early to see its thread stop (a terminated isolate is
 * still unwinding, or busy in native code such as a huge BigInt product): left demoted,
 * that thread would serve isolated-vm's next task, maybe an ordinary run's, at nice 19
 * until some other run ends. The timer does not keep the process alive.
 */
export function watchDemotedThreads(onRestored: (restored: boolean) => void): void {
  onWatchRestored = onRestored;
  if (watchTimer !== undefined) return;
  watchTimer = setInterval(() => {
    if (demoted.size === 0) {
      clearInterval(watchTimer);
      watchTimer = undefined;
      return;
    }
    onWatchRestored(restoreThreadsNoLongerBusy());
  }, WATCH_MS);
  watchTimer.unref();
}

function restore(tids: readonly number[]): boolean {
  let restored = true;
  for (const tid of tids) {
    const entry = demoted.get(tid);
    if (entry === undefined) continue;
    demoted.delete(tid);
    // Ended: nothing to restore, and its id may be another process's by now (ids wrap).
    if (!threadAlive(tid)) continue;
    try {
      setPriority(tid, entry.nice);
      if (entry.slice !== undefined) restoreThreadSlice(tid, entry.slice);
    } catch (error) {
      // A thread that ended needs nothing (isolated-vm runs work on short-lived threads
      // when its pool is busy); any other failure leaves it demoted. Node reports the
      // errno as info.code (code is ERR_SYSTEM_ERROR).
      if (!threadGone(error)) restored = false;
    }
  }
  return restored;
}

function threadGone(error: unknown): boolean {
  const { code, info } = error as { code?: unknown; info?: { code?: unknown } };
  return code === 'ESRCH' || info?.code === 'ESRCH';
}
