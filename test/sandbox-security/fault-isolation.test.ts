// One run's failure never takes another run in flight with it: runs in flight are spread
// over the sandbox processes, and when a process crashes or hangs, the runs it held that
// were not being cancelled are re-run in fresh processes (shared-re-runs.test.ts: which
// ones together, which alone), their nested calls answered from the first attempt (no
// tool body runs twice). A run waiting on a tool
// holds no thread, so 100 runs each awaiting a 1-second tool are all in flight together.
import { afterAll, describe, expect, it } from '@jest/globals';
import { ProcessSandbox } from '../../sandbox/index.ts';
import type { HostCallOutcome, HostCallRequest, RunOutcome } from '../../sandbox/types.ts';
import { gate } from '../support/gate.ts';
import {
  childProcesses,
  expectFailure,
  expectHealthy,
  expectResult,
  memorySnapshot,
  okJson,
  peakGrowthMb,
  type Recorder,
  recordingHost,
  sleep,
  untilAborted,
} from './helpers.ts';
import { untilArrived } from '../support/until-arrived.ts';

const sandbox = new ProcessSandbox({ processes: 2, hangGraceMs: 300, limits: { wallTimeMs: 30_000 } });
afterAll(() => sandbox.close());

/** Starts a hostile run that parks on a tool call, then an innocent run; returns both and the hostile run's process. */
async function pairInFlight(): Promise<{
  hostile: Promise<RunOutcome>;
  innocent: Promise<RunOutcome>;
  hostilePid: number;
  release: () => void;
  cancel: () => void;
}> {
  await expectHealthy(sandbox);
  // The idle process that takes the next run: the hostile run goes there.
  const hostilePid = sandbox.childPid;
  const parked = recordingHost(['park'], (request) => untilAborted(request));
  const controller = new AbortController();
  const hostile = sandbox.run({
    code: 'await tools.park({}); return "never";',
    toolNames: ['park'],
    hostCall: parked.hostCall,
    signal: controller.signal,
  });
  await untilArrived(() => parked.calls.length > 0, [hostile]);
  const work = gate();
  const innocentHost = recordingHost(['work'], async () => {
    await work.passed;
    return okJson({ n: 20 });
  });
  const innocent = sandbox.run({
    code: 'const a = await tools.work({}); console.log("half way"); const b = await tools.work({}); return a.n + b.n + 2;',
    toolNames: ['work'],
    hostCall: innocentHost.hostCall,
  });
  await untilArrived(() => innocentHost.calls.length > 0, [innocent]);
  if (hostilePid === undefined) throw new Error('no sandbox process');
  // Runs in flight are spread: the innocent run is in the other process.
  expect(sandbox.childPids.filter((pid) => pid !== undefined)).toHaveLength(2);
  return { hostile, innocent, hostilePid, release: work.open, cancel: () => controller.abort() };
}

describe('fault isolation between runs in flight', () => {
  it('a run whose sandbox process is killed is re-run alone and finishes; the run in the other process is untouched', async () => {
    const before = memorySnapshot();
    const { hostile, innocent, hostilePid, release, cancel } = await pairInFlight();
    process.kill(hostilePid, 'SIGKILL');
    release();
    const outcome = await innocent;
    expectResult(outcome, 42);
    expect(outcome.logs).toStrictEqual(['half way']);
    // The killed run was re-run: it awaits the same parked call again (not a second one) until cancelled.
    await sleep(200);
    cancel();
    expectFailure(await hostile, ['abort']);
    expect(peakGrowthMb(before).hostMb).toBeLessThan(100);
    await expectHealthy(sandbox);
  }, 60_000);

  it('a run whose sandbox process hangs is ended by the watchdog; the innocent run in flight finishes normally', async () => {
    const { hostile, innocent, hostilePid, release, cancel } = await pairInFlight();
    process.kill(hostilePid, 'SIGSTOP');
    // The caller gives up on it: the frozen process cannot confirm, so the watchdog replaces it.
    cancel();
    expectFailure(await hostile, ['abort'], /did not respond and was replaced/);
    release();
    expectResult(await innocent, 42);
    await expectHealthy(sandbox);
  }, 60_000);

  it('a run cancelled by its caller ends with abort; the innocent run in flight finishes normally', async () => {
    await expectHealthy(sandbox);
    const controller = new AbortController();
    const parked = recordingHost(['park'], (request) => untilAborted(request));
    const hostile = sandbox.run({
      code: 'await tools.park({}); for (;;) console.log();',
      toolNames: ['park'],
      hostCall: parked.hostCall,
      signal: controller.signal,
    });
    await untilArrived(() => parked.calls.length > 0, [hostile]);
    const innocent = sandbox.run({
      code: 'const a = await tools.work({}); return a.n + 22;',
      toolNames: ['work'],
      hostCall: recordingHost(['work'], async () => {
        await sleep(200);
        return okJson({ n: 20 });
      }).hostCall,
    });
    controller.abort();
    expectFailure(await hostile, ['abort']);
    expectResult(await innocent, 42);
  }, 60_000);
});

describe('runs sharing a process that dies: each is re-run, no tool body runs twice', () => {
  const shared = new ProcessSandbox({ processes: 1, hangGraceMs: 300, limits: { wallTimeMs: 30_000 } });
  afterAll(() => shared.close());

  /** A host whose `work` answers { n: length of k } and holds the calls named in `held` until released. */
  function heldHost(held: readonly string[]): { rec: Recorder; release: () => void } {
    const heldCalls = gate();
    const rec = recordingHost(['work'], async (request) => {
      const { k } = JSON.parse(request.argsJson) as { k: string };
      if (held.includes(k)) await heldCalls.passed;
      return okJson({ n: k.length });
    });
    return { rec, release: heldCalls.open };
  }

  it('both runs of a killed process finish with the results and logs of one clean run each', async () => {
    await expectHealthy(shared);
    const pid = shared.childPid;
    const { rec, release } = heldHost(['bb', 'ccc']);
    const first = shared.run({
      code: 'const a = await tools.work({ k: "a" }); console.log("first half"); const b = await tools.work({ k: "bb" }); console.log("first done"); return a.n + b.n;',
      toolNames: ['work'],
      hostCall: rec.hostCall,
    });
    const second = shared.run({
      code: 'console.log("second"); const c = await tools.work({ k: "ccc" }); return c.n * 10;',
      toolNames: ['work'],
      hostCall: rec.hostCall,
    });
    await untilArrived(() => rec.calls.length >= 3, [first, second]);
    expect(shared.childPids).toStrictEqual([pid]);
    process.kill(pid ?? 0, 'SIGKILL');
    await sleep(300);
    release();
    const [one, two] = await Promise.all([first, second]);
    expectResult(one, 3);
    expect(one.logs).toStrictEqual(['first half', 'first done']);
    expectResult(two, 30);
    expect(two.logs).toStrictEqual(['second']);
    expect(rec.calls.map((call) => call.argsJson).sort()).toStrictEqual(['{"k":"a"}', '{"k":"bb"}', '{"k":"ccc"}']);
    expect(rec.violations).toStrictEqual([]);
    await expectHealthy(shared);
  }, 60_000);

  it("a re-run sees the first attempt's Math.random and Date.now, so it is answered from the record instead of diverging", async () => {
    // Before issue 27 this program diverged on its re-run (a fresh Math.random) and was
    // stopped; the guest's randomness and clock are now the same on every attempt. A real
    // divergence is still refused: test/sandbox/call-record.test.ts.
    await expectHealthy(shared);
    const pid = shared.childPid;
    const { rec, release } = heldHost([]);
    const wait = gate();
    const run = shared.run({
      code: 'const r = await tools.work({ k: String(Math.random()) + Date.now() }); await tools.work({ k: "wait" }); return r.n;',
      toolNames: ['work'],
      hostCall: async (request) => {
        const outcome = await rec.hostCall(request);
        if (request.argsJson === '{"k":"wait"}') await wait.passed;
        return outcome;
      },
    });
    await untilArrived(() => rec.calls.length >= 2, [run]);
    process.kill(pid ?? 0, 'SIGKILL');
    await sleep(300);
    wait.open();
    release();
    const outcome = await run;
    expectResult(outcome, JSON.parse(rec.calls[0]!.argsJson).k.length);
    // The first attempt's two calls only: the re-run's were answered from the record.
    expect(rec.calls).toHaveLength(2);
    await expectHealthy(shared);
  }, 60_000);

  it('a run whose re-run processes die too (the shared one, then its own) is lost with crash, and nothing else is', async () => {
    await expectHealthy(shared);
    const pid = shared.childPid ?? 0;
    const { rec, release } = heldHost(['held']);
    const doomed = shared.run({
      code: 'await tools.work({ k: "held" }); return 1;',
      toolNames: ['work'],
      hostCall: rec.hostCall,
    });
    await untilArrived(() => rec.calls.length >= 1, [doomed]);
    const known = new Set(childProcesses());
    process.kill(pid, 'SIGKILL');
    // It was waiting on its call: re-run in a shared re-run process first, then alone.
    process.kill(await rerunPid(shared, 'shared'), 'SIGKILL');
    const alone = await rerunPid(shared, 'alone');
    expect(known.has(alone)).toBe(false);
    process.kill(alone, 'SIGKILL');
    expectFailure(await doomed, ['crash'], /stopped unexpectedly again when the run was re-run alone/);
    release();
    expect(rec.calls).toHaveLength(1);
    await expectHealthy(shared);
  }, 60_000);
});

/** The pid of the sandbox's first live re-run process of that kind, once there is one. */
async function rerunPid(sandbox: ProcessSandbox, kind: 'alone' | 'shared'): Promise<number> {
  for (;;) {
    const [pid] = sandbox.rerunPids[kind];
    if (pid !== undefined) return pid;
    await sleep(10);
  }
}

describe('runs waiting on tools hold no thread', () => {
  it('100 concurrent runs each awaiting a 1-second tool all complete, with all 100 tool bodies pending at once', async () => {
    let pending = 0;
    let maxPending = 0;
    const everyonePending = gate();
    // If some run could never get its call pending, the bodies still end (and the check below fails).
    const guard = setTimeout(everyonePending.open, 20_000);
    const hostCall = async (request: HostCallRequest): Promise<HostCallOutcome> => {
      pending += 1;
      maxPending = Math.max(maxPending, pending);
      if (pending === 100) everyonePending.open();
      try {
        // Each body lasts 1 s once all 100 are pending.
        await everyonePending.passed;
        await sleep(1_000);
        return okJson({ seq: request.seq, ok: true });
      } finally {
        pending -= 1;
      }
    };
    const runs = Array.from({ length: 100 }, (_, i) =>
      sandbox.run({
        code: `const r = await tools.wait({ i: ${i} }); return [${i}, r.ok];`,
        toolNames: ['wait'],
        hostCall,
      }),
    );
    const outcomes = await Promise.all(runs);
    clearTimeout(guard);
    outcomes.forEach((outcome, i) => expectResult(outcome, [i, true]));
    expect(maxPending).toBe(100);
  }, 120_000);
});
