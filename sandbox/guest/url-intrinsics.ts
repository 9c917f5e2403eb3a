// The built-ins the URL library reads, captured when the prelude runs (before any program),
// and the helpers its rewritten text calls instead of reading them when it is evaluated on
// first use (sandbox/harden-url-library.ts). A program that replaced `Object.create`,
// `Array.prototype.push` or a global binding before its first `new URL(…)` gets the same
// URL behaviour, and none of its replacements is called by the library.
import {
  apply,
  construct,
  create,
  freeze,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  hasOwn,
  isArray,
  MapProto,
  parse,
  SetProto,
  setPrototypeOf,
  stringSlice,
  TypeErrorCtor,
} from './intrinsics.ts';
import { TYPED_ARRAY_TYPES } from './typed-array-types.ts';
import { INTRINSIC_HOLDERS, resolveHolder } from './url-holders.ts';

/**
 * What the library reads of the global scope: derived from its text when it is bundled,
 * as names only. Which holders exist and which of the keys each owns is this engine's.
 */
declare const __PTC_URL_LIBRARY_READS__: string;
interface UrlLibraryReads {
  readonly globals: readonly string[];
  readonly globalMembers: readonly string[];
  /** The property names it reads. */
  readonly keys: readonly string[];
  /** The well-known symbols it reads properties by (`iterator`). */
  readonly symbols: readonly string[];
}

/** A captured object's properties the library reads, as they were: key → Entry. */
type Captures = Record<PropertyKey, Entry | undefined>;
type Callable = (...args: unknown[]) => unknown;

const reflectGet = Reflect.get;
const ownKeys = Reflect.ownKeys;
const arrayFilter = Array.prototype.filter;
const functionBind = Function.prototype.bind;
const MapCtor = MapProto.constructor as MapConstructor;
const SetCtor = SetProto.constructor as SetConstructor;
const mapGet = MapProto.get;
const mapSet = MapProto.set;
const mapEntries = MapProto.entries;
const setAdd = SetProto.add;
const setHas = SetProto.has;
const SymbolCtor = Symbol;
const setValues = SetProto.values;
const StringProto = String.prototype;
const codePointAt = StringProto.codePointAt;
const typedArrayProto = getPrototypeOf(Uint8Array.prototype) as object;
const typedLength = getOwnPropertyDescriptor(typedArrayProto, 'length')?.get as Callable;
const hasInstance = Function.prototype[Symbol.hasInstance];
const iteratorSymbol = Symbol.iterator;
const setIteratorNext = getPrototypeOf(new SetCtor().values()).next as Callable;
const mapIteratorNext = getPrototypeOf(new MapCtor().entries()).next as Callable;
const arrayIteratorProto = getPrototypeOf([][Symbol.iterator]()) as object;
const stringIteratorProto = getPrototypeOf(''[Symbol.iterator]()) as object;
/** The built-in iterators (`list.entries()`, `text[Symbol.iterator]()`) and their own `next`. */
const ITERATOR_NEXT = new MapCtor<object, Callable>([
  [arrayIteratorProto, (arrayIteratorProto as Iterator<unknown>).next as Callable],
  [stringIteratorProto, (stringIteratorProto as Iterator<unknown>).next as Callable],
  [getPrototypeOf(new SetCtor().values()) as object, setIteratorNext],
  [getPrototypeOf(new MapCtor().entries()) as object, mapIteratorNext],
]);
const functionToString = Function.prototype.toString;
const arrayJoin = Array.prototype.join;
const StringCtor = String;
const PRIMITIVE_PROTOTYPES: Record<string, object> = {
  __proto__: null,
  string: StringProto,
  number: Number.prototype,
  boolean: Boolean.prototype,
  symbol: Symbol.prototype,
  bigint: BigInt.prototype,
} as unknown as Record<string, object>;

/** Each captured object's properties the library reads, as they were before any program. */
const captured = new MapCtor<object, Captures>();
const NOT_CAPTURED: unknown = freeze(create(null));

function isObject(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

/** A captured property as its descriptor (with no prototype): its value, or its getter. */
interface Entry {
  readonly value?: unknown;
  readonly get?: Callable | undefined;
}

/** The captures of `holder`, made empty the first time. */
function capturesOf(holder: object): Captures {
  let captures = apply(mapGet, captured, [holder]) as Captures | undefined;
  if (captures === undefined) {
    captures = create(null) as Captures;
    apply(mapSet, captured, [holder, captures]);
  }
  return captures;
}

/**
 * Captures the own properties of `holder` the library reads (`isWanted`) that a program
 * could change. A key this engine's `holder` lacks is not captured (the library's feature
 * checks see it missing, as they would have before any program). The engine picks the
 * keys (`filter` with a built-in test): a loop over the ~700 keys of the holders in the
 * prelude's cold code would cost more than all the rest of the capture.
 */
function capture(holder: object, isWanted: (key: PropertyKey) => boolean): void {
  const captures = capturesOf(holder);
  const keys = apply(arrayFilter, ownKeys(holder), [isWanted]) as PropertyKey[];
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as PropertyKey;
    const descriptor = getOwnPropertyDescriptor(holder, key);
    // What cannot change (`Object.prototype`, `Symbol.iterator`) needs no capture.
    if (descriptor === undefined || (descriptor.configurable !== true && descriptor.writable !== true)) continue;
    // The descriptor itself, cut from Object.prototype (which a program may add `get` to).
    setPrototypeOf(descriptor, null);
    captures[key as string] = descriptor as Entry;
  }
}

/** The captured property `key` of one captured object, or NOT_CAPTURED. */
function valueIn(captures: Captures, key: PropertyKey, receiver: unknown): unknown {
  const entry = captures[key as string];
  if (entry === undefined) return NOT_CAPTURED;
  const getter = entry.get;
  return getter === undefined ? entry.value : apply(getter, receiver, []);
}

/** The captures of String.prototype and Array.prototype: most lookups start there. */
let stringProtoCapture: Captures | undefined;
let arrayProtoCapture: Captures | undefined;

/**
 * `receiver[key]` as the built-ins were before any program: the prototype chain walked
 * as `[[Get]]` walks it, each captured property as it was captured. A property not
 * captured (of the library's own objects, of the program's, or one the library reads by
 * a computed key) is read as it is.
 */
function lookup(receiver: unknown, key: PropertyKey): unknown {
  let holder: object | null;
  if (typeof receiver === 'string') {
    if (key === 'length') return receiver.length;
    if (stringProtoCapture !== undefined) {
      const value = valueIn(stringProtoCapture, key, receiver);
      if (value !== NOT_CAPTURED) return value;
    }
    holder = StringProto;
  } else if (isObject(receiver)) {
    holder = receiver;
    if (arrayProtoCapture !== undefined && isArray(receiver) && !(apply(hasOwn, receiver, [key]) as boolean)) {
      if (getPrototypeOf(receiver) === ArrayProto) {
        const value = valueIn(arrayProtoCapture, key, receiver);
        if (value !== NOT_CAPTURED) return value;
      }
    }
  } else {
    holder = PRIMITIVE_PROTOTYPES[typeof receiver] ?? null;
    if (holder === null) return (receiver as Record<PropertyKey, unknown>)[key];
  }
  while (holder !== null) {
    const captures = apply(mapGet, captured, [holder]) as Captures | undefined;
    if (captures !== undefined) {
      const value = valueIn(captures, key, receiver);
      if (value !== NOT_CAPTURED) return value;
    }
    // A key the library reads by a computed name, or an object not captured: as it is.
    if (apply(hasOwn, holder, [key])) return reflectGet(holder, key, receiver);
    holder = getPrototypeOf(holder) as object | null;
  }
  return undefined;
}

function call(receiver: unknown, key: PropertyKey, ...args: unknown[]): unknown {
  return apply(lookup(receiver, key) as Callable, receiver, args);
}

/** What an object destructuring `{ a, b } = value` takes of `value`, each name read as `lookup` reads it. */
function pick(value: unknown, ...names: string[]): object {
  if (value === null || value === undefined) throw new TypeErrorCtor('Cannot destructure ' + StringCtor(value));
  const picked = create(null) as Record<string, unknown>;
  for (let index = 0; index < names.length; index++) {
    const name = names[index] as string;
    picked[name] = lookup(value, name);
  }
  return picked;
}

interface Step {
  readonly done: boolean;
  readonly value: unknown;
}
const DONE: Step = freeze({ __proto__: null, done: true, value: undefined } as Step);

function step(value: unknown, depth: number): Step {
  return { __proto__: null, done: false, value: depth > 0 ? iterate(value, depth - 1) : value } as Step;
}

/** Steps through an array, string, typed array, Set or Map with captured methods; undefined for anything else. */
function stepper(value: unknown, depth: number): (() => Step) | undefined {
  if (typeof value === 'string') {
    let index = 0;
    return () => {
      if (index >= value.length) return DONE;
      const width = (apply(codePointAt, value, [index]) as number) > 0xffff ? 2 : 1;
      const start = index;
      index += width;
      return step(apply(stringSlice, value, [start, index]), depth);
    };
  }
  if (!isObject(value)) return undefined;
  const prototype = getPrototypeOf(value);
  const isTyped = prototype !== null && getPrototypeOf(prototype) === typedArrayProto;
  if (isArray(value) || isTyped) {
    const list = value as unknown[];
    let index = 0;
    return () =>
      index < (isTyped ? (apply(typedLength, list, []) as number) : list.length) ? step(list[index++], depth) : DONE;
  }
  const iteratorNext =
    prototype === null ? undefined : (apply(mapGet, ITERATOR_NEXT, [prototype]) as Callable | undefined);
  const native =
    prototype === SetProto
      ? { iterator: apply(setValues, value, []), next: setIteratorNext }
      : prototype === MapProto
        ? { iterator: apply(mapEntries, value, []), next: mapIteratorNext }
        : iteratorNext !== undefined
          ? { iterator: value, next: iteratorNext }
          : undefined;
  if (native !== undefined)
    return () => {
      const result = apply(native.next, native.iterator, []) as Step;
      return result.done ? DONE : step(result.value, depth);
    };
  // Any other iterable (the library's own, whose iterator is often a built-in one): its
  // iterator method as it is, then the captured `next` of a built-in iterator.
  const method = lookup(value, iteratorSymbol);
  if (typeof method !== 'function') return undefined;
  const iterator = apply(method, value, []);
  if (!isObject(iterator)) throw new TypeErrorCtor('Result of the Symbol.iterator method is not an object');
  const next =
    (apply(mapGet, ITERATOR_NEXT, [getPrototypeOf(iterator)]) as Callable | undefined) ??
    ((iterator as Iterator<unknown>).next as Callable);
  return () => {
    const result = apply(next, iterator, []) as Step;
    if (!isObject(result)) throw new TypeErrorCtor('Iterator result ' + StringCtor(result) + ' is not an object');
    return result.done ? DONE : step(result.value, depth);
  };
}

/** An iterable over `value` that reads none of its replaceable iterator methods (others: `value` itself). */
function iterate(value: unknown, depth = 0): unknown {
  const next = stepper(value, depth);
  if (next === undefined) return value;
  const iterator = { __proto__: null, next };
  return { __proto__: null, [iteratorSymbol]: () => iterator };
}

function forEachOf(value: unknown, each: (item: unknown) => void): boolean {
  const next = stepper(value, 0);
  if (next === undefined) return false;
  for (let item = next(); !item.done; item = next()) each(item.value);
  return true;
}

/** What a template literal makes of `value`, with the captured `toString` of functions and arrays. */
function text(value: unknown): unknown {
  if (typeof value === 'function') return apply(functionToString, value, []);
  if (isArray(value)) return apply(arrayJoin, value, [',']);
  return isObject(value) ? StringCtor(value) : value;
}

function isA(value: unknown, type: unknown): boolean {
  if (typeof type !== 'function') return value instanceof (type as Callable);
  return apply(hasInstance, type, [value]) as boolean;
}

/** `new Set(list)`, `new Map(list)`, `new Uint8Array(list)`, filled with captured methods. */
function make(type: new (...args: unknown[]) => object, ...args: unknown[]): object {
  const items = args[0];
  if (type === SetCtor || type === MapCtor) {
    const made = construct(type, []) as object;
    const filled = forEachOf(items, (item) => {
      if (type === SetCtor) apply(setAdd, made, [item]);
      else apply(mapSet, made, [(item as unknown[])[0], (item as unknown[])[1]]);
    });
    if (filled) return made;
  } else if (isArray(items)) {
    const made = construct(type, [items.length]) as unknown[];
    for (let index = 0; index < items.length; index++) made[index] = items[index];
    return made;
  }
  return construct(type, args) as object;
}

// Built-ins that reach replaceable methods through the engine's own protocols (species
// constructors, `exec`, Symbol.split / Symbol.replace looked up on strings, iterators): the
// library gets versions of them made of captured parts only, for the cases it uses.
const RegExpProto = RegExp.prototype;
const regexpExec = RegExpProto.exec;
const regexpGlobal = getOwnPropertyDescriptor(RegExpProto, 'global')?.get as Callable;
const regexpUnicode = getOwnPropertyDescriptor(RegExpProto, 'unicode')?.get as Callable;
const stringIndexOf = StringProto.indexOf;
const stringReplace = StringProto.replace;
const stringSplit = StringProto.split;
const ArrayProto = Array.prototype;
const arrayFrom = Array.from;
const typedBuffer = getOwnPropertyDescriptor(typedArrayProto, 'buffer')?.get as Callable;
const typedByteOffset = getOwnPropertyDescriptor(typedArrayProto, 'byteOffset')?.get as Callable;
const typedSubarray = (typedArrayProto as Uint8Array).subarray;
const typedSlice = (typedArrayProto as Uint8Array).slice;
const { max, min, trunc } = Math;
const isNaNumber = Number.isNaN;

function relativeIndex(value: unknown, length: number, otherwise: number): number {
  if (value === undefined) return otherwise;
  const number = +(value as number);
  const index = isNaNumber(number) ? 0 : trunc(number);
  return index < 0 ? max(length + index, 0) : min(index, length);
}

function map(this: unknown[], each: Callable, thisArg?: unknown): unknown[] {
  const out: unknown[] = [];
  const length = this.length;
  for (let index = 0; index < length; index++) out[index] = apply(each, thisArg, [this[index], index, this]);
  return out;
}

function slice(this: unknown[], start?: unknown, end?: unknown): unknown[] {
  const length = this.length;
  const from = relativeIndex(start, length, 0);
  const to = relativeIndex(end, length, length);
  const out: unknown[] = [];
  for (let index = from; index < to; index++) out[index - from] = this[index];
  return out;
}

function splice(this: unknown[], ...args: unknown[]): unknown[] {
  const length = this.length;
  const start = relativeIndex(args[0], length, 0);
  const count =
    args.length === 0
      ? 0
      : args.length === 1
        ? length - start
        : min(max(relativeIndex(args[1], 2 ** 53, 0), 0), length - start);
  const removed: unknown[] = [];
  for (let index = 0; index < count; index++) removed[index] = this[start + index];
  const tail: unknown[] = [];
  for (let index = start + count; index < length; index++) tail[tail.length] = this[index];
  this.length = start;
  for (let index = 2; index < args.length; index++) this[this.length] = args[index];
  for (let index = 0; index < tail.length; index++) this[this.length] = tail[index];
  return removed;
}

function from(this: unknown, items: unknown, each?: Callable, thisArg?: unknown): unknown[] {
  const next = stepper(items, 0);
  if (next === undefined) return apply(arrayFrom, undefined, [items, each, thisArg]) as unknown[];
  const out: unknown[] = [];
  for (let item = next(); !item.done; item = next())
    out[out.length] = each === undefined ? item.value : apply(each, thisArg, [item.value, out.length]);
  return out;
}

function split(this: string, separator: unknown, limit?: unknown): string[] {
  if (typeof separator !== 'string' || typeof this !== 'string')
    return apply(stringSplit, this, [separator, limit]) as string[];
  const most = limit === undefined ? 2 ** 32 - 1 : (limit as number) >>> 0;
  const parts: string[] = [];
  if (most === 0) return parts;
  if (separator === '') {
    for (let index = 0; index < this.length && parts.length < most; index++)
      parts[index] = apply(stringSlice, this, [index, index + 1]) as string;
    return parts;
  }
  let start = 0;
  for (let at = apply(stringIndexOf, this, [separator, 0]) as number; at !== -1; ) {
    parts[parts.length] = apply(stringSlice, this, [start, at]) as string;
    if (parts.length === most) return parts;
    start = at + separator.length;
    at = apply(stringIndexOf, this, [separator, start]) as number;
  }
  parts[parts.length] = apply(stringSlice, this, [start]) as string;
  return parts;
}

function replace(this: string, pattern: unknown, replacement: unknown): string {
  const plain = typeof replacement === 'string' && apply(stringIndexOf, replacement, ['$']) === -1;
  if (!plain || typeof this !== 'string') return apply(stringReplace, this, [pattern, replacement]) as string;
  if (typeof pattern === 'string') {
    const at = apply(stringIndexOf, this, [pattern, 0]) as number;
    if (at === -1) return this;
    return (
      (apply(stringSlice, this, [0, at]) as string) +
      replacement +
      (apply(stringSlice, this, [at + pattern.length]) as string)
    );
  }
  if (!isObject(pattern) || getPrototypeOf(pattern) !== RegExpProto)
    return apply(stringReplace, this, [pattern, replacement]) as string;
  const regexp = pattern as RegExp;
  const global = apply(regexpGlobal, regexp, []) as boolean;
  if (global) regexp.lastIndex = 0;
  let out = '';
  let last = 0;
  for (;;) {
    const match = apply(regexpExec, regexp, [this]) as RegExpExecArray | null;
    if (match === null) break;
    const found = match[0] as string;
    out += (apply(stringSlice, this, [last, match.index]) as string) + replacement;
    last = match.index + found.length;
    if (!global) break;
    if (found === '')
      regexp.lastIndex +=
        apply(regexpUnicode, regexp, []) && (apply(codePointAt, this, [last]) as number) > 0xffff ? 2 : 1;
  }
  return out + (apply(stringSlice, this, [last]) as string);
}

function test(this: RegExp, text: unknown): boolean {
  return apply(regexpExec, this, [text]) !== null;
}

type TypedArrayType = (new (...args: unknown[]) => object) & { readonly BYTES_PER_ELEMENT: number };
/** Each typed array type by its prototype (both unchangeable), for `subarray` and `slice`. */
const TYPED_ARRAYS = new MapCtor<object, TypedArrayType>();
for (let index = 0; index < TYPED_ARRAY_TYPES.length; index++) {
  const type = TYPED_ARRAY_TYPES[index] as unknown as TypedArrayType;
  apply(mapSet, TYPED_ARRAYS, [getOwnPropertyDescriptor(type, 'prototype')?.value, type]);
}

function typedConstructor(typed: object): TypedArrayType | undefined {
  return apply(mapGet, TYPED_ARRAYS, [getPrototypeOf(typed)]) as TypedArrayType | undefined;
}

function subarray(this: Uint8Array, start?: unknown, end?: unknown): object {
  const type = typedConstructor(this);
  if (type === undefined) return apply(typedSubarray, this, [start, end]) as object;
  const length = apply(typedLength, this, []) as number;
  const from = relativeIndex(start, length, 0);
  const to = relativeIndex(end, length, length);
  const width = type.BYTES_PER_ELEMENT;
  const offset = (apply(typedByteOffset, this, []) as number) + from * width;
  return construct(type, [apply(typedBuffer, this, []), offset, max(to - from, 0)]) as object;
}

function typedSliceOf(this: Uint8Array, start?: unknown, end?: unknown): object {
  const type = typedConstructor(this);
  if (type === undefined) return apply(typedSlice, this, [start, end]) as object;
  const length = apply(typedLength, this, []) as number;
  const from = relativeIndex(start, length, 0);
  const to = relativeIndex(end, length, length);
  const out = construct(type, [max(to - from, 0)]) as Uint8Array;
  for (let index = from; index < to; index++) out[index - from] = this[index] as number;
  return out;
}

const HARDENED: readonly (readonly [object, PropertyKey, Callable])[] = [
  [ArrayProto, 'map', map as Callable],
  [ArrayProto, 'slice', slice as Callable],
  [ArrayProto, 'splice', splice as Callable],
  [Array, 'from', from as Callable],
  [StringProto, 'split', split as Callable],
  [StringProto, 'replace', replace as Callable],
  [RegExpProto, 'test', test as Callable],
  [typedArrayProto, 'subarray', subarray as Callable],
  [typedArrayProto, 'slice', typedSliceOf as Callable],
];

export interface UrlIntrinsics {
  readonly globals: Record<string, unknown>;
  readonly __ptc_call: typeof call;
  readonly __ptc_get: typeof lookup;
  readonly __ptc_iter: typeof iterate;
  readonly __ptc_isa: typeof isA;
  readonly __ptc_new: typeof make;
  readonly __ptc_text: typeof text;
  readonly __ptc_pick: typeof pick;
}

/**
 * Captures, from `scope` (the guest's global object, before any program), every global
 * the library reads (undefined where this engine has none), and the own properties of
 * those globals, their prototypes and the intrinsic prototypes literals and iterators
 * reach, that have a name the library reads. `globalThis` stands for a record of
 * just the members the library reads of it.
 */
export function captureUrlIntrinsics(scope: Record<string, unknown>): UrlIntrinsics {
  const reads = parse(__PTC_URL_LIBRARY_READS__) as UrlLibraryReads;
  const globals = create(null) as Record<string, unknown>;
  for (let index = 0; index < reads.globals.length; index++) {
    const name = reads.globals[index] as string;
    const value = getOwnPropertyDescriptor(scope, name)?.value;
    globals[name] = value;
  }
  // Made by the engine from the list, not by a loop (cold code, see capture()).
  const wanted = construct(SetCtor, [reads.keys]) as Set<PropertyKey>;
  for (let index = 0; index < reads.symbols.length; index++) {
    const symbol = (SymbolCtor as unknown as Record<string, unknown>)[reads.symbols[index] as string];
    if (typeof symbol === 'symbol') apply(setAdd, wanted, [symbol]);
  }
  const isWanted = apply(functionBind, setHas, [wanted]) as (key: PropertyKey) => boolean;
  for (let index = 0; index < INTRINSIC_HOLDERS.length; index++) {
    const holder = resolveHolder(INTRINSIC_HOLDERS[index] as string, scope);
    if (holder !== undefined) capture(holder, isWanted);
  }
  for (let index = 0; index < reads.globals.length; index++) {
    const name = reads.globals[index] as string;
    const value = globals[name];
    if (name === 'globalThis' || !isObject(value)) continue;
    capture(value, isWanted);
    const prototype = getOwnPropertyDescriptor(value, 'prototype')?.value as unknown;
    if (isObject(prototype)) capture(prototype, isWanted);
  }
  // The hardened built-ins below go into these objects' captures.
  stringProtoCapture = capturesOf(StringProto);
  arrayProtoCapture = capturesOf(ArrayProto);
  for (let index = 0; index < HARDENED.length; index++) {
    const [holder, key, value] = HARDENED[index] as readonly [object, PropertyKey, Callable];
    capturesOf(holder)[key as string] = { __proto__: null, value } as Entry;
  }
  const members = create(null) as Record<string, unknown>;
  for (let index = 0; index < reads.globalMembers.length; index++) {
    const name = reads.globalMembers[index] as string;
    members[name] = getOwnPropertyDescriptor(scope, name)?.value;
  }
  globals['globalThis'] = freeze(members);
  return freeze({
    __proto__: null,
    globals: freeze(globals),
    __ptc_call: call,
    __ptc_get: lookup,
    __ptc_iter: iterate,
    __ptc_isa: isA,
    __ptc_new: make,
    __ptc_text: text,
    __ptc_pick: pick,
  }) as unknown as UrlIntrinsics;
}
