// Built-ins captured before the program runs: a program that patches them only breaks
// its own run (and the host re-checks every budget anyway).
export const ObjectCtor = Object;
export const create = ObjectCtor.create;
export const defineProperty = ObjectCtor.defineProperty;
export const freeze = ObjectCtor.freeze;
export const getOwnPropertyDescriptor = ObjectCtor.getOwnPropertyDescriptor;
export const getPrototypeOf = ObjectCtor.getPrototypeOf;
export const setPrototypeOf = ObjectCtor.setPrototypeOf;
export const objectIs = ObjectCtor.is;
export const objectKeys = ObjectCtor.keys;
export const getOwnPropertyNames = ObjectCtor.getOwnPropertyNames;
export const getOwnPropertySymbols = ObjectCtor.getOwnPropertySymbols;
export const ObjectProto = ObjectCtor.prototype;
export const isEnumerableOwn = ObjectProto.propertyIsEnumerable;
export const hasOwn = ObjectProto.hasOwnProperty;
export const apply = Reflect.apply;
export const construct = Reflect.construct;
/** The realm's own eval: called through `apply`, an indirect eval (global scope), of our own URL library only (url.ts). */
// biome-ignore lint/security/noGlobalEval: the guest realm's eval, kept before any program can replace it
export const globalEval = eval;
export const stringify = JSON.stringify;
export const parse = JSON.parse;
export const PromiseCtor = Promise;
export const promiseThen = PromiseCtor.prototype.then;
export const isArray = Array.isArray;
export const isFiniteNumber = Number.isFinite;
export const NumberCtor = Number;
export const charCodeAt = String.prototype.charCodeAt;
export const stringSlice = String.prototype.slice;
export const stringIndexOf = String.prototype.indexOf;
export const symbolToString = Symbol.prototype.toString;
export const ErrorCtor = Error;
export const ErrorProto = ErrorCtor.prototype;
export const RangeErrorCtor = RangeError;
export const TypeErrorCtor = TypeError;
// Probed with no frames captured (the first capture in a fresh isolate costs ~30 us); the
// getter is the same, and the limit is put back before any program runs.
function probeStackGetter(): unknown {
  const limited = ErrorCtor as { stackTraceLimit?: unknown };
  const limit = limited.stackTraceLimit;
  if (typeof limit !== 'number') return getOwnPropertyDescriptor(new ErrorCtor('probe'), 'stack')?.get;
  limited.stackTraceLimit = 0;
  const getter = getOwnPropertyDescriptor(new ErrorCtor('probe'), 'stack')?.get;
  limited.stackTraceLimit = limit;
  return getter;
}
export const stackGetter = probeStackGetter() as (() => unknown) | undefined;
export const ArrayBufferCtor = ArrayBuffer;
export const arrayBufferProto = ArrayBufferCtor.prototype;
export const MapProto = Map.prototype;
export const SetProto = Set.prototype;
export const mapForEach = MapProto.forEach;
export const setForEach = SetProto.forEach;
export const mapSize = getOwnPropertyDescriptor(MapProto, 'size')?.get;
export const setSize = getOwnPropertyDescriptor(SetProto, 'size')?.get;

/** Own data property `key` of `object`, never an inherited or polluted one. */
export function own(object: object, key: PropertyKey): unknown {
  return apply(hasOwn, object, [key]) ? (object as Record<PropertyKey, unknown>)[key] : undefined;
}

export function cut(text: string, max: number): string {
  return text.length > max ? apply(stringSlice, text, [0, max]) : text;
}

export interface Utf8Fit {
  readonly bytes: number;
  readonly end: number;
  readonly whole: boolean;
}

/** UTF-8 length of text, and the longest prefix of text that fits in budget bytes. */
export function utf8Prefix(text: string, budget: number): Utf8Fit {
  let bytes = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = apply(charCodeAt, text, [i]);
    let size = 3;
    let width = 1;
    if (c < 0x80) size = 1;
    else if (c < 0x800) size = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < length) {
      const d = apply(charCodeAt, text, [i + 1]);
      if (d >= 0xdc00 && d <= 0xdfff) {
        size = 4;
        width = 2;
      }
    }
    if (bytes + size > budget) return { __proto__: null, bytes, end: i, whole: false } as Utf8Fit;
    bytes += size;
    i += width - 1;
  }
  return { __proto__: null, bytes, end: length, whole: true } as Utf8Fit;
}
