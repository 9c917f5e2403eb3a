// The retail `calculate` tool's arithmetic: Python 3 semantics for the characters it
// accepts (digits, `+ - * / ( ) .` and spaces): ints stay exact (bigint) until a float
// or a true division meets them, `**` and `//` exist, and the answer is
// `str(round(float(value), 2))`. Syntax errors carry one fixed text.
import { pyFloat, pyRound2 } from './py-json.ts';
import { RetailError } from './retail-error.ts';

type Num = { readonly int: bigint } | { readonly float: number };

const SYNTAX = 'invalid syntax (<string>, line 1)';
/** Python's parser refuses deeper parentheses; this one also bounds chains of `-` and `**` (its stack stays small). */
export const MAX_NESTING = 200;
/** Beyond this many bits an int cannot become a float; computing it is refused early. */
const MAX_INT_BITS = 4096;

class PyArithmeticError extends Error {}

const toFloat = (n: Num): number => {
  if ('float' in n) return n.float;
  const f = Number(n.int);
  if (!Number.isFinite(f)) throw new PyArithmeticError('int too large to convert to float');
  return f;
};

const floorDiv = (a: bigint, b: bigint): bigint => {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
};

function binary(op: string, a: Num, b: Num): Num {
  if ('int' in a && 'int' in b) {
    const x = a.int;
    const y = b.int;
    if (op === '+') return { int: x + y };
    if (op === '-') return { int: x - y };
    if (op === '*') return { int: x * y };
    if (op === '/') {
      if (y === 0n) throw new PyArithmeticError('division by zero');
      return { float: Number(x) / Number(y) };
    }
    if (op === '//') {
      if (y === 0n) throw new PyArithmeticError('integer division or modulo by zero');
      return { int: floorDiv(x, y) };
    }
    // '**'
    if (y < 0n) {
      if (x === 0n) throw new PyArithmeticError('0.0 cannot be raised to a negative power');
      return { float: toFloat(a) ** Number(y) };
    }
    const bits = x < 0n ? (-x).toString(2).length : x.toString(2).length;
    if (x !== 0n && x !== 1n && x !== -1n && Number(y) * (bits - 1) > MAX_INT_BITS)
      throw new PyArithmeticError('int too large to convert to float');
    return { int: x ** y };
  }
  const x = toFloat(a);
  const y = toFloat(b);
  if (op === '+') return { float: x + y };
  if (op === '-') return { float: x - y };
  if (op === '*') return { float: x * y };
  if (op === '/') {
    if (y === 0) throw new PyArithmeticError('float division by zero');
    return { float: x / y };
  }
  if (op === '//') {
    if (y === 0) throw new PyArithmeticError('float floor division by zero');
    return { float: Math.floor(x / y) };
  }
  if (x === 0 && y < 0) throw new PyArithmeticError('0.0 cannot be raised to a negative power');
  if (x < 0 && !Number.isInteger(y)) throw new PyArithmeticError('complex results are not supported here');
  const r = x ** y;
  if (!Number.isFinite(r)) throw new PyArithmeticError("(34, 'Numerical result out of range')");
  return { float: r };
}

/** Tokens: numbers, operators (`**` and `//` as one), parentheses. */
function tokenize(expression: string): string[] {
  const tokens: string[] = [];
  const re = /\s*(\d+\.?\d*|\.\d+|\*\*|\/\/|[-+*/()])/y;
  let at = 0;
  while (at < expression.length) {
    if (/^\s*$/.test(expression.slice(at))) break;
    re.lastIndex = at;
    const m = re.exec(expression);
    if (m === null) throw new SyntaxError(SYNTAX);
    tokens.push(m[1] ?? '');
    at = re.lastIndex;
  }
  return tokens;
}

/** The expression as a thunk: Python compiles the whole text before it evaluates any of it. */
function parse(tokens: readonly string[]): () => Num {
  let i = 0;
  let depth = 0;
  const peek = (): string | undefined => tokens[i];
  const atom = (): (() => Num) => {
    const t = tokens[i++];
    if (t === undefined) throw new SyntaxError(SYNTAX);
    if (t === '(') {
      if (++depth > MAX_NESTING) throw new SyntaxError('too many nested parentheses');
      const v = sum();
      depth--;
      if (tokens[i++] !== ')') throw new SyntaxError(SYNTAX);
      return v;
    }
    if (/^\d+$/.test(t)) {
      if (/^0+[1-9]/.test(t))
        throw new SyntaxError(
          'leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)',
        );
      const n = BigInt(t);
      return () => ({ int: n });
    }
    if (/^(\d+\.\d*|\.\d+)$/.test(t)) {
      const f = Number(t);
      return () => ({ float: f });
    }
    throw new SyntaxError(SYNTAX);
  };
  // Python: unary binds looser than ** on its left (-2**2 == -4), tighter on its right.
  const power = (): (() => Num) => {
    const base = atom();
    if (peek() === '**') {
      i++;
      if (++depth > MAX_NESTING) throw new SyntaxError('too many nested operators');
      const exponent = unary();
      depth--;
      return () => binary('**', base(), exponent());
    }
    return base;
  };
  const unary = (): (() => Num) => {
    const t = peek();
    if (t === '-' || t === '+') {
      i++;
      if (++depth > MAX_NESTING) throw new SyntaxError('too many nested operators');
      const operand = unary();
      depth--;
      if (t === '+') return operand;
      return () => {
        const v = operand();
        return 'int' in v ? { int: -v.int } : { float: -v.float };
      };
    }
    return power();
  };
  /** A left-associative chain (`a * b / c`, `a + b - c`), evaluated in a loop however long it is. */
  const chain = (operand: () => () => Num, ops: readonly string[]): (() => Num) => {
    const first = operand();
    const rest: [string, () => Num][] = [];
    for (let t = peek(); t !== undefined && ops.includes(t); t = peek()) {
      i++;
      rest.push([t, operand()]);
    }
    if (rest.length === 0) return first;
    return () => rest.reduce((acc, [op, right]) => binary(op, acc, right()), first());
  };
  const product = (): (() => Num) => chain(unary, ['*', '/', '//']);
  const sum = (): (() => Num) => chain(product, ['+', '-']);
  const value = sum();
  if (i !== tokens.length) throw new SyntaxError(SYNTAX);
  return value;
}

/** `calculate(expression)`: the result text, or an Error whose message is upstream's. */
export function calculate(expression: string): string {
  for (const ch of expression)
    if (!'0123456789+-*/(). '.includes(ch)) throw new RetailError('Invalid characters in expression');
  try {
    return pyFloat(pyRound2(toFloat(parse(tokenize(expression))())));
  } catch (e) {
    if (e instanceof PyArithmeticError || e instanceof SyntaxError) throw new RetailError(e.message);
    throw e;
  }
}
