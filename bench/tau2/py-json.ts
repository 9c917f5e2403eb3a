// Python's text forms of the retail values: `json.dumps` (default separators, ASCII
// escapes, optionally sorted keys), `str()` of a float and `round(x, 2)`. Every number in
// the retail data model is a float, so an integral one prints as `5.0`, as pydantic's
// model_dump hands it to json.dumps.
import { floatRepr } from '../bfcl/py-value.ts';

/** `repr()` / `str()` of a Python float. */
export function pyFloat(x: number): string {
  if (Object.is(x, -0)) return '-0.0';
  const size = Math.abs(x);
  // Fast path: in this range both languages print the same shortest digits without an exponent.
  if (size >= 1e-4 && size < 1e16) return Number.isInteger(x) ? `${x}.0` : `${x}`;
  const text = floatRepr(x);
  return /^-?\d+$/.test(text) ? `${text}.0` : text;
}

/** A JSON string literal as json.dumps writes it with ensure_ascii (DEL and non-ASCII as \uXXXX). */
const PLAIN = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

function pyString(s: string): string {
  if (PLAIN.test(s)) return `"${s}"`;
  return JSON.stringify(s).replace(
    /[^\x20-\x7e]/g,
    (ch) => `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}

export interface DumpOptions {
  /** `sort_keys=True`. */
  readonly sortKeys?: boolean;
  /**
   * The key order of an object found under `parentKey` (a JS object lists integer-like keys
   * first, in numeric order, where Python's dict keeps insertion order).
   */
  readonly orderKeys?: (parentKey: string | undefined, keys: string[]) => string[];
}

/** `json.dumps(value)` (`sort_keys` as asked), numbers as floats. */
export function pyJsonDumps(value: unknown, options: DumpOptions = {}): string {
  const out: string[] = [];
  write(value, options, undefined, out);
  return out.join('');
}

/** Appends the text of `value` to `out` (one array of pieces: large databases print fast). */
function write(value: unknown, options: DumpOptions, parentKey: string | undefined, out: string[]): void {
  if (value === null || value === undefined) out.push('null');
  else if (typeof value === 'string') out.push(pyString(value));
  else if (typeof value === 'number') out.push(pyFloat(value));
  else if (typeof value === 'boolean') out.push(value ? 'true' : 'false');
  else if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(', ');
      write(value[i], options, undefined, out);
    }
    out.push(']');
  } else if (typeof value === 'object') {
    let keys = Object.keys(value);
    // Python sorts str keys by code point; JS's default sort is by UTF-16 unit (same for BMP keys).
    if (options.sortKeys === true) keys.sort();
    else if (options.orderKeys !== undefined) keys = options.orderKeys(parentKey, keys);
    const record = value as Record<string, unknown>;
    out.push('{');
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      if (i > 0) out.push(', ');
      out.push(pyString(k), ': ');
      write(record[k], options, k, out);
    }
    out.push('}');
  } else throw new TypeError(`pyJsonDumps: cannot serialize a ${typeof value}`);
}

/**
 * Python's `round(x, 2)` on a float: the nearest multiple of 0.01 to the exact binary value,
 * ties (exact only for odd multiples of 1/8) to the even hundredth.
 */
export function pyRound2(x: number): number {
  if (!Number.isFinite(x)) return x;
  const eighths = x * 8;
  if (Number.isInteger(eighths) && eighths % 2 !== 0) {
    const hundredths = x * 100; // k * 12.5 exactly
    const down = Math.floor(hundredths);
    const n = down % 2 === 0 ? down : down + 1;
    return n / 100;
  }
  // toFixed rounds the exact binary value (ties cannot occur here); parsing rounds correctly.
  return Number(x.toFixed(2));
}
