// The web globals stay inside the run's budgets: timers count against the wall clock, a
// run holds at most MAX_PENDING_TIMERS pending timers, no timer outlives its run, a 0 ms
// interval cannot starve the host's event loop, huge inputs to TextEncoder, atob and
// structuredClone end in the heap limit (kind memory), and getRandomValues keeps the
// Web's 65,536-byte limit.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import { MAX_PENDING_TIMERS } from '../../sandbox/guest/timers.ts';
import { expectKind, expectOk, fakeHost, sleep } from './helpers.ts';

/**
 * The runs' default budget: room for a loaded machine (a run of a few seconds here took over
 * 20 s beside two whole suites and six busy loops), under jest's 60 s for a test.
 */
const RUN_LIMITS = { wallTimeMs: 45_000, cpuTimeMs: 30_000 };
/** The timer rounds below: 30,000 timers fired through the host take ~3 s quiet, in-process over 20 s at load. */
const TIMER_ROUNDS_LIMITS = { wallTimeMs: 150_000, cpuTimeMs: 60_000 };

describe.each(['in-process', 'process'] as const)('web globals bounds (%s)', (isolation) => {
  const sandbox = createSandbox({ isolation, poolSize: 1, limits: RUN_LIMITS });
  afterAll(() => sandbox.close());

  it('a sleep longer than the run is ended by the wall clock', async () => {
    const started = Date.now();
    const outcome = await sandbox.run({
      code: 'await new Promise((resolve) => setTimeout(resolve, 60_000)); return "woke";',
      toolNames: [],
      hostCall: fakeHost().hostCall,
      limits: { wallTimeMs: 1500 },
    });
    expectKind(outcome, 'timeout');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it(`a run holds at most ${MAX_PENDING_TIMERS} pending timers; past that setTimeout throws a RangeError`, async () => {
    const outcome = await sandbox.run({
      code: `
        let made = 0;
        try { for (;;) { setTimeout(() => {}, 60_000); made++; } } catch (e) { return [made, e.name, e.message]; }
      `,
      toolNames: [],
      hostCall: fakeHost().hostCall,
    });
    expectOk(outcome);
    const [made, name, message] = (outcome.ok ? outcome.result : []) as [number, string, string];
    expect([made, name]).toStrictEqual([MAX_PENDING_TIMERS, 'RangeError']);
    expect(message).toMatch(/timers pending \(the limit of one run\)/);
  });

  it(
    'cleared and fired timers free their slot (set-and-clear loops never hit the bound)',
    async () => {
      const outcome = await sandbox.run({
        code: `
        for (let i = 0; i < ${MAX_PENDING_TIMERS * 3}; i++) clearTimeout(setTimeout(() => {}, 60_000));
        for (let round = 0; round < 3; round++) {
          await Promise.all(Array.from({ length: ${MAX_PENDING_TIMERS} }, () => new Promise((r) => setTimeout(r, 1))));
        }
        return 'ok';
      `,
        toolNames: [],
        hostCall: fakeHost().hostCall,
        limits: TIMER_ROUNDS_LIMITS,
      });
      expectOk(outcome, 'ok');
    },
    TIMER_ROUNDS_LIMITS.wallTimeMs + 30_000,
  );

  it('no timer outlives its run: a timer or interval left pending never calls a tool or logs', async () => {
    const host = fakeHost();
    const outcome = await sandbox.run({
      code: `
        setTimeout(() => tools.a({ late: true }), 20);
        setInterval(() => console.log('tick'), 1);
        setTimeout(() => { throw new Error('late failure'); }, 5);
        return 'done';
      `,
      toolNames: ['a'],
      hostCall: host.hostCall,
    });
    expectOk(outcome, 'done');
    await sleep(150);
    expect(host.calls).toHaveLength(0);
    expect(outcome.logs).toStrictEqual([]);
  });

  it('a 0 ms interval fires as host tasks: the host event loop keeps turning and the run ends on its wall clock', async () => {
    let hostTicks = 0;
    let maxGap = 0;
    let last = Date.now();
    const ticker = setInterval(() => {
      const now = Date.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
      hostTicks += 1;
    }, 5);
    try {
      const outcome = await sandbox.run({
        code: 'let n = 0; setInterval(() => { n++; }, 0); await new Promise(() => {});',
        toolNames: [],
        hostCall: fakeHost().hostCall,
        limits: { wallTimeMs: 2_000 },
      });
      expectKind(outcome, 'timeout');
    } finally {
      clearInterval(ticker);
    }
    // A starved loop would not tick at all until the run ends (a gap of the whole 2 s); a
    // loaded 2-core machine stalls a turning one now and then, for well under half of that.
    expect(hostTicks).toBeGreaterThan(20);
    expect(maxGap).toBeLessThan(1_000);
  });

  it('an uncaught exception in a timer callback ends the run as an exception (as it ends a Node process)', async () => {
    const outcome = await sandbox.run({
      code: 'setTimeout(() => { throw new TypeError("from a timer"); }, 1); await new Promise(() => {});',
      toolNames: [],
      hostCall: fakeHost().hostCall,
    });
    expectKind(outcome, 'exception', /TypeError: from a timer/);
  });

  it('TextEncoder on a huge string ends in the heap limit (memory), and the sandbox keeps serving', async () => {
    const outcome = await sandbox.run({
      code: `const s = 'é'.repeat(12_000_000); const chunks = []; for (;;) chunks.push(new TextEncoder().encode(s));`,
      toolNames: [],
      hostCall: fakeHost().hostCall,
      limits: { memoryMb: 64 },
    });
    expectKind(outcome, 'memory');
    expectOk(
      await sandbox.run({
        code: 'return new TextEncoder().encode("ok").length;',
        toolNames: [],
        hostCall: fakeHost().hostCall,
      }),
      2,
    );
  });

  it('atob and btoa on huge inputs end in the heap limit (memory)', async () => {
    const outcome = await sandbox.run({
      code: `const s = btoa('x'.repeat(12_000_000)); const keep = [s]; for (;;) keep.push(atob(s));`,
      toolNames: [],
      hostCall: fakeHost().hostCall,
      limits: { memoryMb: 32, cpuTimeMs: 60_000, wallTimeMs: 60_000 },
    });
    expectKind(outcome, 'memory');
  }, 90_000);

  it('structuredClone of a huge value ends in the heap limit (memory)', async () => {
    const outcome = await sandbox.run({
      code: `
        const big = Array.from({ length: 300_000 }, (_, i) => ({ i, s: 'v' + i, d: new Date(i), m: new Map([[i, i]]) }));
        const copies = [];
        for (;;) copies.push(structuredClone(big));
      `,
      toolNames: [],
      hostCall: fakeHost().hostCall,
      limits: { memoryMb: 64 },
    });
    expectKind(outcome, 'memory');
  });

  it('crypto.getRandomValues fills at most 65,536 bytes (QuotaExceededError past it)', async () => {
    const outcome = await sandbox.run({
      code: `
        const ok = crypto.getRandomValues(new Uint8Array(65_536)).length;
        try { crypto.getRandomValues(new Uint8Array(65_537)); return 'filled'; } catch (e) { return [ok, e.name, e.code, e.message]; }
      `,
      toolNames: [],
      hostCall: fakeHost().hostCall,
    });
    expectOk(outcome, [65_536, 'QuotaExceededError', 22, 'The requested length exceeds 65,536 bytes']);
  });
});
