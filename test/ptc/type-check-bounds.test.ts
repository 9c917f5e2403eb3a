// The type check before a run is bounded like the run: checks run side by side (one slow
// check does not hold every other run), a check ends with the run's abort and within its
// wall clock, and a program over the 1 MiB size limit is refused before TypeScript reads it.
import { afterAll, describe, expect, it } from '@jest/globals';
import { MAX_PROGRAM_BYTES } from '../../sandbox/limits.ts';
import { createProgramTypeChecker } from '../../src/ptc/program-type-checker.ts';
import { ptcRuntimes, runCode } from './helpers.ts';

const SDK = 'declare const tools: {};\n';
/** About 900 KB of statements: seconds of TypeScript. */
const SLOW = Array.from({ length: 30_000 }, (_, i) => `const v${i}: number = ${i} + v${i > 0 ? i - 1 : 0};`).join('\n');

describe('type check bounds', () => {
  const checkers: ReturnType<typeof createProgramTypeChecker>[] = [];
  afterAll(async () => {
    await Promise.all(checkers.map((c) => c.close()));
  });
  const runtime = ptcRuntimes();

  it("a check waiting behind slow ones ends at its run's abort, and the slow ones are stopped at their deadline", async () => {
    const checker = createProgramTypeChecker({ timeoutMs: 8_000 });
    checkers.push(checker);
    const slow = [1, 2, 3].map(() => checker.check(SDK, SLOW));
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 500);
    const started = Date.now();
    expect(await checker.check(SDK, 'return 1;', { signal: abort.signal })).toEqual({
      ok: false,
      reason: 'the run was aborted',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    // A short deadline of its own (the run's wall clock) also ends a check that waits.
    const t = Date.now();
    expect(await checker.check(SDK, 'return 1;', { timeoutMs: 300 })).toEqual({
      ok: false,
      reason: 'the type check took longer than 300 ms and was stopped',
    });
    expect(Date.now() - t).toBeLessThan(2_000);
    const outcomes = await Promise.all(slow);
    expect(outcomes.every((o) => o.ok || /longer than 8000 ms/.test(o.reason))).toBe(true);
    // The checker still answers afterwards.
    expect(await checker.check(SDK, 'const s: string = 1;')).toMatchObject({ ok: true, diagnostics: [{ code: 2322 }] });
  }, 60_000);

  it('a run aborted while its check waits returns at once', async () => {
    const rt = runtime({ typecheck: 'warn' });
    const slow = [1, 2, 3].map((i) => runCode(rt, `${SLOW}\nreturn 1;`, { callId: `slow${i}` }));
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 500);
    const started = Date.now();
    const result = await runCode(rt, 'return 1;', { callId: 'quick', signal: abort.signal });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(result.isError).toBe(true);
    await Promise.all(slow);
  }, 90_000);

  it('a program over the size limit is refused without a type check', async () => {
    const rt = runtime({ typecheck: 'error' });
    const big = `${'const a = 1;\n'.repeat(Math.ceil((2 * MAX_PROGRAM_BYTES) / 13))}return a;`;
    const started = Date.now();
    const result = await runCode(rt, big);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(result.isError).toBe(true);
    expect(result.error?.message).toContain(`over the limit of ${MAX_PROGRAM_BYTES} bytes`);
  }, 60_000);

  it('a program the compiler refuses before compiling (deep nesting, a long regex literal) is not type-checked', async () => {
    const rt = runtime({ typecheck: 'error' });
    // Both carry a type error: a check would report it (typecheck: 'error') instead of the bound.
    const deep = await runCode(rt, `const s: string = 1;\nreturn ${'a=>'.repeat(1_000)}1;`, { callId: 'deep' });
    expect(deep.error?.message).toContain('nests too deeply at line 2');
    expect(deep.error?.message).not.toContain('type-check');
    const regex = await runCode(rt, `const s: string = 1;\nreturn /${'a|'.repeat(40_000)}b/.test("b");`, {
      callId: 'regex',
    });
    expect(regex.error?.message).toContain('Regular expression too long at line 2');
    expect(regex.error?.message).not.toContain('type-check');
  }, 60_000);
});
