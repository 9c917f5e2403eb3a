// The guest's randomness and clock are deterministic per run (sandbox/guest/
// deterministic-sources.ts): the same seed gives the same Math.random sequence, the clock
// starts at the given time, stands still while the program computes, and moves to each
// outcome's recorded time when it is delivered — so a re-run with the same determinism
// and the same recorded times sees exactly what the first attempt saw. Both isolation modes.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import type { HostCallOutcome, HostCallRequest, JsonValue, RunOutcome } from '../../sandbox/types.ts';
import { expectOk } from './helpers.ts';

const boxes = {
  process: createSandbox({ poolSize: 1 }),
  'in-process': createSandbox({ isolation: 'in-process', poolSize: 1 }),
};
afterAll(() => Promise.all(Object.values(boxes).map((box) => box.close())));

const PROGRAM = `
const first = [Math.random(), Math.random()];
const t0 = Date.now();
let spin = 0; for (let i = 0; i < 200000; i++) spin += i;
const t1 = new Date().getTime();
const r = await tools.f({ r: Math.random(), t: Date.now() });
return { first, t0, t1, after: Date.now(), date: new Date().toISOString(), asText: typeof Date(), r, spin: spin > 0,
  parsed: new Date(0).getTime(), inst: new Date() instanceof Date, utc: Date.UTC(2020, 0, 1) };`;

const T = Date.UTC(2030, 0, 2, 3, 4, 5);
const recordedAt = T + 1234;
const hostCall = async (request: HostCallRequest): Promise<HostCallOutcome> => ({
  ok: true,
  valueJson: request.argsJson,
  at: recordedAt,
});

function result(outcome: RunOutcome): { [key: string]: JsonValue } {
  expectOk(outcome);
  return (outcome as { result: { [key: string]: JsonValue } }).result;
}

describe.each(Object.entries(boxes))('deterministic randomness and clock (%s)', (_mode, sandbox) => {
  it('the same seed and recorded times give the same values; the clock moves only at I/O', async () => {
    const determinism = { seed: 'run-abc', clockStartMs: T };
    const a = result(await sandbox.run({ code: PROGRAM, toolNames: ['f'], hostCall, determinism }));
    const b = result(await sandbox.run({ code: PROGRAM, toolNames: ['f'], hostCall, determinism }));
    expect(b).toStrictEqual(a);
    expect(a['t0']).toBe(T);
    expect(a['t1']).toBe(T); // frozen while computing
    expect(a['r']).toStrictEqual({ r: expect.any(Number), t: T });
    expect(a['after']).toBe(recordedAt); // moved to the delivered outcome's time
    expect(a['date']).toBe(new Date(recordedAt).toISOString());
    expect(a['asText']).toBe('string');
    expect(a['parsed']).toBe(0);
    expect(a['inst']).toBe(true);
    expect(a['utc']).toBe(Date.UTC(2020, 0, 1));
    const [x, y] = a['first'] as number[];
    expect(x).not.toBe(y);
    for (const n of [x!, y!]) expect(n >= 0 && n < 1).toBe(true);
  });

  it('another seed gives other random numbers; no determinism given means a fresh seed and the current time', async () => {
    const code = 'return [Math.random(), Date.now()];';
    const one = result(
      await sandbox.run({ code, toolNames: [], hostCall, determinism: { seed: 's1', clockStartMs: 5 } }),
    );
    const two = result(
      await sandbox.run({ code, toolNames: [], hostCall, determinism: { seed: 's2', clockStartMs: 5 } }),
    );
    expect(one[0]).not.toBe(two[0]);
    expect(one[1]).toBe(5);
    const before = Date.now();
    const fresh = result(await sandbox.run({ code, toolNames: [], hostCall })) as unknown as [number, number];
    const again = result(await sandbox.run({ code, toolNames: [], hostCall })) as unknown as [number, number];
    expect(fresh[0]).not.toBe(again[0]);
    expect(fresh[1]).toBeGreaterThanOrEqual(before);
    expect(fresh[1]).toBeLessThanOrEqual(Date.now());
  });

  it('the clock never goes back: an outcome recorded earlier than the clock leaves it', async () => {
    const early = async (request: HostCallRequest): Promise<HostCallOutcome> => ({
      ok: true,
      valueJson: request.argsJson,
      at: 10,
    });
    const out = result(
      await sandbox.run({
        code: 'await tools.f({}); return Date.now();',
        toolNames: ['f'],
        hostCall: early,
        determinism: { seed: 'x', clockStartMs: 1000 },
      }),
    );
    expect(out).toBe(1000);
  });

  it('a malformed determinism is a TypeError', async () => {
    await expect(
      sandbox.run({ code: 'return 1', toolNames: [], hostCall, determinism: { seed: '', clockStartMs: 1 } }),
    ).rejects.toThrow(/determinism/);
  });
});
