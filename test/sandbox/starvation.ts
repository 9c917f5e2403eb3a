// Starves a real process of CPU (Linux): pins it and several busy-loop processes to one
// CPU with `taskset` and lowers its threads to nice 19, so it is runnable but mostly waits
// for that CPU, as a healthy process does on an overloaded host.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';

/** The CPUs this process may use, as taskset lists them (`0-1`); undefined where /proc does not say. */
function allowedCpus(): string | undefined {
  return /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
}
/** The CPU the starved process and the busy loops share: the first this process may use (Linux). */
function sharedCpu(): string {
  return /^\d+/.exec(allowedCpus() ?? '')?.[0] ?? '0';
}
/** A busy loop ends by itself after this long even if nobody stops it. */
const BUSY_LOOP_LIFETIME_MS = 90_000;

/** A thread's counters from /proc/<pid>/task/<tid>/schedstat (the main thread's: tid = pid), in ms: time it ran, time it waited for a CPU. */
export function schedstat(pid: number, tid: number | string = pid): { ranMs: number; waitedMs: number } {
  const [ran, waited] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(' ').map(Number);
  return { ranMs: (ran ?? Number.NaN) / 1e6, waitedMs: (waited ?? Number.NaN) / 1e6 };
}

/**
 * What Linux has counted for the threads of `pid` (/proc/<pid>/task/<tid>/schedstat), in ms:
 * the longest any one thread has waited for a CPU (ended waits only: Linux adds a wait when
 * it ends) and the CPU time all of them ran. Zeros once the process is gone. A starting
 * process's main thread may sleep while a starved helper thread of its waits, so the main
 * thread alone can show little of the starvation (the product's meter takes the
 * longest-waiting thread too).
 */
export function threadTimes(pid: number): { longestWaitMs: number; ranMs: number } {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return { longestWaitMs: 0, ranMs: 0 }; // gone
  }
  let longestWaitMs = 0;
  let ranMs = 0;
  for (const tid of threads) {
    try {
      const thread = schedstat(pid, tid);
      longestWaitMs = Math.max(longestWaitMs, thread.waitedMs);
      ranMs += thread.ranMs;
    } catch {
      // the thread ended meanwhile
    }
  }
  return { longestWaitMs, ranMs };
}

/** The main thread's scheduler state letter (R, S, T...) from /proc/<pid>/stat; undefined once it is gone. */
export function procState(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone
  }
  return stat.slice(stat.lastIndexOf(')') + 2)[0];
}

export interface Starvation {
  /** Stops the busy loops (the starved process keeps its CPU pin and nice value). */
  readonly stop: () => void;
}

/** `loops` busy loops pinned to `cpu`, ended by `stop()` (or after BUSY_LOOP_LIFETIME_MS). */
function busyLoops(loops: number, cpu: string): Starvation {
  const busy: ChildProcess[] = [];
  const stop = (): void => {
    for (const loop of busy) loop.kill('SIGKILL');
  };
  try {
    for (let i = 0; i < loops; i++) {
      const loop = spawn(
        process.execPath,
        ['-e', `const end = Date.now() + ${BUSY_LOOP_LIFETIME_MS}; while (Date.now() < end);`],
        { stdio: 'ignore' },
      );
      busy.push(loop);
      execFileSync('taskset', ['-p', '-c', cpu, String(loop.pid)], { stdio: 'ignore' });
    }
  } catch (error) {
    stop();
    throw error;
  }
  return { stop };
}

/**
 * Calls `start` (which forks a process) and starves that process at once (`starve`): it has
 * done a few milliseconds of its start at most. Not forked from a thread starved first (a
 * fork takes that thread's mask and nice value): on a loaded machine this large test
 * process's own fork then waited up to 28 s for the shared CPU, and the process's start-up
 * clock began that much after the test's.
 */
export function startStarved<T extends { readonly process: { readonly pid?: number | undefined } }>(
  loops: number,
  nice: number,
  start: () => T,
): { value: T; starvation: Starvation } {
  const value = start();
  const { pid } = value.process;
  // Not started (the spawn failed): nothing to starve, and the caller sees why.
  if (pid === undefined) return { value, starvation: { stop: () => {} } };
  return { value, starvation: starve(pid, loops, nice) };
}

/** Sets every thread of `pid` to `nice` (no process started per thread: on a loaded machine each fork of this test process is slow); threads that ended, or a process that did, are skipped. */
function renice(pid: number, nice: number): void {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return; // the process is gone
  }
  for (const tid of threads) {
    try {
      setPriority(Number(tid), nice);
    } catch {
      // the thread ended meanwhile
    }
  }
}

/** Starts `loops` busy loops on the shared CPU and moves every thread of `pid` there at `nice` (19: ~1% of it per loop). */
export function starve(pid: number, loops: number, nice = 19): Starvation {
  const cpu = sharedCpu();
  // Its priority first, which takes no process: it crawls already while the busy loops start.
  renice(pid, nice);
  const starvation = busyLoops(loops, cpu);
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpu, String(pid)], { stdio: 'ignore' });
    renice(pid, nice); // threads born meanwhile
  } catch (error) {
    starvation.stop();
    throw error;
  }
  return starvation;
}

/**
 * Gives the CPU back to every thread of `pid` (after `starve` or `startStarved`; its busy
 * loops stopped first): nice 0, and every CPU this process may use, not only the shared
 * one (there, on a loaded machine, it would still queue behind that CPU's other work). A
 * process or thread that ended meanwhile is skipped.
 */
export function relieve(pid: number): void {
  renice(pid, 0);
  const mask = allowedCpus();
  if (mask === undefined) return;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', mask, String(pid)], { stdio: 'ignore' });
  } catch {
    // the process ended meanwhile
  }
}
