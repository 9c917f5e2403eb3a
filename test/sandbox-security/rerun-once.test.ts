// A re-run never runs a tool body twice, whatever was in transit when its process died:
// calls queued in the guest behind maxConcurrentCalls, calls in flight on the host from
// a batched `calls` message, and an abort that arrives while the re-run awaits them.
import { afterAll, describe, expect, it } from '@jest/globals';
import { ProcessSandbox } from '../../sandbox/index.ts';
import { gate } from '../support/gate.ts';
import { expectFailure, expectHealthy, expectResult, okJson, recordingHost, sleep, untilAborted } from './helpers.ts';
import { untilArrived } from '../support/until-arrived.ts';

const sandbox = new ProcessSandbox({ processes: 1, limits: { wallTimeMs: 60_000 } });
afterAll(() => sandbox.close());

describe('re-runs and calls in transit', () => {
  it('a Promise.all of 8 calls (2 in flight, 6 queued in the guest) whose process dies: each body runs once', async () => {
    await expectHealthy(sandbox);
    const pid = sandbox.childPid ?? 0;
    const work = gate();
    const rec = recordingHost(['work'], async (request) => {
      await work.passed;
      return okJson((JSON.parse(request.argsJson) as { i: number }).i);
    });
    const pending = sandbox.run({
      code: 'const r = await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map((i) => tools.work({ i }))); const s = await tools.work({ i: 100 }); return [r, s];',
      toolNames: ['work'],
      hostCall: rec.hostCall,
      limits: { maxConcurrentCalls: 2 },
    });
    await untilArrived(() => rec.calls.length >= 2, [pending]);
    process.kill(pid, 'SIGKILL');
    await sleep(300);
    // The re-run awaits the first attempt's two calls; nothing new reached the host.
    expect(rec.calls).toHaveLength(2);
    work.open();
    expectResult(await pending, [[0, 1, 2, 3, 4, 5, 6, 7], 100]);
    expect(rec.calls.map((call) => call.argsJson)).toStrictEqual([
      ...[0, 1, 2, 3, 4, 5, 6, 7].map((i) => `{"i":${i}}`),
      '{"i":100}',
    ]);
    expect(rec.maxInFlight).toBeLessThanOrEqual(2);
    expect(rec.violations).toStrictEqual([]);
  }, 60_000);

  it("an abort while the re-run awaits the first attempt's call aborts that call once and ends the run with abort", async () => {
    await expectHealthy(sandbox);
    const pid = sandbox.childPid ?? 0;
    const aborted: string[] = [];
    const rec = recordingHost(['work'], async (request) => {
      try {
        return await untilAborted(request);
      } finally {
        aborted.push(request.argsJson);
      }
    });
    const controller = new AbortController();
    const pending = sandbox.run({
      code: 'const r = await Promise.all([tools.work({ i: 1 }), tools.work({ i: 2 })]); return r;',
      toolNames: ['work'],
      hostCall: rec.hostCall,
      signal: controller.signal,
    });
    await untilArrived(() => rec.calls.length >= 2, [pending]);
    process.kill(pid, 'SIGKILL');
    await sleep(300);
    controller.abort();
    expectFailure(await pending, ['abort']);
    expect(rec.calls).toHaveLength(2);
    expect(aborted.sort()).toStrictEqual(['{"i":1}', '{"i":2}']);
    await expectHealthy(sandbox);
  }, 60_000);
});
