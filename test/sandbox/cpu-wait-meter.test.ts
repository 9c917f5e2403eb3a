// The watchdog's view of a process's threads, read from /proc of real processes
// (Linux): a starved one waited for a CPU (time it could not use), while a sleeping
// (deadlocked), stopped or spinning one gets no credit that would keep it alive. A process
// /proc says nothing about gives no credit either: the watchdog goes by the clock alone.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { CpuWaitMeter } from '../../sandbox/cpu-wait-meter.ts';
import { sleep } from './helpers.ts';
import { procState, schedstat, starve } from './starvation.ts';

/** The thread ids of `pid`. */
const threadsOf = (pid: number): string[] => readdirSync(`/proc/${pid}/task`);

/** A thread's scheduler state letter from /proc/<pid>/task/<tid>/stat (undefined once it is gone). */
function threadState(pid: number, tid: string): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0];
  } catch {
    return undefined;
  }
}

/** A Node process running `code`; resolves once its main thread is in `state`. */
async function processIn(code: string, state: string): Promise<ChildProcess & { pid: number }> {
  const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
  const { pid } = child;
  if (pid === undefined) throw new Error('the process did not start');
  for (let tries = 0; procState(pid) !== state; tries++) {
    if (tries > 2_000) throw new Error(`process ${pid} never got to state ${state}`);
    await sleep(10);
  }
  return Object.assign(child, { pid });
}

/** Resolves once the main thread of `pid` has not run for 200 ms (done starting up: it sleeps). */
async function settled(pid: number): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    const before = schedstat(pid).ranMs;
    await sleep(200);
    if (schedstat(pid).ranMs === before) return;
  }
  throw new Error(`process ${pid} kept running`);
}

const SLEEPER = 'setTimeout(() => {}, 60_000);';
const SPINNER = 'const end = Date.now() + 60_000; while (Date.now() < end);';
/** Wakes every millisecond: healthy, but needs the CPU often. */
const TICKER =
  'const end = Date.now() + 60_000; const t = setInterval(() => { if (Date.now() > end) clearInterval(t); }, 1);';

/** Two heartbeat readings `ms` apart; returns the wait the second one counted. */
async function twoReadings(meter: CpuWaitMeter, ms: number): Promise<number> {
  meter.waitedMs(Date.now());
  await sleep(ms);
  return meter.waitedMs(Date.now());
}

describe('CPU wait meter', () => {
  if (process.platform !== 'linux') return;

  it('a process /proc cannot tell about (gone) gives no credit and no state', async () => {
    const gone = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((resolve) => gone.once('exit', resolve));
    const meter = new CpuWaitMeter(gone.pid ?? -1);
    expect(meter.waitedMs(Date.now())).toBe(0);
    expect(meter.waitedMs(Date.now() + 100)).toBe(0);
    expect(meter.unseenWaitMs()).toBe(0);
    const mark = meter.mark(Date.now());
    expect(mark).toBeUndefined();
    expect(meter.waitedSince(mark, Date.now())).toBe(0);
    expect(meter.describeState()).toBeUndefined();
  });

  it('a sleeping main thread (as a deadlocked one) waits for no CPU: no credit', async () => {
    const sleeper = await processIn(SLEEPER, 'S');
    try {
      await settled(sleeper.pid);
      const meter = new CpuWaitMeter(sleeper.pid);
      const started = Date.now();
      const mark = meter.mark(started);
      const waited = await twoReadings(meter, 300);
      // Far less credit than the time that passed (it waits for nothing; a stray wake-up on a
      // loaded machine may wait a little): its silence keeps growing.
      expect(waited).toBeLessThan((Date.now() - started) / 2);
      expect(meter.unseenWaitMs()).toBe(0);
      expect(meter.waitedSince(mark, Date.now())).toBeLessThan((Date.now() - started) / 2);
      expect(meter.describeState()).toBe('sleeping');
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('a stopped process waits for no CPU: no credit', async () => {
    const sleeper = await processIn(SLEEPER, 'S');
    try {
      process.kill(sleeper.pid, 'SIGSTOP');
      // Every thread, not only the main one: a thread that was waiting for a CPU when the
      // signal came waits on until it gets one to stop in (a wait the meter rightly counts).
      for (let tries = 0; !threadsOf(sleeper.pid).every((tid) => threadState(sleeper.pid, tid) === 'T'); tries++) {
        if (tries > 2_000) throw new Error(`process ${sleeper.pid} never stopped all its threads`);
        await sleep(5);
      }
      const meter = new CpuWaitMeter(sleeper.pid);
      const mark = meter.mark(Date.now());
      expect(await twoReadings(meter, 300)).toBe(0);
      expect(meter.unseenWaitMs()).toBe(0);
      expect(meter.waitedSince(mark, Date.now())).toBe(0);
      expect(meter.describeState()).toBe('stopped');
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  // (A spinner starved so hard that it does not run for a whole interval is spared for that
  // interval, as any starved thread; it is killed once it has used its own time.)
  it('a spinning main thread runs: a wait under way is bounded by the interval, never open-ended', async () => {
    const spinner = await processIn(SPINNER, 'R');
    try {
      // Node starting up is R too, and may block on a read; it is spinning once its main
      // thread has run for longer than a start takes (tens of ms of CPU).
      for (let tries = 0; schedstat(spinner.pid).ranMs < 300; tries++) {
        if (tries > 2_000) throw new Error(`process ${spinner.pid} never ran 300 ms`);
        await sleep(10);
      }
      const meter = new CpuWaitMeter(spinner.pid);
      const started = Date.now();
      await twoReadings(meter, 500);
      const unseen = meter.unseenWaitMs();
      expect(Number.isFinite(unseen)).toBe(true);
      expect(unseen).toBeLessThanOrEqual(Date.now() - started);
      expect(meter.describeState()).toBe('runnable');
    } finally {
      spinner.kill('SIGKILL');
    }
  });

  it("a main thread asleep on a starved thread of its own (the isolate's, say) is credited with that thread's waits", async () => {
    // The main thread blocks in Atomics.wait (sleeping) while a worker thread ticks: only
    // the worker waits for the CPU. A meter that read the main thread alone gave no credit.
    const sleeperOnWorker = await processIn(
      `new (require('node:worker_threads').Worker)(${JSON.stringify(TICKER)}, { eval: true });
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);`,
      'S',
    );
    await settled(sleeperOnWorker.pid);
    const starvation = starve(sleeperOnWorker.pid, 2);
    try {
      const meter = new CpuWaitMeter(sleeperOnWorker.pid);
      const started = Date.now();
      const mark = meter.mark(started);
      const waited = await twoReadings(meter, 1_000);
      const readAt = Date.now();
      const elapsed = readAt - started;
      const since = meter.waitedSince(mark, readAt);
      expect(meter.describeState()).toBe('sleeping');
      expect(waited + Math.min(meter.unseenWaitMs(), elapsed)).toBeGreaterThan(300);
      expect(since).toBeGreaterThan(elapsed / 2);
      expect(since).toBeLessThanOrEqual(elapsed + 1);
    } finally {
      starvation.stop();
      sleeperOnWorker.kill('SIGKILL');
    }
  });

  it('a healthy process starved of CPU (pinned with busy loops, nice 19) is credited with its waits', async () => {
    const ticker = await processIn(TICKER, 'S');
    const starvation = starve(ticker.pid, 2);
    try {
      const meter = new CpuWaitMeter(ticker.pid);
      const started = Date.now();
      const mark = meter.mark(started);
      const waited = await twoReadings(meter, 1_000);
      const readAt = Date.now();
      const since = meter.waitedSince(mark, readAt);
      // From the mark to the reading: what `since` may count at most.
      const elapsed = readAt - started;
      // Most of its time went waiting for the CPU; a wait under way counts too.
      expect(waited + Math.min(meter.unseenWaitMs(), elapsed)).toBeGreaterThan(300);
      expect(since).toBeGreaterThan(elapsed / 2);
      expect(since).toBeLessThanOrEqual(elapsed + 1);
    } finally {
      starvation.stop();
      ticker.kill('SIGKILL');
    }
  });
});
