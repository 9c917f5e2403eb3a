// No function in src/, sandbox/ or sdk-gen/ with more than a screen of its own lines, unless
// a comment above it says why it stays whole (see function-size.ts for how lines count).
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { longFunctions, MAX_FUNCTION_LINES } from './function-size.ts';
import { root, tsFiles } from './import-graph.ts';

/** Written by `npm run bundle` from sources that are measured themselves. */
const GENERATED = new Set([join('sandbox', 'guest-prelude-bundle.ts')]);

const body = (n: number): string => '  step();\n'.repeat(n);

describe('function size', () => {
  it(`no function has more than ${MAX_FUNCTION_LINES} lines of its own without a reason written above it`, () => {
    const found = ['src', 'sandbox', 'sdk-gen']
      .flatMap(tsFiles)
      .filter((path) => !GENERATED.has(path))
      .flatMap((path) => longFunctions(path, readFileSync(join(root, path), 'utf8')))
      .map(
        (f) =>
          `${f.path}:${f.line} ${f.name}: ${f.lines} lines of its own (at most ${MAX_FUNCTION_LINES}; ` +
          'split it into steps, or write `// Long: <why>` above it)',
      );
    expect(found).toStrictEqual([]);
  });

  it('finds a long function of any form, by the name a reader searches for', () => {
    const long = body(MAX_FUNCTION_LINES);
    const text = [
      `export function declared() {\n${long}}`,
      `const arrow = () => {\n${long}};`,
      `const o = { method() {\n${long}} };`,
      `class C { m() {\n${long}} }`,
    ].join('\n');
    expect(longFunctions('x.ts', text).map((f) => f.name)).toStrictEqual(['declared', 'arrow', 'method', 'm']);
  });

  it('counts a function up to the limit as short, and nested functions on their own', () => {
    expect(longFunctions('x.ts', `function f() {\n${body(MAX_FUNCTION_LINES - 2)}}`)).toStrictEqual([]);
    expect(longFunctions('x.ts', `function f() {\n${body(MAX_FUNCTION_LINES - 1)}}`)).toHaveLength(1);
    // A factory of two short methods: neither it nor they are long.
    const half = body(MAX_FUNCTION_LINES - 10);
    const factory = `function make() {\n  const a = () => {\n${half}  };\n  const b = () => {\n${half}  };\n  return { a, b };\n}`;
    expect(longFunctions('x.ts', factory)).toStrictEqual([]);
    // A long method inside a factory is found by its own name.
    const inner = `function make() {\n  const a = () => {\n${body(MAX_FUNCTION_LINES)}  };\n  return a;\n}`;
    expect(longFunctions('x.ts', inner).map((f) => f.name)).toStrictEqual(['a']);
  });

  it('lets a function stay long only with a reason written just above it', () => {
    const fn = `function f() {\n${body(MAX_FUNCTION_LINES)}}`;
    expect(longFunctions('x.ts', `// Long: one scanner loop over shared state.\n${fn}`)).toStrictEqual([]);
    expect(longFunctions('x.ts', `/**\n * Does f.\n *\n * Long: a state machine.\n */\n${fn}`)).toStrictEqual([]);
    expect(
      longFunctions('x.ts', `// Long: a factory.\nconst g = () => {\n${body(MAX_FUNCTION_LINES)}};`),
    ).toStrictEqual([]);
    // A comment elsewhere, or one that merely mentions the word, is no reason.
    expect(longFunctions('x.ts', `// Long: reason for h.\nfunction h() {}\n${fn}`)).toHaveLength(1);
    expect(longFunctions('x.ts', `// This is long: sorry.\n${fn}`)).toHaveLength(1);
  });
});
