// The bounds a program is checked against before anything compiles it: its size, its
// regular expression literals and its nesting. One linear pass each and no compiler, so
// the host (and a type check, which would spend seconds on such a program) can ask
// without loading esbuild.
import type { CompileOptions, CompileResult } from './compile-result.ts';
import { MAX_PROGRAM_BYTES } from './limits.ts';
import { findDeepNesting, MAX_NESTING_DEPTH } from './nesting-bound.ts';
import { findLongRegExpLiteral, MAX_REGEXP_SOURCE_CHARS } from './regexp-literal-bound.ts';

export const LINE_BREAK = /\r\n|[\n\r\u2028\u2029]/;

/**
 * The refusal of a program over a bound checked before anything compiles it (its size,
 * a regular expression literal, its nesting), or undefined. Cheap (one linear pass): a
 * type check can ask first and skip what the compiler will refuse anyway.
 */
export function refuseBeforeCompile(
  code: string,
  options: Pick<CompileOptions, 'maxNestingDepth'> = {},
  lines: readonly string[] = code.split(LINE_BREAK),
): (CompileResult & { ok: false }) | undefined {
  const bytes = Buffer.byteLength(code, 'utf8');
  if (bytes > MAX_PROGRAM_BYTES) {
    return {
      ok: false,
      message: `The program is ${bytes} bytes, over the limit of ${MAX_PROGRAM_BYTES} bytes: write a shorter program (fetch data with tool calls instead of embedding it).`,
    };
  }
  const longRegExp = findLongRegExpLiteral(lines);
  if (longRegExp !== undefined) {
    const { line, column, sourceChars } = longRegExp;
    return {
      ok: false,
      message:
        `Regular expression too long at line ${line}, column ${column}: its source is ${sourceChars} characters, ` +
        `over the limit of ${MAX_REGEXP_SOURCE_CHARS} (MAX_REGEXP_SOURCE_CHARS). Use a shorter pattern or match in steps ` +
        `(e.g. a Set of words instead of one long alternation). If it is not a regular expression (say, a long string ` +
        `holding two distant "/"), break the line.\n${excerptAt(lines[line - 1] ?? '', line, column)}`,
      location: { line, column },
    };
  }
  const maxDepth = options.maxNestingDepth ?? MAX_NESTING_DEPTH;
  const deep = findDeepNesting(code, maxDepth);
  if (deep !== undefined) {
    const { line, column } = deep;
    return {
      ok: false,
      message:
        `The program nests too deeply at line ${line}, column ${column}: more than ${maxDepth} levels ` +
        `(MAX_NESTING_DEPTH) of brackets, template substitutions, arrow functions, conditionals or assignments, ` +
        `or of prefix operators, labels or brace-less statements in a row; the compiler's time grows faster than ` +
        `the nesting. Flatten it: name intermediate values and functions.\n` +
        excerptAt(lines[line - 1] ?? '', line, column),
      location: { line, column },
    };
  }
  return undefined;
}

const EXCERPT_WIDTH = 120;

/** One line of the program around a column, with a caret under it. */
export function excerptAt(source: string, line: number, column: number): string {
  let start = 0;
  if (source.length > EXCERPT_WIDTH)
    start = Math.max(0, Math.min(column - EXCERPT_WIDTH / 2, source.length - EXCERPT_WIDTH));
  const shown = source.slice(start, start + EXCERPT_WIDTH);
  const gutter = `${line} | `;
  const caret = ' '.repeat(gutter.length - 2) + '| ' + ' '.repeat(Math.max(0, column - 1 - start)) + '^';
  return `${gutter}${shown}\n${caret}`;
}
