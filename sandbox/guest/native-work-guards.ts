// Native work a program can start with one call and that the CPU budget cannot stop:
// V8 does not interrupt JSON.parse or the compilation of a regular expression, so a
// huge nested text or a huge alternation ran far past cpuTimeMs and grew the sandbox
// process far past memoryMb. Their inputs are bounded before the native call: JSON.parse
// text is scanned first (in JavaScript, which the budget does interrupt) and refused over
// MAX_JSON_PARSE_VALUES values or MAX_JSON_PARSE_DEPTH levels; a regular expression
// source over MAX_REGEXP_SOURCE_CHARS is refused wherever a program can compile one from
// a string (RegExp, RegExp.prototype.compile, String.prototype.match/matchAll/search).
import {
  apply,
  charCodeAt,
  construct,
  defineProperty,
  getOwnPropertyDescriptor,
  getOwnPropertyNames,
  RangeErrorCtor,
} from './intrinsics.ts';

/** Values (containers, array elements, members) one JSON.parse may build. */
export const MAX_JSON_PARSE_VALUES = 1_000_000;
/** Nesting one JSON.parse may build. */
export const MAX_JSON_PARSE_DEPTH = 10_000;
/** Characters of a regular expression's source compiled from a string. */
export const MAX_REGEXP_SOURCE_CHARS = 65_536;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Counts values and depth of JSON text outside strings; throws a RangeError over a bound. Invalid text is left to JSON.parse. */
function checkJsonText(text: string): void {
  let values = 1;
  let depth = 0;
  let inString = false;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = apply(charCodeAt, text, [i]) as number;
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      values++;
      if (depth > MAX_JSON_PARSE_DEPTH)
        throw new RangeErrorCtor(
          'JSON.parse: the text nests deeper than ' + MAX_JSON_PARSE_DEPTH + ' levels (MAX_JSON_PARSE_DEPTH)',
        );
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x2c) values++;
    if (values > MAX_JSON_PARSE_VALUES)
      throw new RangeErrorCtor(
        'JSON.parse: the text has more than ' +
          MAX_JSON_PARSE_VALUES +
          ' values (MAX_JSON_PARSE_VALUES); parse it in parts',
      );
  }
}

function guardJsonParse(json: Record<string, unknown>): void {
  const original = json['parse'] as (text: string, reviver?: unknown) => unknown;
  const parse = {
    parse(this: unknown, text: unknown, reviver?: unknown): unknown {
      // JSON.parse converts its argument to a string first; do it once, here.
      const source = `${text as string}`;
      checkJsonText(source);
      return apply(original, this, [source, reviver]);
    },
  }.parse;
  defineProperty(json, 'parse', { value: parse, writable: true, configurable: true });
}

function checkSource(pattern: unknown, where: string): void {
  let length: number;
  if (typeof pattern === 'string') length = pattern.length;
  else if (pattern !== null && typeof pattern === 'object')
    return; // a RegExp (its source was bounded) or an object with its own matcher
  else return;
  if (length > MAX_REGEXP_SOURCE_CHARS)
    throw new RangeErrorCtor(
      where +
        ': a regular expression source of ' +
        length +
        ' characters is longer than the ' +
        MAX_REGEXP_SOURCE_CHARS +
        ' this sandbox compiles (MAX_REGEXP_SOURCE_CHARS)',
    );
}

type Fn = (...args: unknown[]) => unknown;

function guardRegExp(scope: Record<string, unknown>): void {
  const Original = scope['RegExp'] as Fn & { readonly prototype: Record<string, unknown> };
  const proto = Original.prototype;
  const Wrapped = function (this: unknown, pattern?: unknown, flags?: unknown): unknown {
    checkSource(pattern, 'RegExp');
    return new.target === undefined
      ? apply(Original, this, [pattern, flags])
      : construct(Original, [pattern, flags], new.target);
  };
  const keys = getOwnPropertyNames(Original);
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k] as string;
    const descriptor = getOwnPropertyDescriptor(Original, key);
    if (key !== 'prototype' && descriptor !== undefined) defineProperty(Wrapped, key, descriptor);
  }
  const species = getOwnPropertyDescriptor(Original, Symbol.species);
  if (species !== undefined) defineProperty(Wrapped, Symbol.species, species);
  defineProperty(Wrapped, 'prototype', { value: proto, writable: false });
  defineProperty(proto, 'constructor', { value: Wrapped, writable: true, configurable: true });
  defineProperty(scope, 'RegExp', { value: Wrapped, writable: true, configurable: true });
  const compile = proto['compile'] as Fn | undefined;
  if (typeof compile === 'function') {
    const guarded = {
      compile(this: unknown, pattern?: unknown, flags?: unknown): unknown {
        checkSource(pattern, 'RegExp.prototype.compile');
        return apply(compile, this, [pattern, flags]);
      },
    }.compile;
    defineProperty(proto, 'compile', { value: guarded, writable: true, configurable: true });
  }
  // These compile a string argument into a regular expression with the original RegExp.
  const stringProto = String.prototype as unknown as Record<string, unknown>;
  const names = ['match', 'matchAll', 'search'];
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const method = stringProto[name] as Fn;
    const where = 'String.prototype.' + name;
    const guarded = {
      [name](this: unknown, pattern?: unknown): unknown {
        checkSource(pattern, where);
        return apply(method, this, [pattern]);
      },
    }[name] as Fn;
    defineProperty(guarded, 'length', { value: 1, configurable: true });
    defineProperty(stringProto, name, { value: guarded, writable: true, configurable: true });
  }
}

/** Installs the guards on the guest's global object (once, before the program). */
export function installNativeWorkGuards(scope: Record<string, unknown>): void {
  guardJsonParse(scope['JSON'] as Record<string, unknown>);
  guardRegExp(scope);
}
