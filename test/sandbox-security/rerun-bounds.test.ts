// Re-runs after a sandbox process died are bounded: a process that held many runs does
// not turn into as many fresh Node processes at once (each costs tens of MB and a
// start-up), the re-runs waiting for a process still end on their own deadline or abort,
// every re-run process exits once its run is done, and no tool body runs twice.
import { afterAll, describe, expect, it } from '@jest/globals';
import { MAX_RERUN_PROCESSES, ProcessSandbox } from '../../sandbox/process-sandbox.ts';
import { childProcesses, expectFailure, expectHealthy, expectResult, okJson, recordingHost, sleep } from './helpers.ts';

const RUNS = MAX_RERUN_PROCESSES * 3;

describe('re-runs after a sandbox process died', () => {
  const sandbox = new ProcessSandbox({ processes: 1, limits: { wallTimeMs: 60_000 } });
  afterAll(() => sandbox.close());

  it(`a process holding ${RUNS} runs dies: at most ${MAX_RERUN_PROCESSES} re-run processes at a time, every run finishes once, every re-run process exits`, async () => {
    await expectHealthy(sandbox);
    const pid = sandbox.childPid ?? 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const rec = recordingHost(['work'], async (request) => {
      const { i } = JSON.parse(request.argsJson) as { i: number };
      if (i >= 0) await gate;
      return okJson({ n: i });
    });
    const runs = Array.from({ length: RUNS }, (_, i) =>
      sandbox.run({
        code: `const a = await tools.work({ i: ${i} }); const b = await tools.work({ i: -1 }); return a.n * 10 + b.n;`,
        toolNames: ['work'],
        hostCall: rec.hostCall,
      }),
    );
    while (rec.calls.length < RUNS) await sleep(5);
    const before = new Set(childProcesses());
    process.kill(pid, 'SIGKILL');
    // Every re-run now waits on its first call (still in flight): watch the processes.
    let peak = 0;
    for (let i = 0; i < 100; i++) {
      await sleep(20);
      peak = Math.max(peak, childProcesses().filter((p) => !before.has(p)).length);
    }
    release();
    const outcomes = await Promise.all(runs);
    outcomes.forEach((outcome, i) => expectResult(outcome, i * 10 - 1));
    // One body per call: the first calls once each (awaited by the re-runs), the second ones once each.
    expect(rec.calls.filter((call) => call.argsJson !== '{"i":-1}')).toHaveLength(RUNS);
    expect(rec.calls).toHaveLength(2 * RUNS);
    // The pooled replacement plus the re-run processes.
    expect(peak).toBeLessThanOrEqual(MAX_RERUN_PROCESSES + 1);
    let left = childProcesses().filter((p) => !before.has(p) && !sandbox.childPids.includes(p));
    for (let i = 0; i < 200 && left.length > 0; i++) {
      await sleep(25);
      left = childProcesses().filter((p) => !before.has(p) && !sandbox.childPids.includes(p));
    }
    expect(left).toStrictEqual([]);
    await expectHealthy(sandbox);
  }, 120_000);

  it('a re-run still waiting for a process ends on abort instead of hanging', async () => {
    await expectHealthy(sandbox);
    const pid = sandbox.childPid ?? 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const rec = recordingHost(['work'], async () => {
      await gate;
      return okJson(1);
    });
    const controllers = Array.from({ length: RUNS }, () => new AbortController());
    const runs = controllers.map((controller) =>
      sandbox.run({
        code: 'return await tools.work({});',
        toolNames: ['work'],
        hostCall: rec.hostCall,
        signal: controller.signal,
      }),
    );
    while (rec.calls.length < RUNS) await sleep(5);
    process.kill(pid, 'SIGKILL');
    await sleep(200);
    // The last runs are the ones waiting for a re-run process.
    for (const controller of controllers) controller.abort();
    for (const outcome of await Promise.all(runs)) expectFailure(outcome, ['abort']);
    release();
    expect(rec.calls).toHaveLength(RUNS);
    await expectHealthy(sandbox);
  }, 120_000);
});

describe('re-runs waiting for a process when the sandbox closes', () => {
  it('end with abort', async () => {
    const sandbox = new ProcessSandbox({ processes: 1, limits: { wallTimeMs: 60_000 } });
    await expectHealthy(sandbox);
    const pid = sandbox.childPid ?? 0;
    const rec = recordingHost(['work'], () => new Promise(() => undefined));
    const runs = Array.from({ length: RUNS }, () =>
      sandbox.run({ code: 'return await tools.work({});', toolNames: ['work'], hostCall: rec.hostCall }),
    );
    while (rec.calls.length < RUNS) await sleep(5);
    process.kill(pid, 'SIGKILL');
    await sleep(200);
    await sandbox.close();
    for (const outcome of await Promise.all(runs)) expectFailure(outcome, ['abort'], /closed/);
    expect(rec.calls).toHaveLength(RUNS);
  }, 120_000);
});
