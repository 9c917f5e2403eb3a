// structuredClone as Node's (V8's serializer) behaves for what a program can observe:
// plain objects and class instances become plain objects of their own enumerable string
// keys (getters are called), arrays keep holes and extra keys, shared and circular
// references are kept; Date, RegExp (lastIndex reset), Map, Set, ArrayBuffer (and
// `transfer`), typed arrays and DataView (over a copy of their whole buffer), primitive
// wrappers and Errors are copied; functions, symbols, Promises, weak collections and
// the like throw a DataCloneError worded as V8 words it. Copies live on the heap (and
// ArrayBuffers in the allocator isolated-vm bounds), so huge inputs end in the heap limit.
import {
  apply,
  create,
  defineProperty,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  hasOwn,
  isArray,
  mapForEach,
  objectKeys,
  ObjectProto,
  setForEach,
  symbolToString,
  TypeErrorCtor,
} from './intrinsics.ts';
import { DOMException } from './dom-exception.ts';
import { TYPED_ARRAY_TYPES } from './typed-array-types.ts';
import { missingArgs } from './node-errors.ts';

const MapCtor = Map;
const SetCtor = Set;
const DateCtor = Date;
const RegExpCtor = RegExp;
const ArrayCtor = Array;
const ObjectWrap = Object;
const mapSet = MapCtor.prototype.set;
const mapGet = MapCtor.prototype.get;
const mapHas = MapCtor.prototype.has;
const setAdd = SetCtor.prototype.add;
const dateGetTime = DateCtor.prototype.getTime;
const regexpSource = getOwnPropertyDescriptor(RegExpCtor.prototype, 'source')?.get as () => string;
const regexpFlags = getOwnPropertyDescriptor(RegExpCtor.prototype, 'flags')?.get as () => string;
const mapSizeGetter = getOwnPropertyDescriptor(MapCtor.prototype, 'size')?.get as () => number;
const setSizeGetter = getOwnPropertyDescriptor(SetCtor.prototype, 'size')?.get as () => number;
const abByteLength = getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength')?.get as () => number;
const abSlice = ArrayBuffer.prototype.slice;
const abTransfer = (ArrayBuffer.prototype as { transfer?: () => ArrayBuffer }).transfer;
const TypedArrayProto = getPrototypeOf(Uint8Array.prototype) as object;
const typedArrayTag = getOwnPropertyDescriptor(TypedArrayProto, Symbol.toStringTag)?.get as () => string | undefined;
const typedArrayBuffer = getOwnPropertyDescriptor(TypedArrayProto, 'buffer')?.get as () => ArrayBuffer;
const typedArrayOffset = getOwnPropertyDescriptor(TypedArrayProto, 'byteOffset')?.get as () => number;
const typedArrayLength = getOwnPropertyDescriptor(TypedArrayProto, 'length')?.get as () => number;
const dataViewBuffer = getOwnPropertyDescriptor(DataView.prototype, 'buffer')?.get as () => ArrayBuffer;
const dataViewOffset = getOwnPropertyDescriptor(DataView.prototype, 'byteOffset')?.get as () => number;
const dataViewLength = getOwnPropertyDescriptor(DataView.prototype, 'byteLength')?.get as () => number;
const DataViewCtor = DataView;
const booleanValueOf = Boolean.prototype.valueOf;
const numberValueOf = Number.prototype.valueOf;
const stringValueOf = String.prototype.valueOf;
const bigintValueOf = BigInt.prototype.valueOf;
const symbolValueOf = Symbol.prototype.valueOf;
const weakMapHas = WeakMap.prototype.has;
const weakSetHas = WeakSet.prototype.has;
const weakRefDeref = WeakRef.prototype.deref;
const functionToString = Function.prototype.toString;
const PromiseProto = Promise.prototype;
// Generators and the built-in iterators are internal objects V8 refuses to clone.
const IteratorProto = getPrototypeOf(getPrototypeOf([][Symbol.iterator]())) as object;
// (%AsyncGeneratorPrototype%, the prototype of every async generator function's prototype.)
const AsyncGeneratorProto = getPrototypeOf(async function* () {}.prototype) as object;
// Intl objects too: each has a resolvedOptions that throws for anything else.
const INTL_BRANDS: ((...args: never[]) => unknown)[] = [];
const INTL_NAMES = [
  'Collator',
  'DateTimeFormat',
  'DisplayNames',
  'ListFormat',
  'NumberFormat',
  'PluralRules',
  'RelativeTimeFormat',
  'Segmenter',
  'Locale',
  'DurationFormat',
];
for (let i = 0; i < INTL_NAMES.length; i++) {
  const name = INTL_NAMES[i] as string;
  const ctor = (
    Intl as unknown as Record<
      string,
      { prototype?: { resolvedOptions?: () => unknown; maximize?: () => unknown } } | undefined
    >
  )[name];
  const brand = ctor?.prototype?.resolvedOptions ?? ctor?.prototype?.maximize;
  if (typeof brand === 'function') INTL_BRANDS[INTL_BRANDS.length] = brand;
}

function isIntlObject(value: object): boolean {
  for (let i = 0; i < INTL_BRANDS.length; i++) if (branded(INTL_BRANDS[i] as () => unknown, value)) return true;
  return false;
}
const ErrorProto = Error.prototype;
const TYPED_ARRAYS = create(null) as Record<
  string,
  new (
    buffer: ArrayBuffer,
    offset: number,
    length: number,
  ) => object
>;
for (let i = 0; i < TYPED_ARRAY_TYPES.length; i++) {
  const ctor = TYPED_ARRAY_TYPES[i] as (typeof TYPED_ARRAY_TYPES)[number];
  TYPED_ARRAYS[ctor.name] = ctor;
}
const ERROR_CTORS = {
  __proto__: null,
  EvalError,
  RangeError,
  ReferenceError,
  SyntaxError,
  TypeError,
  URIError,
} as unknown as Record<string, ErrorConstructor>;

function cannotClone(text: string): DOMException {
  return new DOMException(text + ' could not be cloned.', 'DataCloneError');
}

/** Calls `method` on `value` as a brand check: true when `value` has the internal slot. */
function branded(method: (...args: never[]) => unknown, value: object, args: readonly unknown[] = []): boolean {
  try {
    apply(method as (...args: unknown[]) => unknown, value, args);
    return true;
  } catch {
    return false;
  }
}

function inherits(value: object, proto: object): boolean {
  let current = getPrototypeOf(value) as object | null;
  for (let depth = 0; depth < 64 && current !== null; depth++) {
    if (current === proto) return true;
    current = getPrototypeOf(current) as object | null;
  }
  return false;
}

/** V8's `#<Name>` for an object it refuses (its constructor's name, else its tag). */
function objectLabel(value: object): string {
  try {
    const proto = getPrototypeOf(value) as object | null;
    const ctor = proto === null ? undefined : (proto as { constructor?: unknown }).constructor;
    const ctorName = typeof ctor === 'function' ? getOwnPropertyDescriptor(ctor, 'name')?.value : undefined;
    if (typeof ctorName === 'string' && ctorName !== '') return '#<' + ctorName + '>';
    const tag = (value as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag];
    if (typeof tag === 'string') return '[object ' + tag + ']';
  } catch {
    return '#<Object>';
  }
  return '#<Object>';
}

function define(target: object, key: string | number, value: unknown): void {
  defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

class Cloner {
  readonly memory = new MapCtor<object, unknown>();

  remember(original: object, copy: unknown): void {
    apply(mapSet, this.memory, [original, copy]);
  }

  clone(value: unknown): unknown {
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
      if (typeof value === 'symbol') throw cannotClone(apply(symbolToString, value, []));
      return value;
    }
    if (typeof value === 'function') throw cannotClone(apply(functionToString, value, []));
    const object = value as object;
    if (apply(mapHas, this.memory, [object])) return apply(mapGet, this.memory, [object]);
    return this.cloneObject(object);
  }

  cloneBuffer(buffer: ArrayBuffer): ArrayBuffer {
    if (apply(mapHas, this.memory, [buffer])) return apply(mapGet, this.memory, [buffer]) as ArrayBuffer;
    const copy = apply(abSlice, buffer, [0]) as ArrayBuffer;
    this.remember(buffer, copy);
    return copy;
  }

  cloneObject(object: object): unknown {
    if (isArray(object)) return this.cloneArray(object as unknown[]);
    if (branded(dateGetTime, object)) {
      const copy = new DateCtor(apply(dateGetTime, object, []) as number);
      this.remember(object, copy);
      return copy;
    }
    if (branded(regexpSource, object) && inherits(object, RegExpCtor.prototype)) {
      const copy = new RegExpCtor(apply(regexpSource, object, []) as string, apply(regexpFlags, object, []) as string);
      this.remember(object, copy);
      return copy;
    }
    if (branded(abByteLength, object)) return this.cloneBuffer(object as ArrayBuffer);
    const tag = apply(typedArrayTag, object, []) as string | undefined;
    if (tag !== undefined) {
      const Ctor = TYPED_ARRAYS[tag];
      if (Ctor === undefined) throw cannotClone(objectLabel(object));
      const buffer = this.cloneBuffer(apply(typedArrayBuffer, object, []) as ArrayBuffer);
      const copy = new Ctor(
        buffer,
        apply(typedArrayOffset, object, []) as number,
        apply(typedArrayLength, object, []) as number,
      );
      this.remember(object, copy);
      return copy;
    }
    if (branded(dataViewLength, object)) {
      const buffer = this.cloneBuffer(apply(dataViewBuffer, object, []) as ArrayBuffer);
      const copy = new DataViewCtor(
        buffer,
        apply(dataViewOffset, object, []) as number,
        apply(dataViewLength, object, []) as number,
      );
      this.remember(object, copy);
      return copy;
    }
    if (branded(mapSizeGetter, object)) {
      const copy = new MapCtor();
      this.remember(object, copy);
      const keys: unknown[] = [];
      const values: unknown[] = [];
      let count = 0;
      apply(mapForEach, object, [
        (item: unknown, key: unknown) => {
          define(keys, count, key);
          define(values, count, item);
          count++;
        },
      ]);
      for (let i = 0; i < count; i++) apply(mapSet, copy, [this.clone(keys[i]), this.clone(values[i])]);
      return copy;
    }
    if (branded(setSizeGetter, object)) {
      const copy = new SetCtor();
      this.remember(object, copy);
      const items: unknown[] = [];
      let count = 0;
      apply(setForEach, object, [
        (item: unknown) => {
          define(items, count, item);
          count++;
        },
      ]);
      for (let i = 0; i < count; i++) apply(setAdd, copy, [this.clone(items[i])]);
      return copy;
    }
    const wrapped = this.unwrapPrimitive(object);
    if (wrapped !== undefined) {
      this.remember(object, wrapped);
      return wrapped;
    }
    if (
      inherits(object, PromiseProto) ||
      inherits(object, IteratorProto) ||
      inherits(object, AsyncGeneratorProto) ||
      isIntlObject(object) ||
      branded(weakMapHas, object, [ObjectProto]) ||
      branded(weakSetHas, object, [ObjectProto]) ||
      branded(weakRefDeref, object) ||
      branded(symbolValueOf, object)
    ) {
      throw cannotClone(objectLabel(object));
    }
    if (inherits(object, ErrorProto)) return this.cloneError(object);
    return this.clonePlain(object);
  }

  unwrapPrimitive(object: object): object | undefined {
    if (branded(booleanValueOf, object)) return ObjectWrap(apply(booleanValueOf, object, []));
    if (branded(numberValueOf, object)) return ObjectWrap(apply(numberValueOf, object, []));
    if (branded(stringValueOf, object)) return ObjectWrap(apply(stringValueOf, object, []));
    if (branded(bigintValueOf, object)) return ObjectWrap(apply(bigintValueOf, object, []));
    return undefined;
  }

  cloneError(error: object): unknown {
    const name = (error as { name?: unknown }).name;
    const Ctor = (typeof name === 'string' ? ERROR_CTORS[name] : undefined) ?? Error;
    const copy = create(Ctor.prototype) as Record<string, unknown>;
    this.remember(error, copy);
    const stack = (error as { stack?: unknown }).stack;
    if (typeof stack === 'string') defineProperty(copy, 'stack', { value: stack, writable: true, configurable: true });
    const message = getOwnPropertyDescriptor(error, 'message');
    if (message !== undefined && apply(hasOwn, message, ['value'])) {
      defineProperty(copy, 'message', { value: '' + (message.value as string), writable: true, configurable: true });
    }
    if (apply(hasOwn, error, ['cause'])) {
      defineProperty(copy, 'cause', {
        value: this.clone((error as { cause?: unknown }).cause),
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }

  cloneArray(array: unknown[]): unknown {
    const copy = new ArrayCtor(array.length);
    this.remember(array, copy);
    const keys = objectKeys(array);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      define(copy, key, this.clone((array as unknown as Record<string, unknown>)[key]));
    }
    return copy;
  }

  clonePlain(object: object): unknown {
    const copy = {};
    this.remember(object, copy);
    const keys = objectKeys(object);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const value = (object as Record<string, unknown>)[key];
      define(copy, key, this.clone(value));
    }
    return copy;
  }
}

/** The ArrayBuffers to transfer (checked); they are detached once the value is cloned. */
function transferList(options: unknown): Record<number, ArrayBuffer> {
  const list = create(null) as Record<number, ArrayBuffer>;
  if (options === undefined || options === null) return list;
  if (typeof options !== 'object' && typeof options !== 'function') {
    throw new TypeErrorCtor("Failed to execute 'structuredClone': Options cannot be converted to a dictionary");
  }
  const transfer = (options as { transfer?: unknown }).transfer;
  if (transfer === undefined) return list;
  if (
    transfer === null ||
    typeof transfer !== 'object' ||
    typeof (transfer as Iterable<unknown>)[Symbol.iterator] !== 'function'
  ) {
    throw new TypeErrorCtor(
      "Failed to execute 'structuredClone': transfer in Options cannot be converted to a sequence.",
    );
  }
  let index = 0;
  for (const item of transfer as Iterable<unknown>) {
    if (item === null || typeof item !== 'object') {
      throw new TypeErrorCtor(
        "Failed to execute 'structuredClone': transfer in Options[" + index + '] is not an object.',
      );
    }
    if (!branded(abByteLength, item) || abTransfer === undefined) throw cannotClone(objectLabel(item));
    for (let i = 0; i < index; i++) {
      if (list[i] === item) throw new DOMException('ArrayBuffer is duplicated in transfer list', 'DataCloneError');
    }
    list[index] = item as ArrayBuffer;
    index++;
  }
  return list;
}

export function structuredClone(value: unknown, options?: unknown): unknown {
  // biome-ignore lint/complexity/noArguments: how many arguments were passed is observable (as in Node)
  if (arguments.length === 0) throw missingArgs('The value argument must be specified');
  const transfer = transferList(options);
  const copy = new Cloner().clone(value);
  for (let i = 0; transfer[i] !== undefined; i++) apply(abTransfer as () => ArrayBuffer, transfer[i], []);
  return copy;
}
