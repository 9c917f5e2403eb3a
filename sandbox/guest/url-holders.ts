// The objects whose properties the URL library's captures are taken from besides the
// globals it names and their prototypes: those of the intrinsics literals, iterators and
// typed arrays inherit from, by name (`Array.prototype`, `%TypedArray%.prototype`),
// resolved in the guest before any program (guest/url-intrinsics.ts).

/** Holders every library needs, whichever globals it names. */
export const INTRINSIC_HOLDERS: readonly string[] = [
  'Object.prototype',
  'Function.prototype',
  'Array.prototype',
  'String.prototype',
  'RegExp.prototype',
  'Map.prototype',
  'Set.prototype',
  '%TypedArray%.prototype',
  '%ArrayIteratorPrototype%',
  '%StringIteratorPrototype%',
  '%SetIteratorPrototype%',
  '%MapIteratorPrototype%',
  '%IteratorPrototype%',
];

const protoOf = Object.getPrototypeOf;
const describe = Object.getOwnPropertyDescriptor;

/** The object `path` names in `scope` (read at the time of the call), or undefined. */
export function resolveHolder(path: string, scope: Record<string, unknown>): object | undefined {
  const arrayIterator = (): object => protoOf([][Symbol.iterator]()) as object;
  switch (path) {
    case '%TypedArray%.prototype':
      return protoOf(Uint8Array.prototype) as object;
    case '%ArrayIteratorPrototype%':
      return arrayIterator();
    case '%StringIteratorPrototype%':
      return protoOf(''[Symbol.iterator]()) as object;
    case '%SetIteratorPrototype%':
      return protoOf(new Set().values()) as object;
    case '%MapIteratorPrototype%':
      return protoOf(new Map().entries()) as object;
    case '%IteratorPrototype%':
      return protoOf(arrayIterator()) as object;
  }
  const dot = path.indexOf('.prototype');
  const value = describe(scope, dot < 0 ? path : path.slice(0, dot))?.value as unknown;
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined;
  if (dot < 0) return value;
  const prototype = describe(value, 'prototype')?.value as unknown;
  // Function.prototype is itself a function.
  return (typeof prototype === 'object' && prototype !== null) || typeof prototype === 'function'
    ? prototype
    : undefined;
}
