// The watchdog on an overloaded host (Linux): a healthy sandbox process that is runnable
// but waits for a CPU (pinned with busy loops to one CPU at nice 19) is not killed for its
// silence, nor for a cancel it confirms late; a stopped one on the same starved CPU still is.
import { describe, expect, it } from '@jest/globals';
import { ProcessSandbox } from '../../sandbox/index.ts';
import { expectKind, expectOk, fakeHost, gatedHost, ok, sleep, untilAborted } from './helpers.ts';
import { procState, relieve, type Starvation, schedstat, starve } from './starvation.ts';
import { untilArrived } from '../support/until-arrived.ts';

const HEARTBEAT_MS = 50;
const UNRESPONSIVE_MS = 400;
/** Busy loops sharing the sandbox process's CPU: at nice 19 it gets ~1% of that CPU. */
const BUSY_LOOPS = 2;
/**
 * A test that starves its sandbox process: at nice 19 it crawls, the more so on a machine
 * that is busy besides (the busy loops end after 90 s, but nice 19 still gets a sliver of a
 * loaded CPU); a whole loaded suite took over 120 s here.
 */
const STARVED_TEST_MS = 300_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A sandbox whose watchdog kills a process silent for 400 ms, and whose runs cannot be re-run (a kill would lose them). */
async function watchedSandbox(): Promise<{ sandbox: ProcessSandbox; pid: number }> {
  const sandbox = new ProcessSandbox({
    poolSize: 0,
    processes: 1,
    heartbeatMs: HEARTBEAT_MS,
    unresponsiveMs: UNRESPONSIVE_MS,
    hangGraceMs: 200,
    rerunRecordBytes: 0,
    limits: { wallTimeMs: STARVED_TEST_MS },
  });
  expectOk(await sandbox.run({ code: 'return 1', toolNames: [], hostCall: fakeHost().hostCall }), 1);
  const pid = sandbox.childPid;
  if (pid === undefined) throw new Error('no sandbox process');
  return { sandbox, pid };
}

/** Each call answered after a short delay, so the program waits on the host between calls. */
const tick = fakeHost;
const slowly = async (): Promise<ReturnType<typeof ok>> => {
  await sleep(10);
  return ok(1);
};

const linux = process.platform === 'linux';

/**
 * How long the main thread of `pid` has waited for a CPU since `before`. A process gone
 * meanwhile has no /proc files: infinite, so a wait on it stops and the run's outcome says why it went.
 */
function waitedSince(pid: number, before: { waitedMs: number }): number {
  try {
    return schedstat(pid).waitedMs - before.waitedMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** How long a starved process's main thread waits for a CPU, under the watchdog, before it gets the CPU back. */
const STARVED_WAIT_MS = 4 * UNRESPONSIVE_MS;

/**
 * Keeps process `pid` starved until its main thread has waited STARVED_WAIT_MS for a CPU
 * since `before` (the watchdog judging it all that while), or `run` has ended, then gives it
 * the CPU back. Starved throughout, the rest of the run crawls: at nice 19 beside a loaded
 * machine's work, 20 calls took minutes (over the test's 300 s in a loaded pair).
 */
async function starvedFor(
  pid: number,
  starvation: Starvation,
  before: { waitedMs: number },
  run: Promise<unknown>,
): Promise<void> {
  let ended = false;
  void run.then(
    () => (ended = true),
    () => (ended = true),
  );
  const waited = (): number => waitedSince(pid, before);
  await untilArrived(
    () => ended || waited() >= STARVED_WAIT_MS,
    [],
    STARVED_TEST_MS / 2,
    () => `its main thread waited ${Math.round(waited())} ms for a CPU`,
  );
  starvation.stop();
  relieve(pid);
}

describe('the watchdog on a starved CPU', () => {
  if (!linux) return;

  it(
    'a healthy sandbox process that mostly waits for a CPU is not killed, though unresponsiveMs is low',
    async () => {
      const { sandbox, pid } = await watchedSandbox();
      const starvation = starve(pid, BUSY_LOOPS);
      try {
        const before = schedstat(pid);
        const host = tick(slowly);
        const run = sandbox.run({
          code: 'let n = 0; for (let i = 0; i < 20; i++) n += await tools.tick({ i }); return n;',
          toolNames: ['tick'],
          hostCall: host.hostCall,
        });
        await starvedFor(pid, starvation, before, run);
        const outcome = await run;
        // Not killed: the same process, every call made once (a re-run is impossible without a record).
        // Asserted first: a killed process's run says why, and its /proc files are gone.
        expectOk(outcome, 20);
        expect(host.calls).toHaveLength(20);
        expect(sandbox.childPid).toBe(pid);
        expect(isAlive(pid)).toBe(true);
        const after = schedstat(pid);
        // It really was starved: its main thread waited for the CPU far longer than the watchdog's bound.
        expect(after.waitedMs - before.waitedMs).toBeGreaterThan(2 * UNRESPONSIVE_MS);
      } finally {
        starvation.stop();
        await sandbox.close();
      }
    },
    STARVED_TEST_MS,
  );

  it(
    'a starved sandbox process confirms a cancel late and is not killed for it: its other run finishes',
    async () => {
      const { sandbox, pid } = await watchedSandbox();
      const park = fakeHost((request) => untilAborted(request.signal).then(() => ok('late')));
      // Cancelled by the test once the process is starved, not by a deadline: a 3 s one had
      // to pass after the call came (a slower start ended the run first, and the wait for
      // the call never ended) and after the starvation began (else nothing was late).
      const cancel = new AbortController();
      const parked = sandbox.run({
        code: 'await tools.park({}); return 1;',
        toolNames: ['park'],
        hostCall: park.hostCall,
        signal: cancel.signal,
      });
      await untilArrived(() => park.calls.length > 0, [parked]);
      const starvation = starve(pid, BUSY_LOOPS);
      try {
        const before = schedstat(pid);
        const host = tick(slowly);
        // Ten calls: at nice 19 on a CPU shared with busy loops, on a machine that is busy
        // besides, each takes seconds; the starvation asserted below comes within the first.
        const bystander = sandbox.run({
          code: 'let n = 0; for (let i = 0; i < 10; i++) n += await tools.tick({ i }); return n;',
          toolNames: ['tick'],
          hostCall: host.hostCall,
        });
        // The cancel goes while the process waits for a CPU: its confirmation is late.
        let ran = false;
        void bystander.then(() => (ran = true));
        while (!ran && waitedSince(pid, before) < UNRESPONSIVE_MS) await sleep(5);
        cancel.abort();
        expectKind(await parked, 'abort');
        await starvedFor(pid, starvation, before, bystander);
        expectOk(await bystander, 10);
        expect(host.calls).toHaveLength(10);
        expect(schedstat(pid).waitedMs - before.waitedMs).toBeGreaterThan(2 * UNRESPONSIVE_MS);
        expect(sandbox.childPid).toBe(pid);
      } finally {
        starvation.stop();
        await sandbox.close();
      }
    },
    STARVED_TEST_MS,
  );

  it('a stopped sandbox process on the starved CPU is still killed; its run is re-run and finishes', async () => {
    const sandbox = new ProcessSandbox({
      poolSize: 0,
      processes: 1,
      heartbeatMs: HEARTBEAT_MS,
      unresponsiveMs: UNRESPONSIVE_MS,
      limits: { wallTimeMs: 120_000 },
    });
    let starvation: { stop: () => void } | undefined;
    try {
      expectOk(await sandbox.run({ code: 'return 1', toolNames: [], hostCall: fakeHost().hostCall }), 1);
      const pid = sandbox.childPid;
      if (pid === undefined) throw new Error('no sandbox process');
      const { host: work, open } = gatedHost('answered');
      const pending = sandbox.run({
        code: 'return await tools.work({});',
        toolNames: ['work'],
        hostCall: work.hostCall,
      });
      await untilArrived(() => work.calls.length > 0, [pending]);
      starvation = starve(pid, BUSY_LOOPS);
      process.kill(pid, 'SIGSTOP');
      // A starved process stops once it gets the CPU to take the signal.
      while (isAlive(pid) && procState(pid) !== 'T') await sleep(5);
      // No deadline is due for two minutes: only the watchdog ends it, well within the test's time.
      // Its SIGKILL wakes the stopped process, which then needs a CPU to exit: at nice 19 beside
      // the busy loops that can take minutes on a busy machine, so the starvation ends there.
      while (isAlive(pid) && procState(pid) === 'T') await sleep(20);
      starvation.stop();
      relieve(pid);
      while (isAlive(pid)) await sleep(20);
      open();
      expectOk(await pending, 'answered');
      expect(work.calls).toHaveLength(1);
      expect(sandbox.childPid).not.toBe(pid);
    } finally {
      starvation?.stop();
      await sandbox.close();
    }
  }, 120_000);

  it('the kill says what the main thread was doing', async () => {
    const { sandbox, pid } = await watchedSandbox();
    try {
      const hang = fakeHost((request) => untilAborted(request.signal).then(() => ok('late')));
      const pending = sandbox.run({
        code: 'await tools.hang({}); return 1;',
        toolNames: ['hang'],
        hostCall: hang.hostCall,
      });
      await untilArrived(() => hang.calls.length > 0, [pending]);
      process.kill(pid, 'SIGSTOP');
      // Then where the blocking-call pipe stood (the call may have gone over IPC instead).
      expectKind(
        await pending,
        'crash',
        /sent nothing for 400 ms and was killed \(its main thread was stopped\) \(blocking-call pipe: bytes last came (\d+ ms before|never), a call frame (\d+ ms before|never), an answer or release last went (\d+ ms before|never)\)/,
      );
    } finally {
      await sandbox.close();
    }
  }, 60_000);
});
