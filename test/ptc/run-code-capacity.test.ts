// run_code admission: 100 concurrent runs that each await a tool are all in flight at
// once and all succeed (a run awaiting tools holds no CPU slot; each reserves its heap
// limit plus its footprint, 100 × 20 MiB here, within the memory budget); a run the
// admission refuses fails with kind busy, the reason and when to retry.
import { describe, expect, it } from '@jest/globals';
import { createToolRuntime } from '../../src/index.ts';
import { probeTool, ptcRuntimes, runCode, runValue, textOf } from './helpers.ts';
import { gate } from '../support/gate.ts';

const runtime = ptcRuntimes();
// Room for 100 runs of 16 MiB heaps (each reserves 16 + 4 MiB), whatever the machine.
const ROOM_FOR_100 = { limits: { memoryMb: 16 }, admission: { memoryBudgetBytes: 2_560 * 1_048_576 } } as const;

describe('run_code admission by resources', () => {
  it('100 concurrent runs each awaiting a tool are all in flight together, and all finish', async () => {
    const RUNS = 100;
    let entered = 0;
    const everyoneWaiting = gate();
    const released = gate();
    const rt = runtime(ROOM_FOR_100);
    rt.register(
      probeTool({
        name: 'slow',
        safe: true,
        body: async () => {
          entered += 1;
          if (entered === RUNS) everyoneWaiting.open();
          await released.passed;
          return 'done';
        },
      }),
    );
    const runs = Array.from({ length: RUNS }, (_, i) =>
      runCode(rt, 'return await tools.slow({})', { callId: `run-${i}` }),
    );
    // Every run reached its tool call while none had finished: none was queued behind
    // another. (A run that ends before, refused or failed, ends the wait and shows below.)
    const early = Promise.race(runs.map((run) => run.then((result) => result)));
    const first = await Promise.race([everyoneWaiting.passed.then(() => undefined), early]);
    expect(first === undefined ? undefined : first.error?.message).toBeUndefined();
    expect(entered).toBe(RUNS);
    released.open();
    const results = await Promise.all(runs);
    expect(results.map((r) => (r.isError ? (r.error?.message ?? 'error') : runValue(r).result))).toEqual(
      Array.from({ length: RUNS }, () => 'done'),
    );
  }, 120_000);

  for (const isolation of ['process', 'in-process'] as const) {
    it(`100 runs fired at a runtime created just before, with its own sandbox (${isolation}): all reach their tool while the sandbox starts, none refused`, async () => {
      const RUNS = 100;
      let entered = 0;
      const everyoneWaiting = gate();
      // Its sandbox is made by the first run: no process, ready isolate or compiled program yet.
      const rt = createToolRuntime({
        mode: 'ptc',
        ...ROOM_FOR_100,
        ...(isolation === 'in-process' ? { sandbox: { isolation } } : {}),
      });
      try {
        rt.register(
          probeTool({
            name: 'wait',
            safe: true,
            body: async () => {
              entered += 1;
              if (entered === RUNS) everyoneWaiting.open();
              await everyoneWaiting.passed;
              return 'done';
            },
          }),
        );
        const runs = Array.from({ length: RUNS }, (_, i) =>
          runCode(rt, 'return await tools.wait({})', { callId: `cold-${i}` }),
        );
        const early = Promise.race(runs.map((run) => run.then((result) => result)));
        const first = await Promise.race([everyoneWaiting.passed.then(() => undefined), early]);
        expect(first === undefined ? undefined : first.error?.message).toBeUndefined();
        const results = await Promise.all(runs);
        expect(results.map((r) => (r.isError ? (r.error?.message ?? 'error') : runValue(r).result))).toEqual(
          Array.from({ length: RUNS }, () => 'done'),
        );
      } finally {
        await rt.close();
      }
    }, 120_000);
  }

  it('a run whose heap limit can never fit the memory budget is refused at once: kind busy, reason memory', async () => {
    const rt = runtime({ admission: { memoryBudgetBytes: 64 * 1_048_576 } });
    const refused = await runCode(rt, 'return 1');
    expect(refused.isError).toBe(true);
    expect(refused.error?.code).toBe('CODE_RUN_FAILED');
    expect(refused.error?.info).toMatchObject({ kind: 'busy', reason: 'memory', retryAfterMs: 0 });
    expect(textOf(refused)).toBe(
      'Error: run_code failed (busy): the runtime did not admit this run (memory budget): its heap limit (128 MiB) and off-heap footprint (4 MiB) are larger than the memory budget of all runs (64 MiB); lower limits.memoryMb or raise admission.memoryBudgetBytes. Retrying will not help.',
    );
  });

  it('a run that waits past the queue time limit is refused: kind busy, reason queue-time, with when to retry; the run holding the slot goes on', async () => {
    const looping = gate();
    const rt = runtime({
      admission: { cpuSlots: 1, sliceMs: 60_000, queueTimeoutMs: 200 },
      limits: { wallTimeMs: 5_000 },
    });
    rt.register(probeTool({ name: 'enter', safe: true, body: () => 'in' }));
    // Its call comes back and it executes for good: it holds the only slot (its slice is a minute).
    const loop = runCode(rt, 'await tools.enter({}); console.log("looping"); while (true) {}', { callId: 'loop' });
    rt.on('run/log', () => looping.open());
    await looping.passed;
    const refused = await runCode(rt, 'return "never runs"', { callId: 'late' });
    expect(refused.error?.info).toMatchObject({ kind: 'busy', reason: 'queue-time', retryAfterMs: expect.any(Number) });
    expect(textOf(refused)).toMatch(
      /^Error: run_code failed \(busy\): the runtime did not admit this run \(queue time\): it waited 200 ms for a CPU slot \(1 runs may execute at once; 0 more are queued\) and did not run\. Retry in about \d+ s\.$/,
    );
    expect((await loop).error?.info?.kind).toBe('timeout');
    expect(runValue(await runCode(rt, 'return 2', { callId: 'after' })).result).toBe(2);
  }, 30_000);
});

describe('run_code admission by what a run may use', () => {
  it("reserves each run's heap limit: under 384 MiB, 90 MiB runs of one agent stop at 3 in flight, and another agent's first run gets in at once", async () => {
    const inside = { a: 0, b: 0 };
    const open = gate();
    const rt = runtime({
      limits: { memoryMb: 90 },
      admission: { memoryBudgetBytes: 384 * 1_048_576, queueTimeoutMs: 60_000 },
    });
    rt.createAgent('a');
    rt.createAgent('b');
    for (const agent of ['a', 'b'] as const)
      rt.register(
        probeTool({
          name: `hold_${agent}`,
          safe: true,
          body: async () => {
            inside[agent] += 1;
            await open.passed;
            return 'done';
          },
        }),
        { agent },
      );
    const flood = Array.from({ length: 10 }, (_, i) =>
      runCode(rt, 'return await tools.hold_a({})', { callId: `a-${i}`, agent: 'a' }),
    );
    for (let waited = 0; inside.a < 3 && waited < 30_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    const other = runCode(rt, 'return await tools.hold_b({})', { callId: 'b-0', agent: 'b' });
    for (let waited = 0; inside.b < 1 && waited < 30_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    // 94 MiB reserved each: agent a holds 3 (282 MiB) and leaves room for b's first run.
    expect(inside).toEqual({ a: 3, b: 1 });
    open.open();
    const results = await Promise.all([...flood, other]);
    expect(results.map((r) => (r.isError ? (r.error?.message ?? 'error') : runValue(r).result))).toEqual(
      Array.from({ length: 11 }, () => 'done'),
    );
  }, 120_000);
});
