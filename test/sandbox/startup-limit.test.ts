// A sandbox process's start-up limit counts only time it could have used: a process that
// starts on a starved CPU (runnable, waiting) is not killed for the wait, a stopped one is
// killed at the limit and says why, and a bad limit is refused up front.
import { describe, expect, it } from '@jest/globals';
import { createSandbox, ProcessSandbox } from '../../sandbox/index.ts';
import { startChild } from '../../sandbox/sandbox-child.ts';
import { untilArrived } from '../support/until-arrived.ts';
import { expectOk, fakeHost } from './helpers.ts';
import { relieve, startStarved, threadTimes } from './starvation.ts';

const LIMIT_MS = 1_000;
/** A starved start crawls, the more so on a busy machine: room for it. */
const STARVED_TEST_MS = 180_000;
const linux = process.platform === 'linux';

describe('a sandbox process start-up limit', () => {
  it('a bad startupLimitMs is refused, naming the option', () => {
    expect(() => new ProcessSandbox({ startupLimitMs: 600_001 })).toThrow(
      'startupLimitMs must be at most 600000 (10 minutes), got 600001',
    );
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => new ProcessSandbox({ startupLimitMs: bad })).toThrow(
        `startupLimitMs must be a positive integer (1 or more), got ${String(bad)}`,
      );
      expect(() => createSandbox({ startupLimitMs: bad })).toThrow(/startupLimitMs must be a positive integer/);
    }
  });

  it('a process stopped at start is killed at the limit, and the reason says so', async () => {
    const gone: string[] = [];
    const startedAt = Date.now();
    const child = startChild(
      { poolSize: 0, memoryMb: 64, blockingCalls: false },
      'ignore',
      { message: () => {}, call: () => {}, dyingAtStart: () => {}, gone: (_child, how) => gone.push(how) },
      LIMIT_MS,
    );
    const pid = child.process.pid;
    if (pid === undefined) throw new Error('no sandbox process');
    // Stopped: not runnable, so no CPU wait excuses it.
    process.kill(pid, 'SIGSTOP');
    await untilArrived(
      () => gone.length > 0,
      [],
      60_000,
      () => `not gone; ready: ${String(child.ready)}`,
    );
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(LIMIT_MS);
    expect(child.ready).toBe(false);
    expect(gone).toEqual([
      expect.stringMatching(
        /^it was not ready within its start-up limit of 1000 ms \(\d+ ms after it was started, \d+ ms of them waiting for a CPU\)/u,
      ),
    ]);
  });

  it('startupLimitMs reaches the sandbox processes: one stopped at start is replaced, and the run goes to the next', async () => {
    const sandbox = new ProcessSandbox({ processes: 1, poolSize: 0, startupLimitMs: LIMIT_MS });
    try {
      const stopped = sandbox.childPids[0];
      if (stopped === undefined) throw new Error('no sandbox process');
      process.kill(stopped, 'SIGSTOP');
      const run = sandbox.run({ code: 'return 6 * 7;', toolNames: [], hostCall: fakeHost().hostCall });
      // The default limit (30 s) would keep the run waiting far past this.
      await untilArrived(
        () => !sandbox.processViews.some((view) => view.pid === stopped && !view.dead),
        [run],
        20_000,
        () => JSON.stringify(sandbox.processViews),
      );
      expectOk(await run, 42);
      expect(sandbox.childPid).not.toBe(stopped);
    } finally {
      await sandbox.close();
    }
  });

  if (!linux) return;

  it(
    'a process that starts on a starved CPU is not killed for its wait, and is ready past the limit',
    async () => {
      const limitMs = 2_000;
      const gone: string[] = [];
      let readyAt: number | undefined;
      let forkedAt = Number.NaN;
      // Starved from its first milliseconds, beside two busy loops on its CPU at nice 19 (about 1% of that CPU), it is
      // given the CPU back once it has waited twice its limit: its start takes longer than the limit, nearly all of
      // it waiting, and ends well within the hard bound however busy the machine is (relieved at most four limits
      // after its fork, with nice 0 and every CPU back, it has six limits to finish starting).
      const { value: child, starvation } = startStarved(2, 19, () => {
        forkedAt = Date.now();
        return startChild(
          { poolSize: 0, memoryMb: 64, blockingCalls: false },
          'ignore',
          {
            message: (started, value) => {
              if ((value as { type?: unknown }).type !== 'ready') return;
              started.ready = true;
              readyAt = Date.now();
            },
            call: () => {},
            dyingAtStart: () => {},
            gone: (_child, how) => gone.push(how),
          },
          limitMs,
        );
      });
      const pid = child.process.pid;
      const waitedMs = (): number => (pid === undefined ? 0 : threadTimes(pid).longestWaitMs);
      const seen = (): string =>
        `ready: ${readyAt === undefined ? 'no' : `after ${readyAt - forkedAt} ms`}, gone: ${JSON.stringify(gone)}, ` +
        `killed because: ${child.killedBecause ?? 'not killed'}; its longest-waiting thread waited ${Math.round(waitedMs())} ms ` +
        `in ${Date.now() - forkedAt} ms`;
      try {
        if (pid === undefined) throw new Error('no sandbox process');
        // Starved until it has waited twice its limit. Linux adds a wait to the counters when it
        // ends, and on a busy machine a starved thread's turn may come seconds apart: after four
        // limits it has surely waited (it gets about 1% of the CPU) and gets the CPU back, well
        // before the hard bound (ten limits). Or until the host has judged it: a process killed
        // while still starved would take minutes to exit at nice 19 beside the busy loops.
        await untilArrived(
          () =>
            readyAt !== undefined ||
            gone.length > 0 ||
            child.killedBecause !== undefined ||
            waitedMs() >= 2 * limitMs ||
            Date.now() - forkedAt >= 4 * limitMs,
          [],
          90_000,
          seen,
        );
        starvation.stop();
        // What it ran until now: starved, it could not use its limit (it waited instead).
        const ranWhileStarvedMs = threadTimes(pid).ranMs;
        if (gone.length === 0) relieve(pid);
        await untilArrived(() => readyAt !== undefined || gone.length > 0, [], 60_000, seen);
        expect({ gone, killedBecause: child.killedBecause }).toEqual({ gone: [], killedBecause: undefined });
        expect(readyAt! - forkedAt).toBeGreaterThan(limitMs);
        // It really was starved: until it got the CPU back, all its threads together ran for less
        // than its limit, though it was not ready until past it (a sleeping process would have
        // been killed at the limit: only a wait for a CPU is excused).
        expect(ranWhileStarvedMs).toBeLessThan(limitMs);
      } finally {
        starvation.stop();
        child.process.kill('SIGKILL');
      }
    },
    STARVED_TEST_MS,
  );

  it(
    'however long it waited for a CPU, a process not ready at 10 times the limit is killed',
    async () => {
      const limitMs = 300;
      const gone: string[] = [];
      const startedAt = Date.now();
      // Starved from its first milliseconds, beside two busy loops at nice 19: about 1% of that CPU, far too little to start in 3 s.
      const { value: child, starvation } = startStarved(2, 19, () =>
        startChild(
          { poolSize: 0, memoryMb: 64, blockingCalls: false },
          'ignore',
          { message: () => {}, call: () => {}, dyingAtStart: () => {}, gone: (_child, how) => gone.push(how) },
          limitMs,
        ),
      );
      const pid = child.process.pid;
      try {
        // The host judges it while it is starved; its exit then needs the CPU back (at nice 19
        // beside the busy loops a killed process can take minutes to end).
        await untilArrived(
          () => gone.length > 0 || child.killedBecause !== undefined,
          [],
          60_000,
          () => `not killed; ready: ${String(child.ready)}`,
        );
      } finally {
        starvation.stop();
      }
      if (pid !== undefined) relieve(pid);
      await untilArrived(
        () => gone.length > 0,
        [],
        60_000,
        () => `killed (${child.killedBecause}) but not gone`,
      );
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(10 * limitMs);
      expect(child.ready).toBe(false);
      expect(gone).toEqual([
        expect.stringMatching(
          /^it was not ready 3000 ms after it was started \(10 × the start-up limit\), whatever it waited for/u,
        ),
      ]);
    },
    STARVED_TEST_MS,
  );
});
