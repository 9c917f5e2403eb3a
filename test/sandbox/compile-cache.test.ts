// Compiled programs are reused by exact source text, within bounds: entries and
// characters held, least recently used out first; failures are never kept.
import { describe, expect, it } from '@jest/globals';
import { CompileCache } from '../../sandbox/compile-cache.ts';
import { compileProgram } from '../../sandbox/compile-program.ts';
import type { CompiledProgram } from '../../sandbox/compiled-program.ts';

const program = (js: string): CompiledProgram => ({ js, sourceMap: '', lineCount: 1 });

describe('compile cache', () => {
  it('the same program text compiles once; any other text is compiled afresh', async () => {
    const code = `const n: number = ${Math.random()};\nreturn n;`;
    const first = await compileProgram(code);
    const again = await compileProgram(code);
    const other = await compileProgram(`${code}\n// another program`);
    if (!first.ok || !again.ok || !other.ok) throw new Error('expected the programs to compile');
    expect(again.program).toBe(first.program);
    expect(other.program).not.toBe(first.program);
  });

  it('a program compiled with other bounds is not reused where the default bounds apply', async () => {
    const deep = `return ${'['.repeat(300)}${Math.random()}${']'.repeat(300)};`;
    const unbounded = await compileProgram(deep, { maxNestingDepth: Number.POSITIVE_INFINITY });
    expect(unbounded.ok).toBe(true);
    const bounded = await compileProgram(deep);
    expect(bounded.ok).toBe(false);
    if (!bounded.ok) expect(bounded.message).toMatch(/nests too deeply/);
  });

  it('a program that failed to compile is compiled again (and fails again) rather than kept', async () => {
    const code = `return (${Math.random()};`;
    const first = await compileProgram(code);
    const again = await compileProgram(code);
    expect(first.ok).toBe(false);
    expect(again).toStrictEqual(first);
    expect(again).not.toBe(first);
  });

  it('the same program sent many times at once is compiled once: every caller gets that one program', async () => {
    const code = `const n: number = ${Math.random()};\nreturn n;`;
    const results = await Promise.all(Array.from({ length: 20 }, () => compileProgram(code)));
    const programs = results.map((result) => (result.ok ? result.program : undefined));
    expect(programs[0]).toBeDefined();
    // Compiled apart, each would carry its own wrapper label (a fresh nonce per compile).
    for (const program of programs) expect(program).toBe(programs[0]);
    // Other bounds are another compile, not a share of this one.
    const other = await Promise.all([compileProgram(`${code}\n`), compileProgram(`${code}\n`, { deadlineMs: 5_000 })]);
    if (!other[0].ok || !other[1].ok) throw new Error('expected the programs to compile');
    expect(other[1].program.js).not.toBe(other[0].program.js);
  });

  it('a failure shared by callers at once is not kept: the program is compiled again afterwards', async () => {
    const code = `return (${Math.random()};`;
    const [first, second] = await Promise.all([compileProgram(code), compileProgram(code)]);
    expect(first?.ok).toBe(false);
    expect(second).toBe(first);
    const later = await compileProgram(code);
    expect(later).toStrictEqual(first);
    expect(later).not.toBe(first);
  });

  it('keeps at most maxEntries programs, dropping the least recently used', () => {
    const cache = new CompileCache({ maxEntries: 2 });
    cache.set('a', program('A'));
    cache.set('b', program('B'));
    expect(cache.get('a')?.js).toBe('A'); // now b is the least recently used
    cache.set('c', program('C'));
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.js).toBe('A');
    expect(cache.get('c')?.js).toBe('C');
  });

  it('keeps at most maxChars characters, and never an entry over a quarter of them', () => {
    const cache = new CompileCache({ maxChars: 100 });
    cache.set('x', program('y'.repeat(30))); // 31 characters: over a quarter, not kept
    expect(cache.size).toBe(0);
    for (const key of ['k1', 'k2', 'k3', 'k4', 'k5']) cache.set(key, program('z'.repeat(20))); // 22 each
    expect(cache.chars).toBeLessThanOrEqual(100);
    expect(cache.size).toBe(4);
    expect(cache.get('k1')).toBeUndefined();
    expect(cache.get('k5')?.js).toHaveLength(20);
  });
});
