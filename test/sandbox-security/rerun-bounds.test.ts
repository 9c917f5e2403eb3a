// Re-runs after a sandbox process died are bounded: runs that may have killed it are
// re-run alone, at most maxRerunProcesses (MAX_RERUN_PROCESSES) processes at a time; runs
// that were waiting on a host call are re-run together, at most maxRunsPerSharedRerun
// (MAX_RUNS_PER_SHARED_RERUN) per shared re-run process and maxSharedRerunProcesses
// (MAX_SHARED_RERUN_PROCESSES) such processes. Re-runs past either bound wait their turn
// and still end on their own deadline or abort; every re-run process exits once its runs
// are done, and no tool body runs twice. The bounds are sandbox options, checked up front.
import { afterAll, describe, expect, it } from '@jest/globals';
import {
  MAX_RERUN_PROCESSES,
  MAX_RUNS_PER_SHARED_RERUN,
  MAX_SHARED_RERUN_PROCESSES,
  ProcessSandbox,
} from '../../sandbox/process-sandbox.ts';
import { createSandbox } from '../../sandbox/index.ts';
import type { RunOutcome, SandboxOptions } from '../../sandbox/types.ts';
import { type Gate, gate } from '../support/gate.ts';
import { heardFrom } from './fixtures/beacon.ts';
import { noRerunProcessesLeft, until, watchReruns } from './fixtures/rerun-watch.ts';
import { twoStepHost } from './fixtures/two-step-host.ts';
import {
  childProcesses,
  expectFailure,
  expectHealthy,
  expectResult,
  okJson,
  type Recorder,
  recordingHost,
  sleep,
} from './helpers.ts';

const RUNS = MAX_RERUN_PROCESSES * 3;
/** A case's bound: room for a wait on fresh re-run processes (SPAWN_WAIT_MS) and the rest of the case, on a loaded machine. */
const CASE_MS = 300_000;
const SHARED_CAPACITY = MAX_SHARED_RERUN_PROCESSES * MAX_RUNS_PER_SHARED_RERUN;

/**
 * Starts `RUNS` runs of `code` whose first call (`tools.work`) is answered at once, then
 * a beacon run whose call is held until `releaseBeacon()`. Returns once the beacon's call
 * arrived: the process was heard from after every answer went out, so each of the runs
 * may be running on its answer (it is on a guest timer) and counts as one that may have
 * killed its process. The beacon was waiting on the host.
 */
async function runningRuns(
  sandbox: ProcessSandbox,
  code: (i: number) => string,
  signals: readonly AbortSignal[] = [],
  holdLastCalls?: Gate,
): Promise<{ rec: Recorder; runs: Promise<RunOutcome>[]; beacon: Promise<RunOutcome>; releaseBeacon: () => void }> {
  const rec = recordingHost(['work'], async (request) => {
    const { i } = JSON.parse(request.argsJson) as { i: number };
    if (i === -1) await holdLastCalls?.passed;
    return okJson({ n: i });
  });
  const runs = Array.from({ length: RUNS }, (_, i) =>
    sandbox.run({
      code: code(i),
      toolNames: ['work'],
      hostCall: rec.hostCall,
      ...(signals[i] === undefined ? {} : { signal: signals[i] }),
    }),
  );
  await until(() => rec.calls.length === RUNS && rec.inFlight === 0);
  const { beacon, open } = await heardFrom(sandbox);
  return { rec, runs, beacon, releaseBeacon: open };
}

/**
 * Starts `count` runs that each wait on `first`, then on `second` (held until the test
 * opens them; run i returns 2 × i), kills their sandbox process while every one waits in
 * `first`, and opens `first` once the shared re-run processes exist. Returns while the
 * re-runs go on to their `second` calls (or wait for a place first).
 */
async function killWhileWaiting(sandbox: ProcessSandbox, count: number) {
  const pid = sandbox.childPid ?? 0;
  const { rec, first, second, secondCalls } = twoStepHost();
  const runs = Array.from({ length: count }, (_, i) =>
    sandbox.run({
      code: `const a = await tools.first({ i: ${i} }); const b = await tools.second({ i: ${i} }); return a + b;`,
      toolNames: ['first', 'second'],
      hostCall: rec.hostCall,
    }),
  );
  await until(() => rec.calls.length === count);
  process.kill(pid, 'SIGKILL');
  await until(() => sandbox.rerunPids.shared.length > 0);
  first.open();
  return { rec, runs, openSecond: second.open, secondCalls };
}

const ON_A_LONG_TIMER = (i: number): string =>
  `await tools.work({ i: ${i} }); await new Promise((resolve) => setTimeout(resolve, 50_000)); return 1;`;

describe('re-runs after a sandbox process died', () => {
  const sandbox = new ProcessSandbox({ processes: 1, limits: { wallTimeMs: 60_000 } });
  afterAll(() => sandbox.close());

  it(
    `a process holding ${RUNS} runs that were not waiting on the host dies: each is re-run alone, at most ${MAX_RERUN_PROCESSES} re-run processes at a time, every run finishes once, every re-run process exits`,
    async () => {
      await expectHealthy(sandbox);
      const pid = sandbox.childPid ?? 0;
      const before = new Set(childProcesses());
      const lastCalls = gate();
      // On a guest timer well past the kill when it dies (5 s: under load the kill may come a
      // second or more after the answers); a re-run's timer keeps the first attempt's clock.
      const { rec, runs, beacon, releaseBeacon } = await runningRuns(
        sandbox,
        (i) =>
          `const a = await tools.work({ i: ${i} }); await new Promise((resolve) => setTimeout(resolve, 5_000)); const b = await tools.work({ i: -1 }); return a.n * 10 + b.n;`,
        [],
        lastCalls,
      );
      const lastCallsIn = (): number => rec.calls.filter((call) => call.argsJson === '{"i":-1}').length;
      process.kill(pid, 'SIGKILL');
      // Every alone re-run process holds its run in the last call: the other re-runs wait their turn.
      await until(() => lastCallsIn() >= MAX_RERUN_PROCESSES);
      await sleep(300);
      expect(lastCallsIn()).toBe(MAX_RERUN_PROCESSES);
      expect(sandbox.rerunPids.alone).toHaveLength(MAX_RERUN_PROCESSES);
      let peak = sandbox.rerunPids.alone.length;
      let peakShared = sandbox.rerunPids.shared.length;
      lastCalls.open();
      const settled = Promise.all(runs);
      let done = false;
      void settled.finally(() => (done = true));
      while (!done) {
        peak = Math.max(peak, sandbox.rerunPids.alone.length);
        peakShared = Math.max(peakShared, sandbox.rerunPids.shared.length);
        await sleep(20);
      }
      (await settled).forEach((outcome, i) => expectResult(outcome, i * 10 - 1));
      // Only the beacon, which was waiting on the host, shares a re-run process.
      releaseBeacon();
      expectResult(await beacon, 'beacon');
      // One body per call: the first calls once each (answered from the record on the re-runs), the second ones once each.
      expect(rec.calls.filter((call) => call.argsJson !== '{"i":-1}')).toHaveLength(RUNS);
      expect(rec.calls).toHaveLength(2 * RUNS);
      expect(peak).toBe(MAX_RERUN_PROCESSES);
      expect(peakShared).toBe(1);
      let left = childProcesses().filter((p) => !before.has(p) && !sandbox.childPids.includes(p));
      for (let i = 0; i < 200 && left.length > 0; i++) {
        await sleep(25);
        left = childProcesses().filter((p) => !before.has(p) && !sandbox.childPids.includes(p));
      }
      expect(left).toStrictEqual([]);
      await expectHealthy(sandbox);
    },
    CASE_MS,
  );

  it(
    `a process holding ${SHARED_CAPACITY + 8} runs waiting on the host dies: ${MAX_RUNS_PER_SHARED_RERUN} re-runs in each of ${MAX_SHARED_RERUN_PROCESSES} shared re-run processes, the other 8 wait for a place and then finish`,
    async () => {
      const runs = SHARED_CAPACITY + 8;
      await expectHealthy(sandbox);
      const { rec, runs: pending, openSecond, secondCalls } = await killWhileWaiting(sandbox, runs);
      await until(() => secondCalls() === SHARED_CAPACITY);
      await sleep(500);
      // Every place is taken by a run held in its second call: the rest wait.
      expect(secondCalls()).toBe(SHARED_CAPACITY);
      expect(sandbox.rerunPids.shared).toHaveLength(MAX_SHARED_RERUN_PROCESSES);
      expect(sandbox.rerunPids.alone).toStrictEqual([]);
      openSecond();
      (await Promise.all(pending)).forEach((outcome, i) => expectResult(outcome, 2 * i));
      expect(rec.calls).toHaveLength(2 * runs);
      await until(() => sandbox.rerunPids.shared.length === 0);
      await expectHealthy(sandbox);
    },
    CASE_MS,
  );

  it(
    'a re-run still waiting for a process ends on abort instead of hanging',
    async () => {
      await expectHealthy(sandbox);
      const pid = sandbox.childPid ?? 0;
      const controllers = Array.from({ length: RUNS }, () => new AbortController());
      const { rec, runs, beacon, releaseBeacon } = await runningRuns(
        sandbox,
        ON_A_LONG_TIMER,
        controllers.map((controller) => controller.signal),
      );
      process.kill(pid, 'SIGKILL');
      await until(() => sandbox.rerunPids.alone.length === MAX_RERUN_PROCESSES);
      // The last runs are the ones waiting for a re-run process.
      for (const controller of controllers) controller.abort();
      for (const outcome of await Promise.all(runs)) expectFailure(outcome, ['abort']);
      expect(rec.calls).toHaveLength(RUNS);
      releaseBeacon();
      expectResult(await beacon, 'beacon');
      await expectHealthy(sandbox);
    },
    CASE_MS,
  );
});

describe('re-runs waiting for a process when the sandbox closes', () => {
  it(
    'end with abort',
    async () => {
      const sandbox = new ProcessSandbox({ processes: 1, limits: { wallTimeMs: 60_000 } });
      await expectHealthy(sandbox);
      const pid = sandbox.childPid ?? 0;
      const { rec, runs, beacon } = await runningRuns(sandbox, ON_A_LONG_TIMER);
      process.kill(pid, 'SIGKILL');
      await until(() => sandbox.rerunPids.alone.length === MAX_RERUN_PROCESSES);
      await sandbox.close();
      for (const outcome of await Promise.all([...runs, beacon])) expectFailure(outcome, ['abort'], /closed/);
      expect(rec.calls).toHaveLength(RUNS);
    },
    CASE_MS,
  );
});

/**
 * Runs `body` on a process-mode sandbox made the way the runtime makes its own
 * (createSandbox resolves the options), healthy before and after, its re-run processes gone.
 */
async function withProcessSandbox(options: SandboxOptions, body: (sandbox: ProcessSandbox) => Promise<void>) {
  const sandbox = createSandbox({ processes: 1, limits: { wallTimeMs: 60_000 }, ...options });
  try {
    if (!(sandbox instanceof ProcessSandbox)) throw new Error('expected a process-mode sandbox');
    await expectHealthy(sandbox);
    await body(sandbox);
    await noRerunProcessesLeft(sandbox);
    await expectHealthy(sandbox);
  } finally {
    await sandbox.close();
  }
}

describe('re-run bounds set as sandbox options', () => {
  it(
    'maxRunsPerSharedRerun: 3 — 7 runs waiting on the host when their process dies are re-run 3 to a shared process: 3 shared re-run processes',
    async () => {
      await withProcessSandbox({ maxRunsPerSharedRerun: 3, maxSharedRerunProcesses: 4 }, async (sandbox) => {
        const watch = watchReruns(sandbox);
        const { rec, runs, openSecond, secondCalls } = await killWhileWaiting(sandbox, 7);
        // Every re-run is held in its second call, in a shared re-run process that lives until it ends.
        await until(() => secondCalls() === 7);
        openSecond();
        (await Promise.all(runs)).forEach((outcome, i) => expectResult(outcome, 2 * i));
        const { seen } = await watch.stop();
        // Distinct processes over the whole test (7 runs, 3 to a process), whatever their lifetimes.
        expect(seen).toStrictEqual({ alone: 0, shared: 3 });
        expect(rec.calls).toHaveLength(14);
      });
    },
    CASE_MS,
  );

  it(
    'maxSharedRerunProcesses: 1 with maxRunsPerSharedRerun: 2 — of 5 waiting runs 2 are re-run at a time in one shared process, the others wait for a place and then finish',
    async () => {
      await withProcessSandbox({ maxSharedRerunProcesses: 1, maxRunsPerSharedRerun: 2 }, async (sandbox) => {
        const watch = watchReruns(sandbox);
        const { rec, runs, openSecond, secondCalls } = await killWhileWaiting(sandbox, 5);
        await until(() => secondCalls() >= 2);
        await sleep(300);
        // The one shared re-run process is full: the other 3 re-runs have not started.
        expect(secondCalls()).toBe(2);
        expect(sandbox.rerunPids.shared).toHaveLength(1);
        openSecond();
        (await Promise.all(runs)).forEach((outcome, i) => expectResult(outcome, 2 * i));
        const { peak } = await watch.stop();
        expect(peak).toStrictEqual({ alone: 0, shared: 1 });
        expect(rec.calls).toHaveLength(10);
      });
    },
    CASE_MS,
  );

  it(
    'maxRerunProcesses: 1 — 3 runs that were not waiting on the host are re-run alone one at a time, and each finishes',
    async () => {
      await withProcessSandbox({ maxRerunProcesses: 1 }, async (sandbox) => {
        const pid = sandbox.childPid ?? 0;
        const { rec, first, second, secondCalls } = twoStepHost();
        first.open();
        // On a guest timer well past the kill when it dies (5 s: under load the kill may come a
        // second or more after the answers). A re-run's timer keeps the first attempt's clock.
        const runs = Array.from({ length: 3 }, (_, i) =>
          sandbox.run({
            code: `const a = await tools.first({ i: ${i} }); await new Promise((resolve) => setTimeout(resolve, 5_000)); const b = await tools.second({ i: ${i} }); return a + b;`,
            toolNames: ['first', 'second'],
            hostCall: rec.hostCall,
          }),
        );
        await until(() => rec.calls.length === 3 && rec.inFlight === 0);
        const { beacon, open: openBeacon } = await heardFrom(sandbox);
        const watch = watchReruns(sandbox);
        process.kill(pid, 'SIGKILL');
        await until(() => secondCalls() >= 1);
        await sleep(300);
        // The one alone re-run process holds its run in the second call: the other two wait their turn.
        expect(secondCalls()).toBe(1);
        expect(sandbox.rerunPids.alone).toHaveLength(1);
        second.open();
        (await Promise.all(runs)).forEach((outcome, i) => expectResult(outcome, 2 * i));
        openBeacon();
        expectResult(await beacon, 'beacon');
        const { peak } = await watch.stop();
        // Only the beacon, which was waiting on the host, shared; never two alone re-runs at once.
        expect(peak).toStrictEqual({ alone: 1, shared: 1 });
        // The first calls were answered from the record on the re-runs.
        expect(rec.calls).toHaveLength(6);
      });
    },
    CASE_MS,
  );

  it('a bound that is not an integer of 1 or more is refused, naming the option, the value and the range', () => {
    const refused: Array<[SandboxOptions, string]> = [
      [{ maxRerunProcesses: 0 }, 'maxRerunProcesses must be a positive integer (1 or more), got 0'],
      [{ maxSharedRerunProcesses: -2 }, 'maxSharedRerunProcesses must be a positive integer (1 or more), got -2'],
      [{ maxRunsPerSharedRerun: 1.5 }, 'maxRunsPerSharedRerun must be a positive integer (1 or more), got 1.5'],
      [{ maxRunsPerSharedRerun: Number.NaN }, 'maxRunsPerSharedRerun must be a positive integer (1 or more), got NaN'],
      [{ maxRerunProcesses: '2' as never }, 'maxRerunProcesses must be a positive integer (1 or more), got "2"'],
    ];
    for (const [options, message] of refused) {
      expect(() => createSandbox(options)).toThrow(message);
      expect(() => new ProcessSandbox(options)).toThrow(message);
    }
  });
});
