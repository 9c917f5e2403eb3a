// Re-runs after a sandbox process died are bounded: runs that may have killed it are
// re-run alone, at most MAX_RERUN_PROCESSES processes at a time; runs that were waiting
// on a host call are re-run together, at most MAX_RUNS_PER_SHARED_RERUN per shared
// re-run process and MAX_SHARED_RERUN_PROCESSES such processes. Re-runs past either bound
// wait their turn and still end on their own deadline or abort; every re-run process
// exits once its runs are done, and no tool body runs twice.
import { afterAll, describe, expect, it } from '@jest/globals';
import {
  MAX_RERUN_PROCESSES,
  MAX_RUNS_PER_SHARED_RERUN,
  MAX_SHARED_RERUN_PROCESSES,
  ProcessSandbox,
} from '../../sandbox/process-sandbox.ts';
import type { RunOutcome } from '../../sandbox/types.ts';
import { gate } from '../support/gate.ts';
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
const SHARED_CAPACITY = MAX_SHARED_RERUN_PROCESSES * MAX_RUNS_PER_SHARED_RERUN;

async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(5);
}

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
): Promise<{ rec: Recorder; runs: Promise<RunOutcome>[]; beacon: Promise<RunOutcome>; releaseBeacon: () => void }> {
  const rec = recordingHost(['work'], (request) => okJson({ n: (JSON.parse(request.argsJson) as { i: number }).i }));
  const runs = Array.from({ length: RUNS }, (_, i) =>
    sandbox.run({
      code: code(i),
      toolNames: ['work'],
      hostCall: rec.hostCall,
      ...(signals[i] === undefined ? {} : { signal: signals[i] }),
    }),
  );
  await until(() => rec.calls.length === RUNS && rec.inFlight === 0);
  const beaconCall = gate();
  const beaconHost = recordingHost(['beacon'], async () => {
    await beaconCall.passed;
    return okJson('beacon');
  });
  const beacon = sandbox.run({
    code: 'return await tools.beacon({});',
    toolNames: ['beacon'],
    hostCall: beaconHost.hostCall,
  });
  await until(() => beaconHost.calls.length === 1);
  return { rec, runs, beacon, releaseBeacon: beaconCall.open };
}

const ON_A_LONG_TIMER = (i: number): string =>
  `await tools.work({ i: ${i} }); await new Promise((resolve) => setTimeout(resolve, 50_000)); return 1;`;

describe('re-runs after a sandbox process died', () => {
  const sandbox = new ProcessSandbox({ processes: 1, limits: { wallTimeMs: 60_000 } });
  afterAll(() => sandbox.close());

  it(`a process holding ${RUNS} runs that were not waiting on the host dies: each is re-run alone, at most ${MAX_RERUN_PROCESSES} re-run processes at a time, every run finishes once, every re-run process exits`, async () => {
    await expectHealthy(sandbox);
    const pid = sandbox.childPid ?? 0;
    const before = new Set(childProcesses());
    const { rec, runs, beacon, releaseBeacon } = await runningRuns(
      sandbox,
      (i) =>
        `const a = await tools.work({ i: ${i} }); await new Promise((resolve) => setTimeout(resolve, 1_000)); const b = await tools.work({ i: -1 }); return a.n * 10 + b.n;`,
    );
    process.kill(pid, 'SIGKILL');
    let peak = 0;
    let peakShared = 0;
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
  }, 120_000);

  it(`a process holding ${SHARED_CAPACITY + 8} runs waiting on the host dies: ${MAX_RUNS_PER_SHARED_RERUN} re-runs in each of ${MAX_SHARED_RERUN_PROCESSES} shared re-run processes, the other 8 wait for a place and then finish`, async () => {
    const runs = SHARED_CAPACITY + 8;
    await expectHealthy(sandbox);
    const pid = sandbox.childPid ?? 0;
    const first = gate();
    const second = gate();
    const rec = recordingHost(['first', 'second'], async (request) => {
      await (request.toolName === 'first' ? first : second).passed;
      return okJson((JSON.parse(request.argsJson) as { i: number }).i);
    });
    const pending = Array.from({ length: runs }, (_, i) =>
      sandbox.run({
        code: `const a = await tools.first({ i: ${i} }); const b = await tools.second({ i: ${i} }); return a + b;`,
        toolNames: ['first', 'second'],
        hostCall: rec.hostCall,
      }),
    );
    await until(() => rec.calls.length === runs);
    process.kill(pid, 'SIGKILL');
    await until(() => sandbox.rerunPids.shared.length > 0);
    first.open();
    const secondCalls = (): number => rec.calls.filter((call) => call.toolName === 'second').length;
    await until(() => secondCalls() === SHARED_CAPACITY);
    await sleep(500);
    // Every place is taken by a run held in its second call: the rest wait.
    expect(secondCalls()).toBe(SHARED_CAPACITY);
    expect(sandbox.rerunPids.shared).toHaveLength(MAX_SHARED_RERUN_PROCESSES);
    expect(sandbox.rerunPids.alone).toStrictEqual([]);
    second.open();
    (await Promise.all(pending)).forEach((outcome, i) => expectResult(outcome, 2 * i));
    expect(rec.calls).toHaveLength(2 * runs);
    await until(() => sandbox.rerunPids.shared.length === 0);
    await expectHealthy(sandbox);
  }, 120_000);

  it('a re-run still waiting for a process ends on abort instead of hanging', async () => {
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
  }, 120_000);
});

describe('re-runs waiting for a process when the sandbox closes', () => {
  it('end with abort', async () => {
    const sandbox = new ProcessSandbox({ processes: 1, limits: { wallTimeMs: 60_000 } });
    await expectHealthy(sandbox);
    const pid = sandbox.childPid ?? 0;
    const { rec, runs, beacon } = await runningRuns(sandbox, ON_A_LONG_TIMER);
    process.kill(pid, 'SIGKILL');
    await until(() => sandbox.rerunPids.alone.length === MAX_RERUN_PROCESSES);
    await sandbox.close();
    for (const outcome of await Promise.all([...runs, beacon])) expectFailure(outcome, ['abort'], /closed/);
    expect(rec.calls).toHaveLength(RUNS);
  }, 120_000);
});
