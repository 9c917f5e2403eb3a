// The value model the BFCL environments work in, and Python's text forms of it: `str()`
// / `repr()` and `json.dumps` with its default separators. A Python dict whose keys may
// be ints is a Map (so `1` and `"1"` stay apart, and insertion order is kept); other
// dicts are plain objects. Floats and ints share JS numbers: an integral float prints
// as an int here (Python would print `10.0`); the fidelity test accounts for that.

/** A value whose repr is fixed text (mpmath's mpf, Decimal), which json.dumps refuses. */
export class PyOpaque {
  readonly repr: string;
  readonly json: number;
  constructor(repr: string, json: number) {
    this.repr = repr;
    this.json = json;
  }
}

export type PyValue =
  | null
  | undefined
  | boolean
  | number
  | string
  | PyOpaque
  | PyValue[]
  | Set<PyValue>
  | Map<string | number, PyValue>
  | { [key: string]: PyValue };

/** An exception raised inside an environment method; `message` is Python's `str(e)`. */
export class PyError extends Error {}

/** `KeyError(key)`: its str() is the key's repr. */
export const keyError = (key: string | number): PyError => new PyError(pyRepr(key));

export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return x.toFixed(0);
  const [mantissa = '', expText = '0'] = x.toExponential().split('e');
  const exp = Number(expText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  let body: string;
  if (exp >= -4 && exp < 16) {
    if (exp >= 0) {
      const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
      const frac = digits.slice(exp + 1);
      body = `${intPart}.${frac === '' ? '0' : frac}`;
    } else {
      body = `0.${'0'.repeat(-exp - 1)}${digits}`;
    }
  } else {
    const frac = digits.slice(1);
    const e = Math.abs(exp).toString().padStart(2, '0');
    body = `${digits[0]}${frac === '' ? '' : `.${frac}`}e${exp < 0 ? '-' : '+'}${e}`;
  }
  return negative ? `-${body}` : body;
}

const numberText = (x: number): string =>
  Number.isInteger(x) && Math.abs(x) >= 1e16 ? BigInt(x).toString() : floatRepr(x);

/** Python's repr of a str. */
export function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}

const entriesOf = (v: Map<string | number, PyValue> | { [key: string]: PyValue }): [string | number, PyValue][] =>
  v instanceof Map ? [...v.entries()] : Object.entries(v);

/** Python's repr (what `str()` gives for anything but a str). */
export function pyRepr(v: PyValue): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return numberText(v);
  if (typeof v === 'string') return strRepr(v);
  if (v instanceof PyOpaque) return v.repr;
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (v instanceof Set) return v.size === 0 ? 'set()' : `{${[...v].map(pyRepr).join(', ')}}`;
  return `{${entriesOf(v)
    .map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`)
    .join(', ')}}`;
}

class NotSerializable extends Error {}

const jsonString = (s: string): string => {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i] ?? '';
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
};

/** `json.dumps(v)` with Python's defaults (`", "`, `": "`, ensure_ascii). */
export function jsonDumps(v: PyValue): string {
  if (v === null || v === undefined) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
    return numberText(v);
  }
  if (typeof v === 'string') return jsonString(v);
  if (v instanceof PyOpaque || v instanceof Set) throw new NotSerializable();
  if (Array.isArray(v)) return `[${v.map(jsonDumps).join(', ')}]`;
  return `{${entriesOf(v)
    .map(([k, x]) => `${jsonString(typeof k === 'number' ? numberText(k) : k)}: ${jsonDumps(x)}`)
    .join(', ')}}`;
}

const isDict = (v: PyValue): v is Map<string | number, PyValue> | { [key: string]: PyValue } =>
  v instanceof Map ||
  (typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Set) && !(v instanceof PyOpaque));

/** How upstream turns a method's return value into the result string. */
export function resultText(v: PyValue): string {
  if (typeof v === 'string') return v;
  if (isDict(v)) {
    try {
      return jsonDumps(v);
    } catch (e) {
      if (e instanceof NotSerializable) return pyRepr(v);
      throw e;
    }
  }
  return pyRepr(v);
}

/** The value as JSON for a tool result: Maps become objects, sets arrays, opaque values numbers. */
export function toJson(v: PyValue): unknown {
  if (v === undefined) return null;
  if (v instanceof PyOpaque) return v.json;
  if (Array.isArray(v)) return v.map(toJson);
  if (v instanceof Set) return [...v].map(toJson);
  if (v instanceof Map) return Object.fromEntries([...v.entries()].map(([k, x]) => [String(k), toJson(x)]));
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toJson(x)]));
  return v;
}

/** Python `==` over this value model (dict order ignored, `"1" != 1`). */
export function pyEqual(a: PyValue, b: PyValue): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a === b) return true;
  if (typeof a === 'boolean' || typeof b === 'boolean') {
    const na = typeof a === 'boolean' ? Number(a) : a;
    const nb = typeof b === 'boolean' ? Number(b) : b;
    return typeof na === 'number' && typeof nb === 'number' && na === nb;
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof PyOpaque || b instanceof PyOpaque)
    return a instanceof PyOpaque && b instanceof PyOpaque && a.repr === b.repr;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => pyEqual(x, b[i]));
  }
  if (a instanceof Set || b instanceof Set) {
    if (!(a instanceof Set) || !(b instanceof Set) || a.size !== b.size) return false;
    return [...a].every((x) => [...b].some((y) => pyEqual(x, y)));
  }
  const ea = entriesOf(a);
  const eb = new Map(entriesOf(b));
  if (ea.length !== eb.size) return false;
  return ea.every(([k, x]) => eb.has(k) && pyEqual(x, eb.get(k)));
}

/** A deep copy (Python's deepcopy of the loaded cfg). */
export function deepCopy<T>(v: T): T {
  return structuredClone(v);
}
