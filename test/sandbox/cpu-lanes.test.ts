// CPU lanes: a thread running code without ever yielding is demoted to nice 19 (its policy
// stays SCHED_OTHER: at SCHED_IDLE a preempted lock holder stalled the process, see
// cpu-lanes.ts) and gets its priority back afterwards; a demoted thread that has ended meanwhile needs nothing
// (isolated-vm runs work on short-lived threads when its pool is busy). The in-process
// sandbox demotes a CPU-bound program's thread while another run is in flight, only where
// the priority can be raised again.
import { describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  DEMOTED_NICE,
  demoteBusyThreads,
  mayRestorePriority,
  restoreThreads,
  restoreThreadsNoLongerBusy,
  WATCH_MS,
} from '../../sandbox/cpu-lanes.ts';
import { createSandbox, ProcessSandbox, type RunOutcome, type Sandbox } from '../../sandbox/index.ts';
import { threadSchedstat } from '../../sandbox/thread-cpu-times.ts';
import { LONG_SLICE_NS, readThreadSlice, setThreadSlice } from '../../sandbox/thread-slice.ts';
import { expectKind, expectOk, type FakeHost, fakeHost, gatedHost } from './helpers.ts';
import { demotedThreads } from '../support/demoted-threads.ts';

/** The nice value this test's threads start with (0, or more when the run was started with `nice`): what a restore gives back. */
const BASE_NICE = getPriority();
import { untilArrived } from '../support/until-arrived.ts';

const linux = process.platform === 'linux';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Thread or process `tid`'s nice value and scheduling policy (fields 19 and 41 of its stat). */
function schedulingOf(tid: number): { nice: number; policy: number } {
  const stat = readFileSync(`/proc/${tid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { nice: Number(fields[16]), policy: Number(fields[38]) };
}

const SCHED_OTHER = 0;
/** How long a demoted thread on a loaded machine is given to get any CPU during a demotion's watch (its test's timeout is this plus 60 s). */
const SPIN_SEEN_WITHIN_MS = 60_000;
/** The kernel's default slice where it reports slices (Linux ≥ 6.12; sandbox/thread-slice.ts), else undefined. */
const defaultSlice = linux ? readThreadSlice(process.pid) : undefined;

/** Starts a worker thread that spins until `flag[0]` is set, then sleeps on it; resolves with its thread id. */
async function spinningWorker(flag: Int32Array): Promise<{ worker: Worker; tid: number }> {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     let tid = 0;
     try { tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()); } catch {}
     parentPort.postMessage(tid);
     while (Atomics.load(workerData, 0) === 0) {}
     Atomics.wait(workerData, 0, 1);`,
    { eval: true, workerData: flag },
  );
  const tid = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { worker, tid };
}

/** Sets `flag[0]` to `value` and wakes the worker waiting on it, then ends the worker. */
async function release(worker: Worker, flag: Int32Array, value = 1): Promise<void> {
  Atomics.store(flag, 0, value);
  Atomics.notify(flag, 0);
  await worker.terminate();
}

/** Times thread `tid` of this process gave up the CPU by itself (Linux). */
function voluntarySwitches(tid: number): number {
  const status = readFileSync(`/proc/self/task/${tid}/status`, 'utf8');
  return Number(/\nvoluntary_ctxt_switches:\s*(\d+)/.exec(status)?.[1]);
}

/** A sandbox of one process (both CPU-bound runs have their threads in it), or in-process; whose threads to read. */
function laneSandbox(isolation: 'in-process' | 'process'): { sandbox: Sandbox; pid: number | 'self' } {
  if (isolation === 'in-process') return { sandbox: createSandbox({ isolation }), pid: 'self' };
  const sandbox = new ProcessSandbox({ processes: 1 });
  const pid = sandbox.childPid;
  if (pid === undefined) throw new Error('no sandbox process');
  return { sandbox, pid };
}

/** An ordinary run held in a tool call until `open()`; resolves once that call is in (with the run's outcome to await later). */
async function startWaitingRun(sandbox: Sandbox, host: FakeHost): Promise<{ outcome: Promise<RunOutcome> }> {
  const waiting = sandbox.run({
    code: 'return await tools.wait({});',
    toolNames: ['wait'],
    hostCall: host.hostCall,
    limits: { wallTimeMs: 120_000 },
  });
  await untilArrived(() => host.calls.length > 0, [waiting]);
  return { outcome: waiting };
}

/**
 * A CPU-bound run, ended by the test through `stop` once it has looked: under load its
 * 1 s of CPU (then a 300 ms watch) can take several seconds of wall time, and a wall
 * limit could end it first.
 */
function startRunaway(sandbox: Sandbox, stop: AbortController): Promise<RunOutcome> {
  return sandbox.run({
    code: 'while (true) {}',
    toolNames: [],
    hostCall: fakeHost().hostCall,
    limits: { wallTimeMs: 120_000 },
    signal: stop.signal,
  });
}

/** Resolves once thread `tid` has run WATCH_MS without yielding (fails after 20 tries). */
async function quietStretch(tid: number): Promise<void> {
  for (let tries = 0; tries < 20; tries += 1) {
    const before = voluntarySwitches(tid);
    await sleep(WATCH_MS);
    if (voluntarySwitches(tid) === before) return;
  }
  throw new Error(`thread ${tid} kept yielding: it is not spinning`);
}

/** The id of a thread of this process that was demoted and has ended since (Linux). */
async function demotedThreadThatEnded(): Promise<number> {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { worker, tid } = await spinningWorker(flag);
  try {
    await quietStretch(tid);
    await demoteBusyThreads();
    expect(demotedThreads()).toContain(tid);
  } finally {
    await worker.terminate();
  }
  while (readdirSync('/proc/self/task').includes(String(tid))) await sleep(5);
  return tid;
}

/** Whether id `tid` is in use by a process or thread other than `mine`. */
function idTakenByOther(tid: number, mine: number | undefined): boolean {
  if (mine === tid) return false;
  try {
    accessSync(`/proc/${tid}`);
    return true;
  } catch {
    return false;
  }
}

/** Kills `child` and resolves once it has been reaped. */
async function stopped(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe('CPU lanes', () => {
  it('demotes a spinning thread (Linux; nothing elsewhere), and restoring succeeds after that thread has ended', async () => {
    // The thread says which it is and starts spinning. Right after that it may still yield
    // once (seen under load: one voluntary switch in the first 300 ms, none later), so the
    // test waits for a quiet stretch of the length the sandbox watches before the demotion.
    const spinner = new Worker(
      `let tid = 0;
       try { tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()); } catch {}
       require('node:worker_threads').parentPort.postMessage(tid);
       for (;;) {}`,
      { eval: true },
    );
    try {
      const tid = await new Promise<number>((resolve, reject) => {
        spinner.once('message', resolve);
        spinner.once('error', reject);
      });
      if (linux) await quietStretch(tid);
      const count = await demoteBusyThreads();
      if (!linux) {
        expect(count).toBe(0);
        return;
      }
      expect(count).toBeGreaterThanOrEqual(1);
      expect(demotedThreads()).toContain(tid);
    } finally {
      await spinner.terminate();
    }
    // The spinner's thread is gone: nothing to restore for it, and that is no failure.
    expect(restoreThreads()).toBe(true);
    expect(demotedThreads()).toStrictEqual([]);
  }, 20_000);

  it("a spinning thread named as one of Node's or V8's own (a garbage collector's worker in a large heap) is never demoted", async () => {
    if (!linux) return;
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const { worker, tid } = await spinningWorker(flag);
    try {
      // Named as V8 names its platform workers: busy in a collection, it is no CPU-bound run.
      writeFileSync(`/proc/self/task/${tid}/comm`, 'V8Worker');
      await quietStretch(tid);
      await demoteBusyThreads();
      expect(demotedThreads()).not.toContain(tid);
      expect(schedulingOf(tid).nice).toBe(BASE_NICE);
    } finally {
      await release(worker, flag);
    }
    restoreThreads();
  }, 20_000);

  it('a demoted thread gets nice 19 with its policy left SCHED_OTHER, and its own nice back (Linux, where the priority may be raised)', async () => {
    if (!linux) return;
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const { worker, tid } = await spinningWorker(flag);
    try {
      await quietStretch(tid);
      expect(await demoteBusyThreads()).toBeGreaterThanOrEqual(1);
      expect(schedulingOf(tid)).toStrictEqual({
        nice: DEMOTED_NICE,
        policy: SCHED_OTHER,
      });
      // And a long slice, where the kernel has slices: threads waking beside it preempt it.
      if (defaultSlice !== undefined) expect(readThreadSlice(tid)).toBe(LONG_SLICE_NS);
      // The thread stops spinning and lives on (as an isolated-vm thread serving other runs would).
      Atomics.store(flag, 0, 1);
      const restored = restoreThreads();
      if (!mayRestorePriority(BASE_NICE)) {
        expect(restored).toBe(false);
        return;
      }
      expect(restored).toBe(true);
      expect(schedulingOf(tid)).toStrictEqual({ nice: BASE_NICE, policy: SCHED_OTHER });
      expect(readThreadSlice(tid)).toBe(defaultSlice);
      expect(demotedThreads()).toStrictEqual([]);
    } finally {
      await release(worker, flag);
    }
  }, 30_000);

  it('a demoted thread that had a slice of its own gets that slice back, not the default (Linux ≥ 6.12, where the priority may be raised)', async () => {
    if (defaultSlice === undefined || !mayRestorePriority(BASE_NICE)) return;
    const own = 5_000_000n; // as if the process had been started with a slice (threads inherit it)
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const { worker, tid } = await spinningWorker(flag);
    try {
      expect(setThreadSlice(tid, own)).toBe(defaultSlice);
      await quietStretch(tid);
      expect(await demoteBusyThreads()).toBeGreaterThanOrEqual(1);
      expect(readThreadSlice(tid)).toBe(LONG_SLICE_NS);
      Atomics.store(flag, 0, 1);
      expect(restoreThreads()).toBe(true);
      expect(schedulingOf(tid)).toStrictEqual({ nice: BASE_NICE, policy: SCHED_OTHER });
      expect(readThreadSlice(tid)).toBe(own);
    } finally {
      await release(worker, flag);
    }
  }, 30_000);

  it('while other threads still spin, a demoted thread that has stopped spinning gets its priority back (Linux, where it may be raised)', async () => {
    if (!linux || !mayRestorePriority(BASE_NICE)) return;
    const flags = [new Int32Array(new SharedArrayBuffer(4)), new Int32Array(new SharedArrayBuffer(4))];
    const [done, going] = await Promise.all(flags.map((flag) => spinningWorker(flag)));
    if (done === undefined || going === undefined) throw new Error('two workers expected');
    try {
      await Promise.all([quietStretch(done.tid), quietStretch(going.tid)]);
      await demoteBusyThreads();
      expect(demotedThreads()).toEqual(expect.arrayContaining([done.tid, going.tid]));
      // Nothing has stopped yet: nothing is restored.
      expect(restoreThreadsNoLongerBusy()).toBe(true);
      expect(demotedThreads()).toEqual(expect.arrayContaining([done.tid, going.tid]));
      Atomics.store(flags[0] as Int32Array, 0, 1);
      while (schedulingOf(done.tid).nice === DEMOTED_NICE && restoreThreadsNoLongerBusy()) {
        await sleep(20); // until the thread has reached its wait
      }
      expect(schedulingOf(done.tid)).toStrictEqual({ nice: BASE_NICE, policy: SCHED_OTHER });
      expect(schedulingOf(going.tid)).toStrictEqual({
        nice: DEMOTED_NICE,
        policy: SCHED_OTHER,
      });
      expect(restoreThreads()).toBe(true);
      expect(schedulingOf(going.tid)).toStrictEqual({ nice: BASE_NICE, policy: SCHED_OTHER });
    } finally {
      for (const flag of flags) {
        Atomics.store(flag, 0, 1);
        Atomics.notify(flag, 0);
      }
      await Promise.all([done.worker.terminate(), going.worker.terminate()]);
    }
  }, 60_000);

  it('a demoted thread that paused and spins again is still busy when a later demotion sees it spinning: it stays demoted (Linux, where it may be raised)', async () => {
    if (!linux || !mayRestorePriority(BASE_NICE)) return;
    // As an isolated-vm thread does: its CPU-bound run ends (it waits for work), and the
    // next task it gets is another CPU-bound run's, for which the process demotes again.
    const flag = new Int32Array(new SharedArrayBuffer(8));
    const worker = new Worker(
      `const { parentPort, workerData: flag } = require('node:worker_threads');
       parentPort.postMessage(Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()));
       while (Atomics.load(flag, 0) === 0) {}
       Atomics.wait(flag, 0, 1, 20);
       Atomics.store(flag, 1, 1);
       while (Atomics.load(flag, 0) === 1) {}
       Atomics.wait(flag, 0, 2);`,
      { eval: true, workerData: flag },
    );
    try {
      const tid = await new Promise<number>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      await quietStretch(tid);
      await demoteBusyThreads();
      expect(demotedThreads()).toContain(tid);
      // It waits once (20 ms), then spins again; the later demotion sees it spinning.
      Atomics.store(flag, 0, 1);
      while (Atomics.load(flag, 1) === 0) await sleep(5);
      await quietStretch(tid);
      // At nice 19 beside a loaded machine's other work the thread may get no CPU for
      // seconds, and a demotion's watch that it does not run in cannot see it spinning:
      // watched again until it ran during one (bounded; a thread that never ran is a
      // starved test machine, said so, not a lane that forgot the thread).
      const deadline = Date.now() + SPIN_SEEN_WITHIN_MS;
      let watches = 0;
      for (let ran = false; !ran; ) {
        if (Date.now() > deadline) {
          throw new Error(
            `thread ${tid} got no CPU at nice ${DEMOTED_NICE} during any of ${watches} demotions' watches in ${SPIN_SEEN_WITHIN_MS} ms`,
          );
        }
        const before = threadSchedstat(tid)?.ns ?? 0;
        await demoteBusyThreads();
        watches += 1;
        ran = (threadSchedstat(tid)?.ns ?? 0) > before;
      }
      expect(restoreThreadsNoLongerBusy()).toBe(true);
      expect(demotedThreads()).toContain(tid);
      expect(restoreThreads()).toBe(true);
      expect(schedulingOf(tid)).toStrictEqual({ nice: BASE_NICE, policy: SCHED_OTHER });
    } finally {
      await release(worker, flag, 2);
    }
  }, 120_000);

  it('restoring every thread while a demotion is still watching makes that demotion demote nothing (Linux, where the priority may be raised)', async () => {
    if (!linux || !mayRestorePriority(BASE_NICE)) return;
    // The last CPU-bound run ended while the process watched its threads: a thread still
    // spinning then (a terminated isolate unwinding, or another run's long stretch) must
    // not be left demoted with no CPU-bound run left to restore it.
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const { worker, tid } = await spinningWorker(flag);
    try {
      await quietStretch(tid);
      const demotion = demoteBusyThreads();
      expect(restoreThreads()).toBe(true);
      expect(await demotion).toBe(0);
      expect(schedulingOf(tid)).toStrictEqual({ nice: BASE_NICE, policy: SCHED_OTHER });
    } finally {
      await release(worker, flag);
      restoreThreads();
    }
  }, 30_000);

  it("a demoted thread that has ended is left alone when restoring: its id may be another process's by now (Linux, as root: the test hands the id on)", async () => {
    if (!linux || !mayRestorePriority(BASE_NICE)) return;
    // ns_last_pid (root only) sets the id the next process gets: an unrelated process
    // takes the ended thread's id, as one may when ids wrap (pid_max is 32768 by default).
    try {
      writeFileSync('/proc/sys/kernel/ns_last_pid', readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8'));
    } catch {
      return;
    }
    let other: ChildProcess | undefined;
    try {
      // The id may stay taken a while after the thread has gone (seen under load), or be
      // taken by another process first: tried again, then again with another thread.
      let tid = 0;
      for (let rounds = 0; rounds < 5 && other?.pid !== tid; rounds += 1) {
        tid = await demotedThreadThatEnded();
        for (let tries = 0; tries < 100 && other?.pid !== tid && !idTakenByOther(tid, other?.pid); tries += 1) {
          // Reaped before the next try: a killed child holds its id until then.
          await stopped(other);
          if (tries > 0) await sleep(20);
          writeFileSync('/proc/sys/kernel/ns_last_pid', String(tid - 1));
          other = spawn('sleep', ['60'], { stdio: 'ignore' });
        }
        if (other?.pid !== tid) await stopped(other);
      }
      expect(other?.pid).toBe(tid);
      setPriority(tid, 7);
      expect(schedulingOf(tid).nice).toBe(7);
      expect(restoreThreads()).toBe(true);
      expect(schedulingOf(tid).nice).toBe(7);
    } finally {
      await stopped(other);
      restoreThreads();
    }
  }, 60_000);

  it('in-process: a CPU-bound run beside another run is demoted only where its priority can be restored, and is restored when it ends', async () => {
    const sandbox = createSandbox({ isolation: 'in-process' });
    const { host, open } = gatedHost('done');
    try {
      const waiting = (await startWaitingRun(sandbox, host)).outcome;
      const stop = new AbortController();
      const runaway = startRunaway(sandbox, stop);
      let seen: number[] = [];
      if (linux && mayRestorePriority(BASE_NICE)) {
        // Reported CPU-bound after 1 s of CPU in one stretch, then watched for 300 ms.
        await untilArrived(() => demotedThreads().length > 0, [waiting, runaway], 45_000);
        seen = demotedThreads();
        expect(seen.length).toBeGreaterThanOrEqual(1);
      } else {
        // Nothing is demoted however long it spins: watched for several times what a demotion takes.
        for (const until = Date.now() + 9_000; Date.now() < until; await sleep(50)) {
          seen = linux ? demotedThreads() : [];
          if (seen.length > 0) break;
        }
        expect(seen).toStrictEqual([]);
      }
      stop.abort();
      expectKind(await runaway, 'abort');
      open();
      expectOk(await waiting, 'done');
      if (linux) expect(demotedThreads()).toStrictEqual([]);
    } finally {
      open();
      await sandbox.close();
    }
  }, 60_000);

  for (const isolation of ['in-process', 'process'] as const) {
    it(`${isolation}: a CPU-bound run that starts spinning after the others were demoted is demoted too (Linux, where it may be raised)`, async () => {
      if (!linux || !mayRestorePriority(BASE_NICE)) return;
      // The first demotion sees only the threads spinning during its watch; a CPU-bound run
      // that starts later (or whose thread that watch missed) is demoted while CPU-bound
      // runs are left, not left at full priority beside the demoted ones.
      const { sandbox, pid } = laneSandbox(isolation);
      const { host, open } = gatedHost('done');
      const stops = [new AbortController(), new AbortController()];
      try {
        const waiting = (await startWaitingRun(sandbox, host)).outcome;
        const first = startRunaway(sandbox, stops[0]!);
        // Exactly the runaway's thread: another caught spinning in the same watch (an isolate
        // being prepared, preempted on a loaded machine) gets its priority back once it sleeps.
        await untilArrived(() => demotedThreads(pid).length === 1, [waiting, first], 90_000);
        const firstDemoted = demotedThreads(pid);
        expect(firstDemoted).toHaveLength(1);
        const second = startRunaway(sandbox, stops[1]!);
        await untilArrived(() => demotedThreads(pid).length >= 2, [waiting, first, second], 90_000);
        expect(demotedThreads(pid)).toEqual(expect.arrayContaining(firstDemoted));
        for (const stop of stops) stop.abort();
        expectKind(await first, 'abort');
        expectKind(await second, 'abort');
        open();
        expectOk(await waiting, 'done');
        // No CPU-bound run left: every thread has its priority back.
        expect(demotedThreads(pid)).toStrictEqual([]);
      } finally {
        for (const stop of stops) stop.abort();
        open();
        await sandbox.close();
      }
    }, 200_000);
  }

  for (const isolation of ['in-process', 'process'] as const) {
    it(`${isolation}: a CPU-bound run's thread gets its priority back once the run has ended, while another CPU-bound run goes on and no other run ends (Linux, where it may be raised)`, async () => {
      if (!linux || !mayRestorePriority(BASE_NICE)) return;
      // The run's end comes before its thread stops (a terminated isolate unwinds first);
      // the thread then waits for isolated-vm's next task, which may be an ordinary run's.
      const { sandbox, pid } = laneSandbox(isolation);
      const { host, open } = gatedHost('done');
      const stops = [new AbortController(), new AbortController()];
      try {
        const threadsOf = (): number[] => demotedThreads(pid);
        const waiting = (await startWaitingRun(sandbox, host)).outcome;
        const runaways = stops.map((stop) => startRunaway(sandbox, stop));
        // A run ending first (a crash, a limit) fails here at once, with its outcome.
        // Exactly the two runaways' threads (another caught spinning in the same watch gets
        // its priority back once it sleeps).
        await untilArrived(() => threadsOf().length === 2, [waiting, ...runaways], 90_000);
        const demoted = threadsOf();
        expect(demoted.length).toBe(2);
        // Each with a long slice, where the kernel has slices (in a sandbox process too). The
        // lane sets the nice value first and the slice just after: seen from another process
        // (or thread) the two can be read in between, so the slice is waited for.
        if (defaultSlice !== undefined) {
          const longSlices = (): boolean => demoted.every((tid) => readThreadSlice(tid, pid) === LONG_SLICE_NS);
          await untilArrived(longSlices, [waiting, ...runaways], 30_000);
          for (const tid of demoted) expect(readThreadSlice(tid, pid)).toBe(LONG_SLICE_NS);
        }
        stops[0]?.abort();
        expectKind(await runaways[0]!, 'abort');
        await untilArrived(() => threadsOf().length === 1, [waiting, runaways[1]!], 30_000);
        const left = threadsOf();
        expect(left.length).toBe(1);
        expect(demoted).toEqual(expect.arrayContaining(left));
        for (const tid of demoted.filter((tid) => !left.includes(tid))) {
          // Restored, or ended meanwhile (isolated-vm's short-lived threads).
          const slice = readThreadSlice(tid, pid);
          if (slice !== undefined) expect(slice).toBe(defaultSlice);
        }
        stops[1]?.abort();
        expectKind(await runaways[1]!, 'abort');
        open();
        expectOk(await waiting, 'done');
      } finally {
        for (const stop of stops) stop.abort();
        open();
        await sandbox.close();
      }
    }, 180_000);
  }

  for (const isolation of ['in-process', 'process'] as const) {
    it(`${isolation}: once only CPU-bound runs are in flight, their threads get their priority back; a new ordinary run demotes them again (Linux, where it may be raised)`, async () => {
      if (!linux || !mayRestorePriority(BASE_NICE)) return;
      // Demoted, a CPU-bound run makes way for our ordinary runs; with none left, at nice 19
      // beside other processes' work it would get almost no CPU until its wall clock ended it.
      const { sandbox, pid } = laneSandbox(isolation);
      const first = gatedHost('done');
      const second = gatedHost('again');
      const stop = new AbortController();
      try {
        const waiting = (await startWaitingRun(sandbox, first.host)).outcome;
        const runaway = startRunaway(sandbox, stop);
        await untilArrived(() => demotedThreads(pid).length >= 1, [waiting, runaway], 90_000);
        first.open();
        expectOk(await waiting, 'done');
        await untilArrived(() => demotedThreads(pid).length === 0, [runaway], 30_000);
        const next = (await startWaitingRun(sandbox, second.host)).outcome;
        await untilArrived(() => demotedThreads(pid).length >= 1, [next, runaway], 90_000);
        second.open();
        expectOk(await next, 'again');
        stop.abort();
        expectKind(await runaway, 'abort');
        expect(demotedThreads(pid)).toStrictEqual([]);
      } finally {
        stop.abort();
        first.open();
        second.open();
        await sandbox.close();
      }
    }, 240_000);
  }
});
