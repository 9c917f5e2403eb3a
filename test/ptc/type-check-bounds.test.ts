// The type check before a run is bounded like the run: checks run side by side (one slow
// check does not hold every other run), a check ends with the run's abort and within its
// wall clock, and a program over the 1 MiB size limit is refused before TypeScript reads it.
import { afterAll, describe, expect, it } from '@jest/globals';
import { MAX_PROGRAM_BYTES } from '../../sandbox/limits.ts';
import { createProgramTypeChecker, TYPECHECK_TIMEOUT_MS } from '../../src/ptc/program-type-checker.ts';
import { ptcRuntimes, runCode } from './helpers.ts';

const SDK = 'declare const tools: {};\n';
/** `n` statements, each a type error (2448, a variable used in its own initializer): TypeScript takes a while. */
const statements = (n: number): string =>
  Array.from({ length: n }, (_, i) => `const v${i}: number = ${i} + v${i > 0 ? i - 1 : 0};`).join('\n');
/** About 1.1 MB: seconds of TypeScript (past its 8 s deadline on a loaded machine). */
const SLOW = statements(30_000);
/** About 150 KB, a program run_code accepts (SLOW is over its 1 MiB limit): a second or more of TypeScript. */
const SLOW_RUN = statements(4_000);

describe('type check bounds', () => {
  const checkers: ReturnType<typeof createProgramTypeChecker>[] = [];
  afterAll(async () => {
    await Promise.all(checkers.map((c) => c.close()));
  });
  const runtime = ptcRuntimes();

  it("a check waiting behind slow ones ends at its run's abort, and the slow ones are stopped at their deadline", async () => {
    const checker = createProgramTypeChecker({ timeoutMs: 8_000 });
    checkers.push(checker);
    let slowSettled = 0;
    const slow = [1, 2, 3].map(() =>
      checker.check(SDK, SLOW).finally(() => {
        slowSettled += 1;
      }),
    );
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 500);
    expect(await checker.check(SDK, 'return 1;', { signal: abort.signal })).toEqual({
      ok: false,
      reason: 'the run was aborted',
    });
    // It did not wait for a slow one to end (each takes seconds, or its 8 s deadline).
    expect(slowSettled).toBe(0);
    // A short deadline of its own (the run's wall clock) also ends a check that waits.
    expect(await checker.check(SDK, 'return 1;', { timeoutMs: 300 })).toEqual({
      ok: false,
      reason: 'the type check took longer than 300 ms and was stopped',
    });
    expect(slowSettled).toBe(0);
    const outcomes = await Promise.all(slow);
    expect(outcomes.every((o) => o.ok || /longer than 8000 ms/.test(o.reason))).toBe(true);
    // The checker still answers afterwards.
    expect(await checker.check(SDK, 'const s: string = 1;')).toMatchObject({ ok: true, diagnostics: [{ code: 2322 }] });
  }, 60_000);

  it("a new worker's start (loading TypeScript: seconds on a loaded machine) is not counted against the checker's deadline", async () => {
    // 2 s is ten times what a small check took once TypeScript was loaded, at load 11.
    const checker = createProgramTypeChecker({ timeoutMs: 2_000 });
    checkers.push(checker);
    expect(await checker.check(SDK, 'const s: string = 1;')).toMatchObject({ ok: true, diagnostics: [{ code: 2322 }] });
  }, 90_000);

  it('a run aborted while its check waits returns at once', async () => {
    const rt = runtime({ typecheck: 'warn' });
    let slowSettled = 0;
    const slow = [1, 2, 3].map((i) =>
      runCode(rt, `${SLOW_RUN}\nreturn 1;`, { callId: `slow${i}` }).finally(() => {
        slowSettled += 1;
      }),
    );
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 500);
    const result = await runCode(rt, 'return 1;', { callId: 'quick', signal: abort.signal });
    expect(result.isError).toBe(true);
    // It did not wait for a slow run's check to end (seconds, or its 10 s deadline).
    expect(slowSettled).toBe(0);
    // The slow ones were type-checked (the check found their use of a variable in its own initializer).
    // They went through the check: their type errors (or, past its deadline, the note that it was skipped) follow.
    for (const done of await Promise.all(slow)) {
      expect(done.error?.info?.['typeErrors']).toEqual(
        expect.arrayContaining([expect.stringMatching(/2448|Block-scoped|type check skipped/)]),
      );
    }
  }, 90_000);

  it('a program over the size limit is refused without a type check', async () => {
    const rt = runtime({ typecheck: 'error' });
    const big = `${'const a = 1;\n'.repeat(Math.ceil((2 * MAX_PROGRAM_BYTES) / 13))}return a;`;
    const started = Date.now();
    const result = await runCode(rt, big);
    // A check of 2 MiB of redeclarations would either report them (typecheck: 'error') or be
    // stopped at its deadline before the run went on to the compiler's refusal.
    expect(Date.now() - started).toBeLessThan(TYPECHECK_TIMEOUT_MS - 1_000);
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
