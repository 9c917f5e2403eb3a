// One run's failure never takes another run in flight with it: a run whose sandbox
// process crashes or hangs loses only the runs of that process (runs in flight are
// spread over the sandbox processes), and a run waiting on a tool holds no thread, so
// 100 runs each awaiting a 1-second tool are all in flight together.
import { afterAll, describe, expect, it } from '@jest/globals';
import { ProcessSandbox } from '../../sandbox/index.ts';
import type { HostCallOutcome, HostCallRequest, RunOutcome } from '../../sandbox/types.ts';
import {
  expectFailure,
  expectHealthy,
  expectResult,
  memorySnapshot,
  okJson,
  peakGrowthMb,
  recordingHost,
  sleep,
  untilAborted,
} from './helpers.ts';

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
  while (parked.calls.length === 0) await sleep(5);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const innocentHost = recordingHost(['work'], async () => {
    await gate;
    return okJson({ n: 20 });
  });
  const innocent = sandbox.run({
    code: 'const a = await tools.work({}); console.log("half way"); const b = await tools.work({}); return a.n + b.n + 2;',
    toolNames: ['work'],
    hostCall: innocentHost.hostCall,
  });
  while (innocentHost.calls.length === 0) await sleep(5);
  if (hostilePid === undefined) throw new Error('no sandbox process');
  // Runs in flight are spread: the innocent run is in the other process.
  expect(sandbox.childPids.filter((pid) => pid !== undefined)).toHaveLength(2);
  return { hostile, innocent, hostilePid, release, cancel: () => controller.abort() };
}

describe('fault isolation between runs in flight', () => {
  it('a run whose sandbox process crashes fails with crash; the innocent run in flight finishes normally', async () => {
    const before = memorySnapshot();
    const { hostile, innocent, hostilePid, release } = await pairInFlight();
    process.kill(hostilePid, 'SIGKILL');
    expectFailure(await hostile, ['crash'], /sandbox process stopped/);
    release();
    const outcome = await innocent;
    expectResult(outcome, 42);
    expect(outcome.logs).toStrictEqual(['half way']);
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
    while (parked.calls.length === 0) await sleep(5);
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

describe('runs waiting on tools hold no thread', () => {
  it('100 concurrent runs each awaiting a 1-second tool all complete, with all 100 tool bodies pending at once', async () => {
    let pending = 0;
    let maxPending = 0;
    let allIn!: () => void;
    const everyonePending = new Promise<void>((resolve) => (allIn = resolve));
    // If some run could never get its call pending, the bodies still end (and the check below fails).
    const guard = setTimeout(() => allIn(), 20_000);
    const hostCall = async (request: HostCallRequest): Promise<HostCallOutcome> => {
      pending += 1;
      maxPending = Math.max(maxPending, pending);
      if (pending === 100) allIn();
      try {
        // Each body lasts 1 s once all 100 are pending.
        await everyonePending;
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
