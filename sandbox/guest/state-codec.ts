// The text a session's `state` is saved as, written and read inside the guest so the host
// never touches a guest object. It is JSON: plain data as it is, everything JSON lacks as
// a tagged object `{"$":[tag, ...]}` (Date, RegExp, Map, Set, ArrayBuffer, typed arrays,
// DataView, Error, BigInt, undefined, NaN, ±Infinity, a repeated or circular reference;
// a plain object that owns a "$" key is itself wrapped). Objects are numbered in the
// order they are first written, so `{"$":["ref",n]}` finds the same object on reading.
// Functions, symbols, getters and class instances (their methods would be lost) are
// refused with the path where they sit. Built-ins are captured on first use, before the
// program runs (`captureStateBuiltins` from configure).
import { bareRecordClass } from './bare-record.ts';
import {
  apply,
  create,
  defineProperty,
  getOwnPropertyDescriptor,
  getOwnPropertyNames,
  getOwnPropertySymbols,
  getPrototypeOf,
  hasOwn,
  isArray,
  isEnumerableOwn,
  isFiniteNumber,
  mapForEach,
  MapProto,
  objectIs,
  ObjectProto,
  parse,
  setForEach,
  SetProto,
  stringify,
  utf8Prefix,
} from './intrinsics.ts';
import { TYPED_ARRAY_TYPES } from './typed-array-types.ts';

/** Why `state` cannot be saved (thrown as a null-prototype record), and where. */
export interface StateProblem {
  readonly isStateProblem: true;
  readonly reason: string;
  path: string;
}

function refuse(reason: string): StateProblem {
  return { __proto__: null, isStateProblem: true, reason, path: '' } as StateProblem;
}

export function isStateProblem(error: unknown): error is StateProblem {
  return (
    error !== null &&
    typeof error === 'object' &&
    getPrototypeOf(error) === null &&
    (error as { isStateProblem?: unknown }).isStateProblem === true
  );
}

/** Nesting a saved state may have (each level is a stack frame when written and read). */
const MAX_DEPTH = 1000;

interface Builtins {
  readonly MapCtor: MapConstructor;
  readonly SetCtor: SetConstructor;
  readonly DateCtor: DateConstructor;
  readonly RegExpCtor: RegExpConstructor;
  readonly ErrorCtor: ErrorConstructor;
  readonly BigIntCtor: BigIntConstructor;
  readonly DataViewCtor: DataViewConstructor;
  readonly Uint8Ctor: Uint8ArrayConstructor;
  readonly ArrayBufferCtor: ArrayBufferConstructor;
  readonly mapGet: (key: unknown) => unknown;
  readonly mapSet: (key: unknown, value: unknown) => unknown;
  readonly setAdd: (value: unknown) => unknown;
  readonly dateGetTime: () => number;
  readonly dateProto: object;
  readonly regexpProto: object;
  readonly regexpSource: () => string;
  readonly regexpFlags: () => string;
  readonly arrayBufferProto: object;
  readonly abByteLength: () => number;
  readonly typedArrayProto: object;
  readonly typedArrayTag: () => string | undefined;
  readonly typedArrayBuffer: () => ArrayBuffer;
  readonly typedArrayOffset: () => number;
  readonly typedArrayByteLength: () => number;
  readonly dataViewProto: object;
  readonly dataViewBuffer: () => ArrayBuffer;
  readonly dataViewOffset: () => number;
  readonly dataViewLength: () => number;
  readonly errorProtos: readonly object[];
  /** Built-ins that hold no data a copy could keep (Promise first: its refusal gets a hint). */
  readonly opaque: readonly object[];
  readonly typedArrays: Record<string, new (buffer: ArrayBuffer, offset: number, length: number) => object>;
}

let builtins: Builtins | undefined;

function getter(proto: object, key: PropertyKey): () => never {
  return getOwnPropertyDescriptor(proto, key)?.get as () => never;
}

/** Captures what the codec uses; called by configure before the program runs, once per context. */
export function captureStateBuiltins(): void {
  if (builtins !== undefined) return;
  const typedArrayProto = getPrototypeOf(Uint8Array.prototype) as object;
  const typedArrays = create(null) as Builtins['typedArrays'];
  for (let i = 0; i < TYPED_ARRAY_TYPES.length; i++) {
    const ctor = TYPED_ARRAY_TYPES[i] as (typeof TYPED_ARRAY_TYPES)[number];
    typedArrays[ctor.name] = ctor;
  }
  builtins = {
    __proto__: null,
    MapCtor: Map,
    SetCtor: Set,
    DateCtor: Date,
    RegExpCtor: RegExp,
    ErrorCtor: Error,
    BigIntCtor: BigInt,
    DataViewCtor: DataView,
    Uint8Ctor: Uint8Array,
    ArrayBufferCtor: ArrayBuffer,
    mapGet: MapProto.get,
    mapSet: MapProto.set,
    setAdd: SetProto.add,
    dateGetTime: Date.prototype.getTime,
    dateProto: Date.prototype,
    regexpProto: RegExp.prototype,
    regexpSource: getter(RegExp.prototype, 'source'),
    regexpFlags: getter(RegExp.prototype, 'flags'),
    arrayBufferProto: ArrayBuffer.prototype,
    abByteLength: getter(ArrayBuffer.prototype, 'byteLength'),
    typedArrayProto,
    typedArrayTag: getter(typedArrayProto, Symbol.toStringTag),
    typedArrayBuffer: getter(typedArrayProto, 'buffer'),
    typedArrayOffset: getter(typedArrayProto, 'byteOffset'),
    typedArrayByteLength: getter(typedArrayProto, 'byteLength'),
    dataViewProto: DataView.prototype,
    dataViewBuffer: getter(DataView.prototype, 'buffer'),
    dataViewOffset: getter(DataView.prototype, 'byteOffset'),
    dataViewLength: getter(DataView.prototype, 'byteLength'),
    errorProtos: [
      Error.prototype,
      EvalError.prototype,
      RangeError.prototype,
      ReferenceError.prototype,
      SyntaxError.prototype,
      TypeError.prototype,
      URIError.prototype,
    ],
    opaque: [
      Promise.prototype,
      WeakMap.prototype,
      WeakSet.prototype,
      WeakRef.prototype,
      Symbol.prototype,
      Number.prototype,
      String.prototype,
      Boolean.prototype,
      BigInt.prototype,
    ],
    typedArrays,
  } as Builtins;
}

function b(): Builtins {
  if (builtins === undefined) throw refuse('the state codec was not prepared');
  return builtins;
}

// ---- writing ----

class Writer {
  /** UTF-8 bytes of the text so far (counted on past the budget, when the text is no longer built). */
  bytes = 0;
  text = '';
  readonly budget: number;
  readonly seen: Map<object, number>;
  count = 0;
  constructor(budget: number) {
    this.budget = budget;
    this.seen = new (b().MapCtor)();
  }
  put(piece: string, ascii: boolean): void {
    this.bytes += ascii ? piece.length : utf8Prefix(piece, Infinity).bytes;
    if (this.bytes <= this.budget) this.text += piece;
  }
}
bareRecordClass(Writer);

let identifier: RegExp | undefined;

function keySegment(key: string): string {
  identifier ??= /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  return identifier.exec(key) !== null ? '.' + key : '[' + stringify(key) + ']';
}

function tagged(w: Writer, tag: string, rest: string): void {
  w.put('{"$":["' + tag + '"' + rest + ']}', true);
}

function writeValue(w: Writer, value: unknown, depth: number): void {
  switch (typeof value) {
    case 'string':
      w.put(stringify(value), false);
      return;
    case 'number':
      if (isFiniteNumber(value)) w.put(value === 0 && 1 / value < 0 ? '-0' : stringify(value), true);
      else tagged(w, value > 0 ? 'Infinity' : value < 0 ? '-Infinity' : 'NaN', '');
      return;
    case 'boolean':
      w.put(value ? 'true' : 'false', true);
      return;
    case 'undefined':
      tagged(w, 'undefined', '');
      return;
    case 'bigint':
      tagged(w, 'BigInt', ',"' + value + '"');
      return;
    case 'symbol':
      throw refuse('a symbol: symbols cannot be saved (save its description as a string)');
    case 'function':
      throw refuse('a function: functions cannot be saved, only data (define it again in the next program)');
  }
  if (value === null) {
    w.put('null', true);
    return;
  }
  writeObject(w, value as object, depth);
}

function writeObject(w: Writer, object: object, depth: number): void {
  const known = apply(b().mapGet, w.seen, [object]) as number | undefined;
  if (known !== undefined) {
    tagged(w, 'ref', ',' + known);
    return;
  }
  if (depth >= MAX_DEPTH) throw refuse('nesting deeper than ' + MAX_DEPTH + ' levels');
  apply(b().mapSet, w.seen, [object, w.count++]);
  if (isArray(object)) return writeArray(w, object as unknown[], depth);
  const proto = getPrototypeOf(object) as object | null;
  if (proto === ObjectProto || proto === null) return writePlain(w, object, depth);
  const special = writeBuiltin(w, object, proto, depth);
  if (special) return;
  const opaque = b().opaque;
  for (let i = 0; i < opaque.length; i++) {
    if (opaque[i] === proto)
      throw refuse('a ' + className(proto) + (i === 0 ? ' (did you forget await?)' : '') + ', which cannot be saved');
  }
  throw refuse(
    'an instance of ' +
      className(proto) +
      ': a class instance would lose its methods; save its data as a plain object (and rebuild the instance from it)',
  );
}

function className(proto: object): string {
  const ctor = getOwnPropertyDescriptor(proto, 'constructor')?.value as unknown;
  const name = typeof ctor === 'function' ? getOwnPropertyDescriptor(ctor, 'name')?.value : undefined;
  return typeof name === 'string' && name !== '' ? name : 'a class';
}

/** The own data value at `key`; refuses getters and Proxies whose reads disagree with their data. */
function ownValue(object: object, key: string): unknown {
  const descriptor = getOwnPropertyDescriptor(object, key);
  if (descriptor === undefined) return undefined;
  if (!apply(hasOwn, descriptor, ['value'])) throw refuse('a getter/setter property: save its value instead');
  if (!objectIs((object as Record<string, unknown>)[key], descriptor.value))
    throw refuse('an object whose reads disagree with its own data (a Proxy?)');
  return descriptor.value;
}

function within(key: string, step: () => void): void {
  try {
    step();
  } catch (error) {
    if (isStateProblem(error)) error.path = key + error.path;
    throw error;
  }
}

function writeArray(w: Writer, array: unknown[], depth: number): void {
  w.put('[', true);
  const length = array.length;
  for (let i = 0; i < length; i++) {
    if (i > 0) w.put(',', true);
    within('[' + i + ']', () => writeValue(w, ownValue(array, '' + i), depth + 1));
  }
  w.put(']', true);
}

function writePlain(w: Writer, object: object, depth: number): void {
  if (getOwnPropertySymbols(object).length > 0) throw refuse('a symbol-keyed property, which cannot be saved');
  const names = getOwnPropertyNames(object);
  const wrapped = apply(hasOwn, object, ['$']) as boolean;
  if (wrapped) w.put('{"$":["object",', true);
  w.put('{', true);
  let first = true;
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    // Non-enumerable properties are left out, as structuredClone leaves them.
    if (!apply(isEnumerableOwn, object, [name])) continue;
    w.put((first ? '' : ',') + stringify(name) + ':', false);
    first = false;
    within(keySegment(name), () => writeValue(w, ownValue(object, name), depth + 1));
  }
  w.put('}', true);
  if (wrapped) w.put(']}', true);
}

function writeEntries(w: Writer, tag: string, object: object, depth: number, isMap: boolean): void {
  const keys: unknown[] = [];
  const values: unknown[] = [];
  let count = 0;
  apply(isMap ? mapForEach : setForEach, object, [
    (item: unknown, key: unknown) => {
      defineProperty(keys, count, { value: key, writable: true, enumerable: true, configurable: true });
      defineProperty(values, count, { value: item, writable: true, enumerable: true, configurable: true });
      count++;
    },
  ]);
  w.put('{"$":["' + tag + '",[', true);
  for (let i = 0; i < count; i++) {
    if (i > 0) w.put(',', true);
    const key = keys[i];
    const where = isMap
      ? typeof key === 'string' || typeof key === 'number'
        ? '.get(' + stringify(key) + ')'
        : '.<entry ' + i + '>'
      : '.<item ' + i + '>';
    within(where, () => {
      if (isMap) {
        writeValue(w, key, depth + 1);
        w.put(',', true);
        writeValue(w, values[i], depth + 1);
      } else {
        writeValue(w, key, depth + 1);
      }
    });
  }
  w.put(']]}', true);
}

/** Writes a built-in the codec knows (true), or leaves it to the refusal (false). */
function writeBuiltin(w: Writer, object: object, proto: object, depth: number): boolean {
  const k = b();
  if (proto === MapProto) writeEntries(w, 'Map', object, depth, true);
  else if (proto === SetProto) writeEntries(w, 'Set', object, depth, false);
  else if (proto === k.dateProto) {
    const time = apply(k.dateGetTime, object, []) as number;
    tagged(w, 'Date', ',' + (isFiniteNumber(time) ? stringify(time) : 'null'));
  } else if (proto === k.regexpProto) {
    const source = apply(k.regexpSource, object, []) as string;
    const flags = apply(k.regexpFlags, object, []) as string;
    w.put('{"$":["RegExp",' + stringify(source) + ',"' + flags + '"]}', false);
  } else if (proto === k.arrayBufferProto) {
    const length = apply(k.abByteLength, object, []) as number;
    tagged(w, 'ArrayBuffer', ',"' + base64(object as ArrayBuffer, 0, length) + '"');
  } else if (proto === k.dataViewProto) {
    const buffer = apply(k.dataViewBuffer, object, []) as ArrayBuffer;
    const offset = apply(k.dataViewOffset, object, []) as number;
    tagged(w, 'DataView', ',"' + base64(buffer, offset, apply(k.dataViewLength, object, []) as number) + '"');
  } else if (getPrototypeOf(proto) === k.typedArrayProto) {
    const name = apply(k.typedArrayTag, object, []) as string | undefined;
    if (name === undefined || k.typedArrays[name] === undefined) return false;
    const buffer = apply(k.typedArrayBuffer, object, []) as ArrayBuffer;
    const offset = apply(k.typedArrayOffset, object, []) as number;
    tagged(w, name, ',"' + base64(buffer, offset, apply(k.typedArrayByteLength, object, []) as number) + '"');
  } else if (isStandardError(proto)) {
    const own = ownValue(object, 'name');
    const name = typeof own === 'string' ? own : ownValue(proto, 'name');
    const message = ownValue(object, 'message');
    w.put(
      '{"$":["Error",' +
        stringify(typeof name === 'string' ? name : 'Error') +
        ',' +
        stringify(typeof message === 'string' ? message : '') +
        ']}',
      false,
    );
  } else {
    return false;
  }
  return true;
}

function isStandardError(proto: object): boolean {
  const protos = b().errorProtos;
  for (let i = 0; i < protos.length; i++) if (protos[i] === proto) return true;
  return false;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function base64(buffer: ArrayBuffer, offset: number, length: number): string {
  const bytes = new (b().Uint8Ctor)(buffer, offset, length);
  let out = '';
  for (let i = 0; i < length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out +=
      (ALPHABET[(n >> 18) & 63] as string) +
      (ALPHABET[(n >> 12) & 63] as string) +
      (i + 1 < length ? (ALPHABET[(n >> 6) & 63] as string) : '=') +
      (i + 2 < length ? (ALPHABET[n & 63] as string) : '=');
  }
  return out;
}

/** The outcome of saving: the text and its UTF-8 size, or why not (size over the budget included). */
export type StateWrite =
  | { readonly ok: true; readonly text: string; readonly bytes: number }
  | { readonly ok: false; readonly message: string };

/** Writes the program's `state` (undefined or null: cleared, saved as `{}`). */
export function writeState(value: unknown, maxBytes: number): StateWrite {
  const w = new Writer(maxBytes);
  try {
    if (value === undefined || value === null) w.put('{}', true);
    else writeValue(w, value, 0);
  } catch (error) {
    if (isStateProblem(error))
      return { __proto__: null, ok: false, message: 'state' + error.path + ' is ' + error.reason } as StateWrite;
    throw error;
  }
  if (w.bytes > maxBytes) {
    return {
      __proto__: null,
      ok: false,
      message:
        'state is ' +
        w.bytes +
        ' bytes serialized, over the session limit of ' +
        maxBytes +
        ' bytes (maxBytes): keep less in it (e.g. only the fields you need)',
    } as StateWrite;
  }
  return { __proto__: null, ok: true, text: w.text, bytes: w.bytes } as StateWrite;
}

// ---- reading ----

class Reader {
  readonly objects: unknown[] = [];
  count = 0;
  remember(object: unknown): void {
    defineProperty(this.objects, this.count++, { value: object, writable: true, enumerable: true, configurable: true });
  }
}
bareRecordClass(Reader);

function bad(what: string): StateProblem {
  return refuse('not a saved state (' + what + ')');
}

function define(target: object, key: string | number, value: unknown): void {
  defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function readValue(r: Reader, value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) throw bad('nested deeper than ' + MAX_DEPTH + ' levels');
  if (isArray(value)) {
    r.remember(value);
    for (let i = 0; i < value.length; i++) define(value, i, readValue(r, value[i], depth + 1));
    return value;
  }
  if (!apply(hasOwn, value, ['$'])) return readPlain(r, value, depth);
  const tag = (value as { $: unknown }).$;
  if (!isArray(tag) || typeof tag[0] !== 'string') throw bad('a "$" key that is not a tag');
  return readTagged(r, tag as unknown[], depth);
}

function readPlain(r: Reader, object: object, depth: number): object {
  r.remember(object);
  const names = getOwnPropertyNames(object);
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    define(object, name, readValue(r, (object as Record<string, unknown>)[name], depth + 1));
  }
  return object;
}

function readTagged(r: Reader, tag: unknown[], depth: number): unknown {
  const k = b();
  const kind = tag[0] as string;
  switch (kind) {
    case 'undefined':
      return undefined;
    case 'NaN':
      return NaN;
    case 'Infinity':
      return Infinity;
    case '-Infinity':
      return -Infinity;
    case 'BigInt':
      if (typeof tag[1] !== 'string') throw bad('a BigInt without digits');
      return k.BigIntCtor(tag[1]);
    case 'ref': {
      const n = tag[1];
      if (typeof n !== 'number' || !(n >= 0 && n < r.count)) throw bad('a reference to no earlier object');
      return r.objects[n];
    }
    case 'object': {
      const inner = tag[1];
      if (inner === null || typeof inner !== 'object' || isArray(inner)) throw bad('a wrapped object that is not one');
      return readPlain(r, inner, depth);
    }
    case 'Map':
    case 'Set': {
      const items = tag[1];
      if (!isArray(items)) throw bad('a ' + kind + ' without entries');
      const collection = kind === 'Map' ? new k.MapCtor() : new k.SetCtor();
      r.remember(collection);
      if (kind === 'Map') {
        for (let i = 0; i + 1 < items.length; i += 2) {
          const key = readValue(r, items[i], depth + 1);
          apply(k.mapSet, collection, [key, readValue(r, items[i + 1], depth + 1)]);
        }
      } else {
        for (let i = 0; i < items.length; i++) apply(k.setAdd, collection, [readValue(r, items[i], depth + 1)]);
      }
      return collection;
    }
    case 'Date': {
      const date = new k.DateCtor(typeof tag[1] === 'number' ? tag[1] : NaN);
      r.remember(date);
      return date;
    }
    case 'RegExp': {
      if (typeof tag[1] !== 'string' || typeof tag[2] !== 'string') throw bad('a RegExp without source and flags');
      const regexp = new k.RegExpCtor(tag[1], tag[2]);
      r.remember(regexp);
      return regexp;
    }
    case 'Error': {
      const error = new k.ErrorCtor(typeof tag[2] === 'string' ? tag[2] : '');
      if (typeof tag[1] === 'string' && tag[1] !== 'Error')
        defineProperty(error, 'name', { value: tag[1], writable: true, configurable: true });
      r.remember(error);
      return error;
    }
    default:
      return readBytes(r, kind, tag[1]);
  }
}

function readBytes(r: Reader, kind: string, text: unknown): unknown {
  const k = b();
  if (typeof text !== 'string') throw bad('a ' + kind + ' without bytes');
  const buffer = unbase64(text);
  let made: unknown;
  if (kind === 'ArrayBuffer') made = buffer;
  else if (kind === 'DataView') made = new k.DataViewCtor(buffer);
  else {
    const Ctor = k.typedArrays[kind];
    if (Ctor === undefined) throw bad('an unknown tag ' + stringify(kind));
    const width = (Ctor as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
    const length = apply(k.abByteLength, buffer, []) as number;
    if (length % width !== 0) throw bad('a ' + kind + ' of ' + length + ' bytes');
    made = new Ctor(buffer, 0, length / width);
  }
  r.remember(made);
  return made;
}

let alphabetIndex: Record<string, number> | undefined;

function unbase64(text: string): ArrayBuffer {
  if (alphabetIndex === undefined) {
    alphabetIndex = create(null) as Record<string, number>;
    for (let i = 0; i < 64; i++) alphabetIndex[ALPHABET[i] as string] = i;
  }
  const k = b();
  if (text.length % 4 !== 0) throw bad('bytes that are not base64');
  const padding = text.length === 0 ? 0 : text[text.length - 1] === '=' ? (text[text.length - 2] === '=' ? 2 : 1) : 0;
  const length = (text.length / 4) * 3 - padding;
  const buffer = new k.ArrayBufferCtor(length);
  const bytes = new k.Uint8Ctor(buffer);
  let at = 0;
  for (let i = 0; i < text.length; i += 4) {
    let n = 0;
    for (let j = 0; j < 4; j++) {
      const c = text[i + j] as string;
      const v = c === '=' ? 0 : alphabetIndex[c];
      if (v === undefined) throw bad('bytes that are not base64');
      n = (n << 6) | v;
    }
    if (at < length) bytes[at++] = (n >> 16) & 255;
    if (at < length) bytes[at++] = (n >> 8) & 255;
    if (at < length) bytes[at++] = n & 255;
  }
  return buffer;
}

/** The value a saved state text stands for; throws a StateProblem when it is not one. */
export function readState(text: string): unknown {
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch {
    throw bad('not JSON');
  }
  return readValue(new Reader(), parsed, 0);
}
