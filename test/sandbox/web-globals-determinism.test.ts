// The web globals draw on the run's deterministic sources (sandbox/guest/
// deterministic-sources.ts): with the same determinism and recorded times, a re-run sees
// the same crypto random values and UUIDs, the same performance.now() and the same
// clock when each timer fires; a timer's due time is on the run's clock, so a resumed
// program whose sleep is already over in real time does not sleep again.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import type { HostCallOutcome, HostCallRequest } from '../../sandbox/types.ts';
import { expectOk } from './helpers.ts';

const PROGRAM = `
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const p0 = performance.now();
const ids = [crypto.randomUUID(), crypto.randomUUID()];
const bytes = [...crypto.getRandomValues(new Uint8Array(8))];
const t0 = Date.now();
await sleep(30);
const t1 = Date.now();
const order = [];
await Promise.all([sleep(5).then(() => order.push('a:' + (Date.now() - t0))), sleep(1).then(() => order.push('b:' + (Date.now() - t0)))]);
await tools.f({});
const interval = await new Promise((resolve) => { const seen = []; const id = setInterval(() => { seen.push(Date.now() - t0); if (seen.length === 3) { clearInterval(id); resolve(seen); } }, 10); });
return { ids, bytes, t0, slept: t1 - t0, order, interval, p: [p0, performance.now() - p0, performance.timeOrigin] };`;

const T = Date.UTC(2030, 0, 2, 3, 4, 5);
const hostCall = async (_request: HostCallRequest): Promise<HostCallOutcome> => ({
  ok: true,
  valueJson: '{}',
  at: T + 1,
});

describe.each(['in-process', 'process'] as const)('web globals under re-run (%s)', (isolation) => {
  const sandbox = createSandbox({ isolation, poolSize: 1 });
  afterAll(() => sandbox.close());

  it('the same determinism gives the same random values, times and timer clock', async () => {
    const determinism = { seed: 'run-globals', clockStartMs: T };
    const a = await sandbox.run({ code: PROGRAM, toolNames: ['f'], hostCall, determinism });
    const b = await sandbox.run({ code: PROGRAM, toolNames: ['f'], hostCall, determinism });
    expectOk(a);
    expectOk(b);
    expect(b.ok && b.result).toStrictEqual(a.ok && a.result);
    const result = (a.ok ? a.result : {}) as Record<string, unknown>;
    expect(result['t0']).toBe(T);
    expect(result['slept']).toBe(30); // the clock moved to the timer's due time
    expect(result['order']).toStrictEqual(['b:31', 'a:35']);
    expect(result['interval']).toStrictEqual([45, 55, 65]);
    expect(result['p']).toStrictEqual([0, expect.any(Number), T]);
    const other = await sandbox.run({
      code: PROGRAM,
      toolNames: ['f'],
      hostCall,
      determinism: { seed: 'another-run', clockStartMs: T },
    });
    expectOk(other);
    expect((other.ok ? other.result : {}) as Record<string, unknown>).not.toMatchObject({ ids: result['ids'] });
  });

  it('a resumed run does not sleep again for time already slept (due times on the run clock are in the past)', async () => {
    // A 30 s sleep whose due time passed 30 s ago: a run that slept it again would take 30 s;
    // one that does not takes a second or two even on a loaded machine.
    const code = 'const t0 = Date.now(); await new Promise((r) => setTimeout(r, 30000)); return Date.now() - t0;';
    const started = Date.now();
    const resumed = await sandbox.run({
      code,
      toolNames: [],
      hostCall,
      determinism: { seed: 'slept-before', clockStartMs: Date.now() - 60_000 },
    });
    expectOk(resumed, 30_000);
    expect(Date.now() - started).toBeLessThan(15_000);
    const fresh = Date.now();
    expectOk(
      await sandbox.run({
        code: code.replace('30000', '300'),
        toolNames: [],
        hostCall,
        determinism: { seed: 'now', clockStartMs: Date.now() },
      }),
      300,
    );
    expect(Date.now() - fresh).toBeGreaterThanOrEqual(250);
  });
});
