// Values between a Python program (Monty) and the host, as JSON. Monty hands Python
// values over as JS values: dict → Map, list → Array, tuple → Array marked `__tuple__`,
// set → Set, int beyond 2^53 → BigInt, bytes → Buffer, float NaN/inf → NaN/Infinity.
// Only what JSON can say crosses: a dict with str keys, list or tuple (as a list), str,
// int, float (finite), bool and None; anything else is refused with the path where it sits.
import { isMap, isSet, isUint8Array } from 'node:util/types';
import type { JsonValue } from '../types.ts';

/** Nesting the host reads a Python value to (and hands one to Python at), in either direction. */
export const MAX_PYTHON_VALUE_DEPTH = 256;

/** A value that cannot cross as JSON: what it is and where (`result["a"][0]`). */
export class NotJsonError extends Error {
  readonly path: string;
  readonly reason: string;
  constructor(path: string, reason: string) {
    super(`${reason} at ${path}`);
    this.path = path;
    this.reason = reason;
  }
}

function describe(value: unknown): string {
  if (isSet(value)) return 'a set (make it a list: sorted(s) or list(s))';
  if (isUint8Array(value)) return 'bytes (decode them to a str)';
  if (typeof value === 'bigint') return `an int beyond ±2**53 (${String(value).slice(0, 30)}; send it as a str)`;
  if (typeof value === 'number') return `the float ${String(value)} (JSON has no NaN or infinity)`;
  return `a value of type ${typeof value}`;
}

/**
 * The JSON value of a Python value, or a NotJsonError naming the first thing JSON cannot
 * say. `path` is where the value sits (`result`, `list_orders(customer_id=…)`).
 */
export function pythonToJson(value: unknown, path: string, depth = 0): JsonValue {
  if (depth > MAX_PYTHON_VALUE_DEPTH)
    throw new NotJsonError(path, `nesting deeper than ${MAX_PYTHON_VALUE_DEPTH} levels`);
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new NotJsonError(path, describe(value));
    return value;
  }
  if (typeof value === 'bigint') {
    if (value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)) return Number(value);
    throw new NotJsonError(path, describe(value));
  }
  if (Array.isArray(value)) return value.map((item, i) => pythonToJson(item, `${path}[${i}]`, depth + 1));
  // Monty's values come from the main realm: checked without instanceof.
  if (isMap(value)) {
    const object: { [key: string]: JsonValue } = {};
    for (const [key, item] of value as Map<unknown, unknown>) {
      if (typeof key !== 'string') {
        throw new NotJsonError(
          path,
          `a dict key that is not a str (${typeof key === 'object' ? 'a tuple' : String(key)})`,
        );
      }
      // Defined, not assigned: a key named "__proto__" stays an own key.
      Object.defineProperty(object, key, {
        value: pythonToJson(item, `${path}[${JSON.stringify(key)}]`, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return object;
  }
  throw new NotJsonError(path, describe(value));
}

/** How deep a parsed JSON value nests (stops counting past `limit`). */
export function jsonDepth(value: unknown, limit: number, depth = 0): number {
  if (depth > limit || value === null || typeof value !== 'object') return depth;
  let deepest = depth;
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    deepest = Math.max(deepest, jsonDepth(item, limit, depth + 1));
    if (deepest > limit) break;
  }
  return deepest;
}
