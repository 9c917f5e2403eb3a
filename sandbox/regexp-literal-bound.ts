// A regular expression literal in the program is compiled by V8 outside the isolate's
// heap and without the CPU budget (a million-branch alternation: seconds and hundreds of
// MB), so it gets the bound a RegExp built from a string has (MAX_REGEXP_SOURCE_CHARS).
// Whether a `/` starts a literal or divides depends on the parse; instead of guessing,
// every `/` is read as a possible literal start. A literal cannot span lines, so only
// lines longer than the bound are read at all, in one linear pass each. What is refused
// is sound (no longer literal passes); a false alarm needs two slashes more than 65,536
// characters apart on one line with none between, e.g. inside a long string.
import { MAX_REGEXP_SOURCE_CHARS } from './guest/native-work-guards.ts';

export { MAX_REGEXP_SOURCE_CHARS };

const SLASH = 0x2f;
const BACKSLASH = 0x5c;
const OPEN_CLASS = 0x5b;
const CLOSE_CLASS = 0x5d;
const STAR = 0x2a;
const UNTERMINATED = -1;

/** A literal over the bound: where it starts (1-based line and column) and its source length. */
export interface LongRegExpLiteral {
  readonly line: number;
  readonly column: number;
  readonly sourceChars: number;
}

/**
 * For each position of `text`, where a literal's body read from there ends (the index
 * of its closing `/`), outside a class (`outside`) and inside one (`inClass`); computed
 * right to left, following the lexical grammar (escapes, classes, no line breaks).
 */
function bodyEnds(text: string): { outside: Int32Array; inClass: Int32Array } {
  const n = text.length;
  const outside = new Int32Array(n + 2).fill(UNTERMINATED);
  const inClass = new Int32Array(n + 2).fill(UNTERMINATED);
  for (let p = n - 1; p >= 0; p--) {
    const c = text.charCodeAt(p);
    if (c === BACKSLASH) {
      outside[p] = outside[p + 2]!;
      inClass[p] = inClass[p + 2]!;
      continue;
    }
    outside[p] = c === SLASH ? p : c === OPEN_CLASS ? inClass[p + 1]! : outside[p + 1]!;
    inClass[p] = c === CLOSE_CLASS ? outside[p + 1]! : inClass[p + 1]!;
  }
  return { outside, inClass };
}

/** The first regular expression literal (or text that could be one) in the program's `lines` whose source is longer than `max`. */
export function findLongRegExpLiteral(
  lines: readonly string[],
  max: number = MAX_REGEXP_SOURCE_CHARS,
): LongRegExpLiteral | undefined {
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index]!;
    if (text.length <= max + 2) continue;
    const { outside } = bodyEnds(text);
    for (let s = text.indexOf('/'); s !== -1; s = text.indexOf('/', s + 1)) {
      const first = text.charCodeAt(s + 1);
      // A body never starts with `*` (a comment) or `/` (a comment or no body).
      if (first === STAR || first === SLASH) continue;
      const end = outside[s + 1]!;
      if (end !== UNTERMINATED && end - (s + 1) > max) {
        return { line: index + 1, column: s + 1, sourceChars: end - (s + 1) };
      }
    }
  }
  return undefined;
}
