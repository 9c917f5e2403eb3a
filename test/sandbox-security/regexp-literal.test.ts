// A regular expression literal in the program is compiled by V8 outside the heap limit
// and the CPU budget (a 120,000-branch alternation literal ran 4.5 s under a 1 s CPU
// budget), so it is bounded like a RegExp built from a string: a source longer than
// MAX_REGEXP_SOURCE_CHARS is a compile error at its line and column. Every "/" of a long
// line is read as a possible literal start, so no parse trick hides one.
import { afterAll, describe, expect, it } from '@jest/globals';
import { compileProgram } from '../../sandbox/compile-program.ts';
import { createSandbox } from '../../sandbox/index.ts';
import { findLongRegExpLiteral, MAX_REGEXP_SOURCE_CHARS } from '../../sandbox/regexp-literal-bound.ts';
import { expectFailure, expectResult, recordingHost } from './helpers.ts';

const sandbox = createSandbox({ limits: { wallTimeMs: 20_000, cpuTimeMs: 1_000 } });
afterAll(() => sandbox.close());

const run = (code: string) => sandbox.run({ code, toolNames: [], hostCall: recordingHost([]).hostCall });

/** An alternation of `branches` words: the source of a pattern V8 compiles slowly. */
const alternation = (branches: number): string => Array.from({ length: branches }, (_, i) => `a${i}`).join('|');

describe('regular expression literals in the program', () => {
  it('refuses a 120,000-branch alternation literal at compile time, with its line and column', async () => {
    const code = `const words = ["zz"];\nconst hit =   /(${alternation(120_000)})/.test(words[0]);\nreturn hit;`;
    const outcome = await run(code);
    expectFailure(
      outcome,
      ['compile'],
      new RegExp(`Regular expression too long at line 2, column 15: .* over the limit of ${MAX_REGEXP_SOURCE_CHARS}`),
    );
    expect(outcome.ok === false && outcome.location).toEqual({ line: 2, column: 15 });
  });

  it(`accepts a literal of exactly ${MAX_REGEXP_SOURCE_CHARS} characters and refuses one more`, async () => {
    const at = 'x'.repeat(MAX_REGEXP_SOURCE_CHARS);
    expectResult(await run(`return /${at}/.source.length;`), MAX_REGEXP_SOURCE_CHARS);
    expectFailure(await run(`return /${at}x/.source.length;`), ['compile'], /its source is 65537 characters/);
  });

  it('finds a literal that a guess about "/" (division or literal) would miss', () => {
    const huge = `(${alternation(20_000)})`;
    const tricks = [
      // A literal after ")" whose body holds a quote: read as a division, the quote opens a string that hides the rest.
      `if (x) /"/.test(s), y = /${huge}/;`,
      // A division after ")": read as a literal, it would swallow the start of the real one.
      `const z = (a) / 2; y = /${huge}/;`,
      // Classes and escapes: "/" inside them does not end the literal.
      `y = /[/]\\/${huge}/;`,
      `f(a / b, /${huge}/g);`,
    ];
    for (const line of tricks) expect(findLongRegExpLiteral(['let x, y, s, a, b;', line])?.line).toBe(2);
  });

  it('leaves long lines without a long literal alone: strings, divisions, comments and short literals', async () => {
    const data = Array.from({ length: 4_000 }, (_, i) => `https://example.com/${i}/page`).join(' ');
    const divisions = Array.from({ length: 10_000 }, (_, i) => `${i + 1} / 2`).join(' + ');
    const literals = Array.from({ length: 5_000 }, () => '/a[/]b/.test("a/b")').join(' && ');
    const code = [
      `const data = ${JSON.stringify(data)}; // a comment / with / slashes`,
      `const sum = ${divisions};`,
      `const all = ${literals};`,
      'return [data.length > 65536, sum, all, /x+/g.source];',
    ].join('\n');
    expect(code.split('\n').every((l) => l.length > MAX_REGEXP_SOURCE_CHARS || l.startsWith('return'))).toBe(true);
    expect(findLongRegExpLiteral(code.split('\n'))).toBeUndefined();
    expectResult(await run(code), [true, (10_000 * 10_001) / 4, true, 'x+']);
  });

  it('reads a 1 MiB line in one linear pass (it does not rescan from every "/")', async () => {
    // Every "/" opens a class that never closes: a rescan from each "/" would be quadratic (~10^11 steps).
    const line = `y = "${'/['.repeat(400_000)}";`;
    const started = performance.now();
    expect(findLongRegExpLiteral([line])).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(5_000);
    const compiled = await compileProgram(`let y;\n${line}\nreturn y.length;`);
    expect(compiled.ok).toBe(true);
  });
});
