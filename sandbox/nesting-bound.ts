// esbuild's time grows faster than linearly with some nesting: measured, a chain of
// 1,000 expression-bodied arrows (`a=>a=>…`, 3 KB) took 5.5 s, 20,000 labels `l: l: …`
// 4.3 s, 40,000 nested conditionals or chained assignments over 4 s, 60,000 `!` 2.6 s —
// cheap programs that would hold the compiler (shared by every run) up to its deadline.
// One linear pass over the program's tokens bounds the nesting before esbuild runs:
// brackets, template substitutions, arrows with an expression body, conditionals and
// assignments each open a level, which ends at `,`, `;`, its closing bracket, a
// declaration, or a line break where a statement can end; runs of prefix operators, of
// labels and of brace-less statement heads (`if (…) while (…) …`) are counted as levels
// too. It is a tokenizer, not a parser (a `/` after a value divides, elsewhere it starts
// a regular expression), so it may miscount in rare code; esbuild's deadline stays the
// backstop.

/** Levels of nesting a program may have. */
export const MAX_NESTING_DEPTH = 256;

/** Where the nesting first went past the bound (1-based, in the program's own lines). */
export interface DeepNesting {
  readonly line: number;
  readonly column: number;
}

/** Kinds of level on the stack. */
const BRACKET = 0;
const HEADER = 1; // the parentheses after if / while / for / with
const SUBSTITUTION = 2;
const EXPRESSION = 3;
const CONDITIONAL = 4;
type Frame = typeof BRACKET | typeof HEADER | typeof SUBSTITUTION | typeof EXPRESSION | typeof CONDITIONAL;

/** What the last token was: decides whether `/` divides and whether a line break may end a statement. */
const OPERATOR = 0;
const VALUE = 1;
const DOT = 2;
type Prev = typeof OPERATOR | typeof VALUE | typeof DOT;

// biome-ignore format: one table
const OPERATORS = ['>>>=', '...', '===', '!==', '**=', '<<=', '>>=', '>>>', '&&=', '||=', '??=', '=>', '==', '!=', '<=', '>=',
  '&&', '||', '??', '?.', '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '**', '<<', '>>'];
// biome-ignore format: one table
const ASSIGNMENTS = new Set(['=', '+=', '-=', '*=', '/=', '%=', '**=', '<<=', '>>=', '>>>=', '&=', '|=', '^=', '&&=', '||=', '??=']);
/** Prefix operators, when a value is expected. */
const PREFIX = new Set(['!', '~', '+', '-', '++', '--']);
const PREFIX_KEYWORDS = new Set(['typeof', 'void', 'delete', 'await', 'new']);
/** After these a `/` starts a regular expression. */
// biome-ignore format: one table
const OPERATOR_KEYWORDS = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case',
  'do', 'else', 'yield', 'await', 'extends']);
/** Declarations: no expression of the same level goes on past them. */
const DECLARATIONS = new Set(['const', 'let', 'var', 'function', 'class', 'import', 'export', 'case', 'default']);
const HEAD_KEYWORDS = new Set(['if', 'while', 'for', 'with']);

const isLineBreak = (c: string): boolean => c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029';
const isSpace = (c: string): boolean =>
  c === ' ' || c === '\t' || (c > '\u007f' ? /\s/u.test(c) : c === '\v' || c === '\f');
const isWordChar = (c: string): boolean =>
  (c >= 'a' && c <= 'z') ||
  (c >= 'A' && c <= 'Z') ||
  (c >= '0' && c <= '9') ||
  c === '_' ||
  c === '$' ||
  c === '\\' ||
  (c > '\u007f' && /[\p{ID_Continue}\u200c\u200d]/u.test(c));

/**
 * The first place `code` nests deeper than `max`, or undefined.
 *
 * Long: one scanner loop over the text; every branch reads and moves the same state (the
 * stack, the previous token, the runs of prefixes, labels and heads), which split functions
 * would have to pass around or share as fields.
 */
export function findDeepNesting(code: string, max: number = MAX_NESTING_DEPTH): DeepNesting | undefined {
  const n = code.length;
  const stack: Frame[] = [];
  let prev: Prev = OPERATOR;
  let sawLineBreak = false;
  let i = 0;
  /** Runs of prefix operators, of labels, and of statement heads without a brace. */
  let prefixRun = 0;
  let labelRun = 0;
  let headRun = 0;
  let headNext = false;
  let lastWasWord = false;

  const endExpressions = (): void => {
    let top = stack[stack.length - 1];
    while (top === EXPRESSION || top === CONDITIONAL) {
      stack.pop();
      top = stack[stack.length - 1];
    }
  };
  const deeper = (): boolean => stack.length > max || prefixRun > max || labelRun > max || headRun > max;
  const nextNonSpace = (from: number): string => {
    let j = from;
    while (j < n && (isSpace(code[j]!) || isLineBreak(code[j]!))) j++;
    return code[j] ?? '';
  };
  /** Scans template text from `i` (after a backtick or a substitution's `}`); true when a substitution opened. */
  const scanTemplate = (): boolean => {
    while (i < n) {
      const c = code[i]!;
      if (c === '\\') i += 2;
      else if (c === '`') {
        i++;
        prev = VALUE;
        return false;
      } else if (c === '$' && code[i + 1] === '{') {
        i += 2;
        prev = OPERATOR;
        return true;
      } else i++;
    }
    return false;
  };

  while (i < n) {
    const c = code[i]!;
    if (isLineBreak(c)) {
      sawLineBreak = true;
      i++;
      continue;
    }
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === '/' && code[i + 1] === '/') {
      while (i < n && !isLineBreak(code[i]!)) i++;
      continue;
    }
    if (c === '/' && code[i + 1] === '*') {
      const end = code.indexOf('*/', i + 2);
      const stop = end === -1 ? n : end + 2;
      if (/[\n\r\u2028\u2029]/u.test(code.slice(i, stop))) sawLineBreak = true;
      i = stop;
      continue;
    }
    const start = i;
    // A line break after a value, before a word or literal, may end the statement (ASI).
    if (sawLineBreak && prev === VALUE && (isWordChar(c) || c === '"' || c === "'" || c === '`')) {
      endExpressions();
      headRun = 0;
    }
    sawLineBreak = false;
    const wasWord = lastWasWord;
    lastWasWord = false;
    let prefix = false;
    let keepsLabels = false;
    let keepsHead = false;

    if (isWordChar(c)) {
      while (i < n && isWordChar(code[i]!)) i++;
      const word = code.slice(start, i);
      lastWasWord = true;
      keepsLabels = true;
      if (prev === DOT) {
        prev = VALUE;
      } else {
        if (DECLARATIONS.has(word)) {
          endExpressions();
          // `case 1: case 2:` is a list, not labels.
          keepsLabels = false;
        }
        if (prev === OPERATOR && PREFIX_KEYWORDS.has(word)) prefix = true;
        if (HEAD_KEYWORDS.has(word)) {
          headNext = true;
          keepsHead = true;
        } else if ((word === 'else' || word === 'do') && nextNonSpace(i) !== '{') {
          headRun++;
        }
        prev = OPERATOR_KEYWORDS.has(word) ? OPERATOR : VALUE;
      }
    } else if (c === '"' || c === "'") {
      i++;
      while (i < n && code[i] !== c && !isLineBreak(code[i]!)) i += code[i] === '\\' ? 2 : 1;
      i++;
      prev = VALUE;
    } else if (c === '`') {
      i++;
      if (scanTemplate()) stack.push(SUBSTITUTION);
    } else if (c === '/' && prev === OPERATOR) {
      // A regular expression literal: its brackets are not nesting.
      let j = i + 1;
      let inClass = false;
      while (j < n && !isLineBreak(code[j]!) && (inClass || code[j] !== '/')) {
        if (code[j] === '\\') j++;
        else if (code[j] === '[') inClass = true;
        else if (code[j] === ']') inClass = false;
        j++;
      }
      i = j + 1;
      while (i < n && isWordChar(code[i]!)) i++;
      prev = VALUE;
    } else if (c === '(' || c === '[' || c === '{') {
      i++;
      stack.push(c === '(' && headNext ? HEADER : BRACKET);
      if (c === '{') headRun = 0;
      prev = OPERATOR;
    } else if (c === ')' || c === ']' || c === '}') {
      i++;
      endExpressions();
      const closed = stack.pop();
      prev = VALUE;
      if (c === '}') headRun = 0;
      if (closed === HEADER && nextNonSpace(i) !== '{') headRun++;
      if (closed === SUBSTITUTION && scanTemplate()) stack.push(SUBSTITUTION);
    } else if (c === ',' || c === ';') {
      i++;
      endExpressions();
      if (c === ';') headRun = 0;
      prev = OPERATOR;
    } else if (c === '.' && code[i + 1] !== '.' && !/\d/u.test(code[i + 1] ?? '')) {
      i++;
      prev = DOT;
    } else {
      const operator = OPERATORS.find((op) => code.startsWith(op, i)) ?? c;
      i += operator.length;
      if (prev === OPERATOR && PREFIX.has(operator)) prefix = true;
      prev = OPERATOR;
      if (operator === '=>') {
        if (nextNonSpace(i) !== '{') stack.push(EXPRESSION);
      } else if (operator === '?') {
        // Not TypeScript's optional marker (`a?: T`, `(a?)`, `a?,`, `a?=`).
        if (!':),='.includes(nextNonSpace(i) || ':')) stack.push(CONDITIONAL);
      } else if (operator === ':') {
        if (stack[stack.length - 1] === CONDITIONAL) stack.pop();
        else if (wasWord) {
          labelRun++;
          keepsLabels = true;
        }
      } else if (ASSIGNMENTS.has(operator)) {
        stack.push(EXPRESSION);
      } else if (operator === '?.') {
        prev = DOT;
      }
    }
    prefixRun = prefix ? prefixRun + 1 : 0;
    if (!keepsLabels) labelRun = 0;
    if (!keepsHead) headNext = false;
    if (deeper()) return at(code, start);
  }
  return undefined;
}

/** Line and column (1-based, UTF-16) of offset `index`. */
function at(code: string, index: number): DeepNesting {
  const lines = code.slice(0, index).split(/\r\n|[\n\r\u2028\u2029]/u);
  return { line: lines.length, column: (lines[lines.length - 1] ?? '').length + 1 };
}
