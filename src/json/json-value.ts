// Lossless JSON snapshots. Tool arguments and values cross trust boundaries (model,
// sandbox, journal), so we copy them into plain frozen JSON and refuse anything that
// would not survive a JSON round trip unchanged.
import { MalformedJson } from './malformed-json.ts';

export type JsonPrimitive = null | boolean | number | string;
export type JsonValue = JsonPrimitive | readonly JsonValue[] | { readonly [key: string]: JsonValue };
/** Mutable form, for values a caller builds. */
export type JsonMutable = JsonPrimitive | JsonMutable[] | { [key: string]: JsonMutable };

/** Thrown by {@link snapshotJson} with the path of the first value that is not lossless JSON. */
export class NotJsonError extends Error {
  override readonly name = 'NotJsonError';
  readonly path: string;
  readonly reason: string;
  constructor(path: string, reason: string) {
    super(`${path}: ${reason}`);
    this.path = path;
    this.reason = reason;
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined is not JSON';
  if (typeof value === 'function') return 'a function is not JSON';
  if (typeof value === 'bigint') return 'a BigInt is not JSON';
  if (typeof value === 'symbol') return 'a Symbol is not JSON';
  if (typeof value === 'number') return `${String(value)} is not a finite JSON number`;
  if (value instanceof Date) return 'a Date is not JSON (send an ISO string)';
  if (value instanceof MalformedJson) return value.reason;
  return 'only plain objects and arrays are JSON (class instance or exotic object)';
}

const NATIVE_OBJECT = Function.prototype.toString.call(Object);

/**
 * This realm's `Object.prototype`, or another realm's: JSON that Node's own `fetch`
 * parsed is plain data from Node's realm, which is not the realm of code run in a `vm`
 * context (a jest test, for one). Recognised by shape, not by a name one could fake:
 * a null-prototype object whose own `constructor` is a native `Object` function.
 */
function isObjectPrototype(proto: object): boolean {
  if (proto === Object.prototype) return true;
  if (Object.getPrototypeOf(proto) !== null) return false;
  const ctor: unknown = Object.getOwnPropertyDescriptor(proto, 'constructor')?.value;
  if (typeof ctor !== 'function') return false;
  try {
    return (
      Function.prototype.toString.call(ctor) === NATIVE_OBJECT &&
      Object.getOwnPropertyDescriptor(ctor, 'prototype')?.value === proto
    );
  } catch {
    return false;
  }
}

/**
 * The deepest JSON a value may nest (the sandbox refuses deeper values on its side too).
 * Deep values are model input (direct-call arguments, MCP results, a sandbox's messages):
 * without a bound, copying a few MiB of `[[[[…` costs the host hundreds of MiB.
 */
export const MAX_JSON_DEPTH = 256;

const keyPath = (base: string, key: string): string =>
  /^[A-Za-z_$][\w$]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;

/**
 * Copies `value` into new, deep-frozen plain JSON. Walks with an explicit stack, so
 * depth is bounded by memory, not the call stack. Throws {@link NotJsonError} for
 * functions, undefined (in arrays or as a property), BigInt, Symbols, NaN/Infinity,
 * Dates, class instances, Proxies that are not plain, accessors, sparse arrays,
 * symbol keys, cycles and nesting deeper than {@link MAX_JSON_DEPTH} levels. Keys such
 * as `__proto__` are kept as own data properties.
 */
export function snapshotJson(value: unknown, rootPath = '$'): JsonValue {
  const copyScalar = (v: unknown, path: string): JsonPrimitive | undefined => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new NotJsonError(path, describe(v));
      return v;
    }
    if (typeof v === 'object') return undefined;
    throw new NotJsonError(path, describe(v));
  };
  const rootScalar = copyScalar(value, rootPath);
  if (rootScalar !== undefined) return rootScalar;

  type Frame = { source: object; target: JsonMutable[] | { [k: string]: JsonMutable }; path: string; depth: number };
  const onPath = new Set<object>();
  const makeTarget = (source: object, path: string): Frame['target'] => {
    if (Array.isArray(source)) return [];
    const proto = Object.getPrototypeOf(source) as object | null;
    if (proto !== null && !isObjectPrototype(proto)) throw new NotJsonError(path, describe(source));
    return {};
  };
  const root = makeTarget(value as object, rootPath);
  // Each stack entry is either a frame to expand or a marker that its subtree is done.
  const stack: Array<Frame | { done: object }> = [{ source: value as object, target: root, path: rootPath, depth: 1 }];
  const done: Array<Frame['target']> = [];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    if ('done' in entry) {
      onPath.delete(entry.done);
      continue;
    }
    const { source, target, path, depth } = entry;
    if (onPath.has(source)) throw new NotJsonError(path, 'cycle: the value contains itself');
    onPath.add(source);
    stack.push({ done: source });
    done.push(target);
    const keys = Reflect.ownKeys(source);
    const isArray = Array.isArray(target);
    if (isArray) {
      const length = (source as unknown[]).length;
      if (keys.length !== length + 1)
        throw new NotJsonError(path, 'sparse arrays and extra array properties are not JSON');
    }
    for (const key of keys) {
      if (typeof key === 'symbol') throw new NotJsonError(path, 'symbol-keyed properties are not JSON');
      if (isArray && key === 'length') continue;
      const descriptor = Object.getOwnPropertyDescriptor(source, key);
      const childPath = isArray ? `${path}[${key}]` : keyPath(path, key);
      if (descriptor === undefined) continue;
      if (!('value' in descriptor))
        throw new NotJsonError(childPath, 'accessor properties (getters/setters) are not JSON');
      if (!descriptor.enumerable) throw new NotJsonError(childPath, 'non-enumerable properties are not JSON');
      const child: unknown = descriptor.value;
      const scalar = copyScalar(child, childPath);
      let copy: JsonMutable;
      if (scalar !== undefined) copy = scalar;
      else {
        if (depth >= MAX_JSON_DEPTH)
          throw new NotJsonError(childPath, `nesting deeper than ${MAX_JSON_DEPTH} levels is not supported`);
        const childTarget = makeTarget(child as object, childPath);
        stack.push({ source: child as object, target: childTarget, path: childPath, depth: depth + 1 });
        copy = childTarget;
      }
      if (isArray) (target as JsonMutable[]).push(copy);
      else Object.defineProperty(target, key, { value: copy, enumerable: true, writable: true, configurable: true });
    }
  }
  for (const t of done) Object.freeze(t);
  return root;
}

/** Like {@link snapshotJson} but returns the error instead of throwing. */
export function trySnapshotJson(
  value: unknown,
  rootPath = '$',
): { ok: true; value: JsonValue } | { ok: false; error: NotJsonError } {
  try {
    return { ok: true, value: snapshotJson(value, rootPath) };
  } catch (error) {
    if (error instanceof NotJsonError) return { ok: false, error };
    // A Proxy trap or exotic object threw while we inspected it: not JSON either.
    return { ok: false, error: new NotJsonError(rootPath, `could not be read as JSON (${errorText(error)})`) };
  }
}

function errorText(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'unreadable error';
  }
}

/**
 * What JSON.parse just returned, frozen in place as its own snapshot: equal to what
 * {@link snapshotJson} would copy it to, without the copy. Parsed JSON is already plain
 * (own enumerable data properties, dense arrays, no cycles), so only two things
 * snapshotJson refuses can occur: nesting deeper than {@link MAX_JSON_DEPTH} and a
 * number too large to be finite (`1e999`). For those it returns undefined and the
 * caller takes the general path, which says why. The caller must be the value's only
 * holder (it is frozen, not copied).
 */
export function freezeParsedJson(parsed: unknown): JsonValue | undefined {
  if (typeof parsed === 'number') return Number.isFinite(parsed) ? parsed : undefined;
  if (typeof parsed !== 'object' || parsed === null) return parsed as JsonValue;
  const stack: Array<{ value: object; depth: number }> = [{ value: parsed, depth: 1 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    Object.freeze(value);
    const children: unknown[] = Array.isArray(value) ? value : Object.values(value);
    for (const child of children) {
      if (typeof child === 'number') {
        if (!Number.isFinite(child)) return undefined;
      } else if (typeof child === 'object' && child !== null) {
        if (depth >= MAX_JSON_DEPTH) return undefined;
        stack.push({ value: child, depth: depth + 1 });
      }
    }
  }
  return parsed as JsonValue;
}

/** Deep-freezes plain data in place (explicit stack) and returns it. */
export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object' || seen.has(v)) continue;
    seen.add(v);
    Object.freeze(v);
    for (const key of Object.keys(v)) stack.push((v as Record<string, unknown>)[key]);
  }
  return value;
}
