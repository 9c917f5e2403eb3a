// Syntax whose compile time grows faster than its length: measured with esbuild, a
// 3 KB chain of 1,000 arrows `a=>a=>…` took 5.5 s, 40,000 nested conditionals or
// chained assignments over 4 s — cheap programs that would hold the compiler, shared by
// every run, up to its deadline. Nesting is bounded before esbuild runs; ordinary code
// (this repository's own files peak near 15 levels) is untouched.
import { afterAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { compileProgram } from '../../sandbox/compile-program.ts';
import { createSandbox } from '../../sandbox/index.ts';
import { findDeepNesting, MAX_NESTING_DEPTH } from '../../sandbox/nesting-bound.ts';
import { expectFailure, expectResult, recordingHost } from './helpers.ts';

const sandbox = createSandbox({ limits: { wallTimeMs: 20_000, cpuTimeMs: 5_000 } });
afterAll(() => sandbox.close());

const run = (code: string) => sandbox.run({ code, toolNames: [], hostCall: recordingHost([]).hostCall });
const D = MAX_NESTING_DEPTH;

/** Programs nested `n` levels deep, each returning a number. */
const nested: readonly [string, (n: number) => string][] = [
  [
    'arrows with an expression body',
    (n) => `const f = ${'a=>'.repeat(n)}7;\nlet g: any = f;\nwhile (typeof g === "function") g = g(0);\nreturn g;`,
  ],
  ['arrows, one per line', (n) => `const f = ${'a=>\n'.repeat(n)}7;\nreturn typeof f;`],
  ['parentheses', (n) => `return ${'('.repeat(n)}7${')'.repeat(n)};`],
  ['arrays', (n) => `return ${'['.repeat(n)}7${']'.repeat(n)}.length;`],
  ['conditionals', (n) => `return ${'1?'.repeat(n)}7${':1'.repeat(n)};`],
  ['assignments', (n) => `let a = 0;\nreturn ${'a='.repeat(n)}7;`],
  ['template substitutions', (n) => `return ${'`${'.repeat(n)}7${'}`'.repeat(n)};`],
  ['statements without braces', (n) => `let x = 0;\n${'if (1) '.repeat(n)}x = 7;\nreturn x;`],
  ['labels', (n) => `let x = 0;\n${Array.from({ length: n }, (_, i) => `l${i}: `).join('')}x = 7;\nreturn x;`],
  ['prefix operators', (n) => `return ${'-'.repeat(n % 2)}${'!'.repeat(n - (n % 2))}7 ? 7 : 0;`],
];

describe(`program nesting is bounded at ${D} levels before the compiler runs`, () => {
  it.each(nested)(`%s: ${D - 2} levels run, ${D + 1} are a compile error at their line`, async (_name, program) => {
    const within = await run(program(D - 2));
    expect(within.ok).toBe(true);
    const over = await run(program(D + 1));
    expectFailure(over, ['compile'], new RegExp(`nests too deeply at line \\d+, column \\d+: more than ${D} levels`));
  });

  it('refuses a 1,000-arrow chain without handing it to the compiler', async () => {
    const started = performance.now();
    const compiled = await compileProgram(`return ${'a=>'.repeat(1_000)}1;`);
    expect(compiled.ok).toBe(false);
    expect(compiled.ok === false && compiled.location).toEqual({ line: 1, column: 7 + 3 * D + 2 });
    // esbuild itself took 5.5 s on it; the scan takes milliseconds (10x margin for a noisy machine).
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('leaves ordinary code alone: statements without semicolons, many arrows in sequence, regular expressions with brackets', async () => {
    const lines = [
      ...Array.from({ length: 400 }, (_, i) => `const f${i} = (x: number) => x > ${i} ? x : ${i}`),
      ...Array.from(
        { length: 300 },
        () => 'ok = ok && /[(]+\\(/.test("((") && [1, 2].map((x) => x + 1).filter(y => y > 2).length === 1',
      ),
      'let n = 0',
      ...Array.from({ length: 300 }, () => 'n = n + 1'),
      ...Array.from({ length: 300 }, (_, i) => `if (n === ${i}) n = n\nelse`),
      'n = n + 0',
      `switch (n) { ${Array.from({ length: 300 }, (_, i) => `case ${i}:`).join(' ')} n = -n }`,
      `const sum = ${Array.from({ length: 300 }, (_, i) => `-${i}`).join(' + ')}`,
      'return [ok, n, f399(1000), sum]',
    ];
    const code = `let ok = true\n${lines.join('\n')}`;
    expect(findDeepNesting(code)).toBeUndefined();
    expectResult(await run(code), [true, 300, 1000, -44850]);
  });

  it('finds nothing this deep in real TypeScript (the runtime and its own test programs)', () => {
    for (const file of [
      '../../src/runtime/create-tool-runtime.ts',
      '../../sandbox/compile-program.ts',
      './regexp-literal.test.ts',
    ]) {
      const code = readFileSync(new URL(file, import.meta.url), 'utf8');
      expect(findDeepNesting(code, 32)).toBeUndefined();
    }
  });
});
