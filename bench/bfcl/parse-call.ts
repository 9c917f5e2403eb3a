// Ground-truth calls in Python syntax: `name(arg, key=value, …)` with literal arguments
// (str with escapes, int, float, True/False/None, lists, tuples, dicts).
import type { PyValue } from './py-value.ts';

export interface ParsedCall {
  readonly name: string;
  readonly positional: readonly PyValue[];
  readonly keywords: Readonly<Record<string, PyValue>>;
}

class Parser {
  private i = 0;
  private readonly src: string;
  constructor(src: string) {
    this.src = src;
  }

  fail(what: string): never {
    throw new SyntaxError(`${what} at ${this.i} in ${JSON.stringify(this.src)}`);
  }

  ws(): void {
    while (this.i < this.src.length && /\s/.test(this.src[this.i] ?? '')) this.i++;
  }

  peek(): string {
    this.ws();
    return this.src[this.i] ?? '';
  }

  eat(ch: string): void {
    if (this.peek() !== ch) this.fail(`expected ${ch}`);
    this.i++;
  }

  ident(): string {
    this.ws();
    const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(this.src.slice(this.i));
    if (m === null) this.fail('expected a name');
    this.i += m[0].length;
    return m[0];
  }

  call(): ParsedCall {
    const name = this.ident();
    this.eat('(');
    const positional: PyValue[] = [];
    const keywords: Record<string, PyValue> = {};
    while (this.peek() !== ')') {
      const save = this.i;
      const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)/.exec(this.src.slice(this.i));
      if (m?.[1] !== undefined) {
        this.i += m[0].length;
        keywords[m[1]] = this.value();
      } else {
        this.i = save;
        if (Object.keys(keywords).length > 0) this.fail('positional argument after keyword');
        positional.push(this.value());
      }
      if (this.peek() === ',') this.i++;
      else if (this.peek() !== ')') this.fail('expected , or )');
    }
    this.eat(')');
    if (this.peek() !== '') this.fail('trailing text');
    return { name: name.split('.').pop() ?? name, positional, keywords };
  }

  value(): PyValue {
    const c = this.peek();
    if (c === "'" || c === '"') return this.string();
    if (c === '[' || c === '(') {
      const close = c === '[' ? ']' : ')';
      this.i++;
      const out: PyValue[] = [];
      while (this.peek() !== close) {
        out.push(this.value());
        if (this.peek() === ',') this.i++;
        else if (this.peek() !== close) this.fail(`expected , or ${close}`);
      }
      this.i++;
      return out;
    }
    if (c === '{') {
      this.i++;
      const out: Record<string, PyValue> = {};
      while (this.peek() !== '}') {
        const key = this.value();
        this.eat(':');
        out[String(key)] = this.value();
        if (this.peek() === ',') this.i++;
        else if (this.peek() !== '}') this.fail('expected , or }');
      }
      this.i++;
      return out;
    }
    const m = /^[-+]?(?:\d[\d_]*\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)/.exec(this.src.slice(this.i));
    if (m !== null) {
      this.i += m[0].length;
      return Number(m[0].replaceAll('_', ''));
    }
    const word = this.ident();
    if (word === 'True') return true;
    if (word === 'False') return false;
    if (word === 'None') return null;
    return this.fail(`unsupported value ${word}`);
  }

  string(): string {
    const quote = this.src[this.i] ?? '';
    const triple = this.src.startsWith(quote.repeat(3), this.i);
    this.i += triple ? 3 : 1;
    let out = '';
    for (;;) {
      if (this.i >= this.src.length) this.fail('unterminated string');
      if (triple ? this.src.startsWith(quote.repeat(3), this.i) : this.src[this.i] === quote) {
        this.i += triple ? 3 : 1;
        return out;
      }
      const ch = this.src[this.i++] ?? '';
      if (ch !== '\\') {
        out += ch;
        continue;
      }
      const e = this.src[this.i++] ?? '';
      const simple: Record<string, string> = {
        n: '\n',
        t: '\t',
        r: '\r',
        '\\': '\\',
        "'": "'",
        '"': '"',
        a: '\x07',
        b: '\b',
        f: '\f',
        v: '\v',
        '0': '\0',
        '\n': '',
      };
      if (e in simple) out += simple[e];
      else if (e === 'x' || e === 'u' || e === 'U') {
        const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        const hex = this.src.slice(this.i, this.i + len);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) this.fail('bad escape');
        out += String.fromCodePoint(Number.parseInt(hex, 16));
        this.i += len;
      } else out += `\\${e}`;
    }
  }
}

/** One call string, e.g. `cd(folder='document')`. */
export function parseCall(src: string): ParsedCall {
  return new Parser(src.trim()).call();
}

/** Keyword arguments for a call, positional ones bound by the method's parameter order. */
export function bindArgs(call: ParsedCall, order: readonly string[]): Record<string, PyValue> {
  const args: Record<string, PyValue> = {};
  call.positional.forEach((v, i) => {
    const name = order[i];
    if (name === undefined) throw new SyntaxError(`${call.name}: too many positional arguments`);
    args[name] = v;
  });
  return { ...args, ...call.keywords };
}
