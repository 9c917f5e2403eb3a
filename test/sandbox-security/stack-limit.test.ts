// Tool calls made with the guest's stack nearly exhausted: a call that cannot be sent
// is refused inside the program (NOT_DISPATCHED or the RangeError itself), never counted
// and lost, so the run does not hang until its wall limit, and calls that were sent keep
// their order on the host.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import type { JsonValue } from '../../sandbox/types.ts';
import { expectHealthy, expectResult, memorySnapshot, okJson, peakGrowthMb, recordingHost } from './helpers.ts';

// A wall limit far above what these runs need: hitting it is the bug under test.
const LIMITS = { wallTimeMs: 15_000, cpuTimeMs: 10_000 };
const processBox = createSandbox({ limits: LIMITS });
const inProcessBox = createSandbox({ isolation: 'in-process', limits: LIMITS });
afterAll(() => Promise.all([processBox.close(), inProcessBox.close()]));
// The host's one-time costs (modules loaded on first use, the sandbox process's start,
// the compiler's first program) come before any test measures the host's memory growth:
// the first test of the file counted them, 110 MB against its 100 MB bound 1 run in 5.
beforeAll(async () => {
  await expectHealthy(processBox);
  await expectHealthy(inProcessBox);
});

/** Recurses until the stack overflows, then makes calls on the way back up (the deepest first). */
function nearLimitProgram(callsPerFrame: number, frames: number, argument: string): string {
  return `
const outcomes = [];
let made = 0;
function probe(depth) {
  try { probe(depth + 1); } catch (e) {}
  if (made >= ${frames}) return;
  made++;
  for (let i = 0; i < ${callsPerFrame}; i++) {
    let p;
    try { p = tools.a(${argument}); } catch (e) { outcomes.push(e instanceof RangeError ? 'RangeError' : 'threw ' + e); continue; }
    outcomes.push(p.then(() => 'ok', (e) => (e && e.code) || (e instanceof RangeError ? 'RangeError' : String(e))));
  }
}
try { probe(0); } catch (e) {}
return await Promise.all(outcomes);`;
}

/**
 * Sweeps the stack left for a call finely: recurses until the stack overflows, then on
 * the way back the deepest frame whose call does not throw makes it, with the last frame
 * padded by 0..31 arguments (8 bytes each) so that the room left moves in small steps.
 */
const SWEEP_PROGRAM = `
function last() { return tools.a(); }
function attemptsAt(pad) {
  const made = [];
  function r() {
    try { r(); } catch (e) {}
    if (made.length < 12) {
      try { made.push(Reflect.apply(last, null, pad)); } catch (e) {}
    }
  }
  r();
  return made;
}
const counts = { ok: 0, NOT_DISPATCHED: 0, RangeError: 0, other: [] };
for (let j = 0; j < 32; j++) {
  const outcomes = await Promise.all(attemptsAt(new Array(j).fill(0)).map((p) => p.then(() => 'ok', (e) => (e && e.code) || (e instanceof RangeError ? 'RangeError' : String(e)))));
  for (const r of outcomes) if (r in counts && r !== 'other') counts[r] += 1; else counts.other.push(r);
}
return counts;`;

describe.each([
  ['process', processBox],
  ['in-process', inProcessBox],
] as const)('calls near the stack limit (%s)', (_mode, sandbox) => {
  it.each([
    ['one call per frame, small arguments', 1, 200, '{ depth }'],
    ['one call per frame, no arguments', 1, 200, ''],
    ['three calls per frame', 3, 100, '{ depth, i }'],
    ['large arguments', 1, 100, '{ depth, text: "x".repeat(2000), list: [1, 2, 3, { a: [depth] }] }'],
  ])(
    '%s: every call settles inside the program and the run ends normally',
    async (_name, perFrame, frames, argument) => {
      const before = memorySnapshot();
      const rec = recordingHost(['a'], () => okJson(1));
      const outcome = await sandbox.run({
        code: nearLimitProgram(perFrame, frames, argument),
        toolNames: ['a'],
        hostCall: rec.hostCall,
      });
      if (!outcome.ok) throw new Error(`expected the run to finish, got ${outcome.kind}: ${outcome.message}`);
      const results = outcome.result as JsonValue[];
      // Pushing a result near the limit may itself overflow; the rest are all here.
      expect(results.length).toBeGreaterThan((perFrame * frames) / 2);
      for (const result of results) expect(['ok', 'NOT_DISPATCHED', 'RangeError']).toContain(result);
      // What the program saw as sent is exactly what the host received, in order.
      expect(rec.calls).toHaveLength(results.filter((r) => r === 'ok').length);
      expect(rec.calls.map((c) => c.seq)).toStrictEqual(rec.calls.map((_c, i) => i + 1));
      expect(rec.violations).toStrictEqual([]);
      expect(peakGrowthMb(before).hostMb).toBeLessThan(100);
      await expectHealthy(sandbox);
    },
    30_000,
  );

  it('a fine sweep of the stack left for a call: each call is sent or refused inside the program, none is lost', async () => {
    const rec = recordingHost(['a'], () => okJson(1));
    const outcome = await sandbox.run({
      code: SWEEP_PROGRAM,
      toolNames: ['a'],
      hostCall: rec.hostCall,
      limits: { maxCalls: 2_000 },
    });
    if (!outcome.ok) throw new Error(`expected the run to finish, got ${outcome.kind}: ${outcome.message}`);
    const counts = outcome.result as { ok: number; NOT_DISPATCHED: number; RangeError: number; other: JsonValue[] };
    expect(counts.other).toStrictEqual([]);
    expect(counts.ok).toBeGreaterThan(0);
    expect(rec.calls).toHaveLength(counts.ok);
    expect(rec.calls.map((c) => c.seq)).toStrictEqual(rec.calls.map((_c, i) => i + 1));
    await expectHealthy(sandbox);
  }, 30_000);

  it('a call refused for lack of stack is reported with a clear code and message', async () => {
    const rec = recordingHost(['a'], () => okJson(1));
    const outcome = await sandbox.run({
      code: `const seen = [];
let made = 0;
function probe() { try { probe(); } catch (e) {} if (made < 50) { made++; try { seen.push(tools.a({}).then(() => 'sent', (e) => e.code + ': ' + e.message)); } catch (e) {} } }
probe();
await tools.a({ after: true });
const refused = (await Promise.all(seen)).find((text) => text !== 'sent');
return refused ?? 'every call was sent';`,
      toolNames: ['a'],
      hostCall: rec.hostCall,
    });
    if (!outcome.ok) throw new Error(`${outcome.kind}: ${outcome.message}`);
    const text = String(outcome.result);
    // Either the stack happened to leave room for every call, or the refusal says why.
    if (text !== 'every call was sent') expect(text).toMatch(/^NOT_DISPATCHED: tools\.a could not be sent/);
    expect(rec.violations).toStrictEqual([]);
    expectResult(await sandbox.run({ code: 'return 5', toolNames: [], hostCall: rec.hostCall }), 5);
  }, 30_000);
});
