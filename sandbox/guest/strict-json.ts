// Strict, lossless JSON of tool arguments and the returned value: no toJSON conversions,
// no getters, no class instances, no holes, nothing JSON would drop (extra array
// properties, non-enumerable or symbol-keyed properties); -0 is written as -0. What
// crosses is exactly the plain data the program built, or a problem naming where.
import {
  apply,
  cut,
  getOwnPropertyDescriptor,
  getOwnPropertyNames,
  getOwnPropertySymbols,
  getPrototypeOf,
  hasOwn,
  isArray,
  isFiniteNumber,
  NumberCtor,
  objectIs,
  ObjectProto,
  isEnumerableOwn,
  stringify,
} from './intrinsics.ts';
import { bareRecordClass } from './bare-record.ts';
import { protoLabel } from './format-value.ts';

/** Why a value cannot cross (thrown as a null-prototype record, never as an Error). */
export interface Problem {
  readonly isProblem: true;
  readonly reason: string;
  readonly tooLarge: boolean;
  path: string;
}

function problem(reason: string, tooLarge: boolean): Problem {
  return { __proto__: null, isProblem: true, reason, tooLarge, path: '' } as Problem;
}

export function isProblem(error: unknown): error is Problem {
  return (
    error !== null &&
    typeof error === 'object' &&
    getPrototypeOf(error) === null &&
    (error as { isProblem?: unknown }).isProblem === true
  );
}

// Made on first use (only a problem's path needs it): a literal costs ~7 us a fresh isolate.
let identifier: RegExp | undefined;

function pathSegment(key: string | number): string {
  if (typeof key === 'number') return '[' + key + ']';
  identifier ??= /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  return identifier.exec(key) !== null ? '.' + key : '[' + stringify(key) + ']';
}

/** What ownData returns for a property that is not there (never a value a program can hold). */
const MISSING: unique symbol = Symbol('missing');

const VALUE_KEY: readonly string[] = ['value'];

function ownData(value: object, key: string): unknown {
  const descriptor = getOwnPropertyDescriptor(value, key);
  if (descriptor === undefined) return MISSING;
  // Own-property checks only: Object.prototype may have been polluted by the program.
  if (!apply(hasOwn, descriptor, VALUE_KEY))
    throw problem('an accessor property (getter/setter); JSON has only plain values', false);
  // A Proxy can answer a read differently from its own data: send neither.
  if (!objectIs((value as Record<string, unknown>)[key], descriptor.value))
    throw problem('an object whose reads disagree with its own data (a Proxy?)', false);
  return descriptor.value;
}

const NAME_ARG: string[] = [''];

// JSON carries only the enumerable string-keyed data of a plain object, and only the
// elements of an array: anything else on them would be dropped, so it is refused. For a
// plain object, its names (all enumerable, so its keys in order).
function checkNothingHidden(value: object): readonly string[] {
  if (getOwnPropertySymbols(value).length > 0) throw problem('a symbol-keyed property, which JSON cannot carry', false);
  const names = getOwnPropertyNames(value);
  if (isArray(value)) {
    if (names.length === value.length + 1) return names;
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      const index = NumberCtor(name);
      if (name !== 'length' && !(name === '' + index && index >= 0 && index < value.length)) {
        throw problem(
          'an array with an extra property ' + stringify(cut(name, 100)) + ', which JSON cannot carry',
          false,
        );
      }
    }
    return names;
  }
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    NAME_ARG[0] = name;
    if (!apply(isEnumerableOwn, value, NAME_ARG)) {
      throw problem('a non-enumerable property ' + stringify(cut(name, 100)) + ', which JSON cannot carry', false);
    }
  }
  return names;
}

class SerializeState {
  size = 0;
  readonly budget: number;
  constructor(budget: number) {
    this.budget = budget;
  }
}
bareRecordClass(SerializeState);

/** An object on the path being written, and the one holding it (a cycle returns to one of them). */
class Ancestor {
  readonly object: object;
  readonly up: Ancestor | undefined;
  constructor(object: object, up: Ancestor | undefined) {
    this.object = object;
    this.up = up;
  }
}
bareRecordClass(Ancestor);

// Long: one case per kind of value JSON can hold, in the order JSON.stringify tests them,
// so the cases can be checked against the standard side by side.
function serialize(value: unknown, state: SerializeState, depth: number, up: Ancestor | undefined): string | undefined {
  if (typeof value === 'string') {
    const text = stringify(value);
    state.size += text.length;
    if (state.size > state.budget) throw problem('', true);
    return text;
  }
  if (typeof value === 'number') {
    if (!isFiniteNumber(value)) throw problem('a non-finite number (' + value + ')', false);
    // JSON text can carry -0 (JSON.parse reads it back), though JSON.stringify writes 0.
    const text = value === 0 && 1 / value < 0 ? '-0' : stringify(value);
    state.size += text.length;
    return text;
  }
  if (typeof value === 'boolean') {
    state.size += value ? 4 : 5;
    return value ? 'true' : 'false';
  }
  if (value === undefined) return undefined;
  if (typeof value === 'bigint') throw problem('a BigInt (convert it with String or Number)', false);
  if (typeof value === 'symbol') throw problem('a symbol', false);
  if (typeof value === 'function') throw problem('a function', false);
  if (value === null) {
    state.size += 4;
    return 'null';
  }
  const object = value as object;
  for (let a = up; a !== undefined; a = a.up) if (a.object === object) throw problem('a circular reference', false);
  if (depth >= 256) throw problem('nesting deeper than 256 levels', false);
  const label = protoLabel(object);
  if (label !== undefined) throw problem(label, false);
  if (!isArray(object)) {
    const proto = getPrototypeOf(object) as object | null;
    if (proto !== ObjectProto && proto !== null)
      throw problem('an instance of a class (only plain objects and arrays are JSON)', false);
  }
  const names = checkNothingHidden(object);
  const self = new Ancestor(object, up);
  let out: string;
  let current: string | number | undefined;
  try {
    if (isArray(object)) {
      out = '[';
      state.size += 2;
      const length = object.length;
      for (let i = 0; i < length; i++) {
        current = i;
        const slot = ownData(object, '' + i);
        if (slot === MISSING) throw problem('an array hole (JSON arrays have no holes)', false);
        const item = serialize(slot, state, depth + 1, self);
        if (item === undefined) throw problem('undefined (JSON has no undefined; use null)', false);
        out += (i === 0 ? '' : ',') + item;
        if (i > 0) state.size += 1;
        if (state.size > state.budget) throw problem('', true);
      }
      out += ']';
    } else {
      out = '{';
      state.size += 2;
      const keys = names;
      let first = true;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string;
        current = key;
        const slot = ownData(object, key);
        if (slot === MISSING) continue;
        const item = serialize(slot, state, depth + 1, self);
        if (item === undefined) continue;
        const quoted = stringify(key);
        out += (first ? '' : ',') + quoted + ':' + item;
        state.size += quoted.length + (first ? 1 : 2);
        first = false;
        if (state.size > state.budget) throw problem('', true);
      }
      out += '}';
    }
  } catch (error) {
    if (isProblem(error) && current !== undefined && !error.tooLarge) error.path = pathSegment(current) + error.path;
    throw error;
  }
  return out;
}

/** JSON text of `value` (undefined for undefined); throws a Problem when it cannot cross as it is, or is over `budget` characters. */
export function toJson(value: unknown, budget: number): string | undefined {
  return serialize(value, new SerializeState(budget), 0, undefined);
}
