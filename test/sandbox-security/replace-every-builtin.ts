// A program prelude for hostile-program tests: before the code under test runs, it
// replaces every built-in a program can reach by a recorder. Each global binding becomes a
// recording Proxy. Every replaceable function-valued property (with `reads`, every
// configurable data property) and accessor of each global, of its prototype and of the
// intrinsic prototypes no global names becomes a recording wrapper of the original. The
// holders and keys are whatever this engine has (a newer V8 has more). The text declares
// what the code after it may use: `hits` (what was recorded while `armed`), `armed`,
// `replaced` (how many were replaced), and the originals `apply`, `construct`, `ownKeys`,
// `get`, `describe`, `define`, `protoOf`, `ProxyCtor`, `toText`.
import { bareContextGlobals, WEB_GLOBALS } from '../sandbox/bare-context-globals.ts';

export type Replacement = 'calls' | 'reads';

// Globals whose reading would start a lazy load itself (URL, crypto, performance), or that
// nothing can reach through (globalThis).
const NOT_REPLACED = new Set(['URL', 'URLSearchParams', 'globalThis', 'crypto', 'performance']);
const REPLACED_GLOBALS = [...bareContextGlobals().names, ...WEB_GLOBALS].filter((name) => !NOT_REPLACED.has(name));

/** The program text that replaces them all (`reads`: data properties record their reads too). */
export function replaceEveryBuiltin(replacement: Replacement): string {
  return `
  const apply = Reflect.apply, construct = Reflect.construct, ownKeys = Reflect.ownKeys;
  const describe = Object.getOwnPropertyDescriptor, define = Object.defineProperty, protoOf = Object.getPrototypeOf;
  const ProxyCtor = Proxy, get = Reflect.get, toText = String;
  const hits: string[] = [];
  let armed = false;
  let replaced = 0;
  const holders: [string, any][] = [];
  const names: string[] = ${JSON.stringify(REPLACED_GLOBALS)};
  for (let i = 0; i < names.length; i++) {
    const value = (globalThis as any)[names[i]];
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null) continue;
    holders[holders.length] = [names[i], value];
    const prototype = typeof value === 'function' ? describe(value, 'prototype')?.value : undefined;
    if (prototype !== undefined && prototype !== null) holders[holders.length] = [names[i] + '.prototype', prototype];
  }
  const typed = protoOf(Uint8Array.prototype);
  const iteratorOf = (value: any) => protoOf(value[Symbol.iterator]());
  const intrinsic: [string, any][] = [
    ['%TypedArray%', protoOf(Uint8Array)], ['%TypedArray%.prototype', typed],
    ['%ArrayIteratorPrototype%', iteratorOf([])], ['%StringIteratorPrototype%', iteratorOf('')],
    ['%SetIteratorPrototype%', iteratorOf(new Set())], ['%MapIteratorPrototype%', iteratorOf(new Map())],
    ['%IteratorPrototype%', protoOf(iteratorOf([]))], ['%RegExpStringIteratorPrototype%', protoOf('a'.matchAll(/a/g))],
  ];
  for (let i = 0; i < intrinsic.length; i++) holders[holders.length] = intrinsic[i];
  const recorder = (label: string, original: any) => function (this: any, ...args: any[]) {
    if (armed) hits[hits.length] = label;
    return new.target ? construct(original, args, new.target) : apply(original, this, args);
  };
  const seen = new Set();
  for (let h = 0; h < holders.length; h++) {
    const [holderName, holder] = holders[h];
    if (seen.has(holder)) continue;
    seen.add(holder);
    const keys = ownKeys(holder);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k];
      if (key === 'constructor' || key === 'prototype' || key === 'caller' || key === 'arguments') continue;
      const d = describe(holder, key)!;
      const label = holderName + '.' + toText(key);
      if ('value' in d && ${JSON.stringify(replacement)} === 'reads' && d.configurable) {
        const value = typeof d.value === 'function' ? recorder(label, d.value) : d.value;
        define(holder, key, {
          configurable: true,
          enumerable: d.enumerable,
          get() { if (armed) hits[hits.length] = label + ' (read)'; return value; },
          // Assigning the name to an object that inherits it still makes an own property.
          set(this: any, next: unknown) { define(this, key, { value: next, writable: true, enumerable: true, configurable: true }); },
        });
        replaced++;
      } else if ('value' in d) {
        if (typeof d.value !== 'function' || (!d.writable && !d.configurable)) continue;
        if (d.configurable) define(holder, key, { ...d, value: recorder(label, d.value) });
        else holder[key] = recorder(label, d.value);
        replaced++;
      } else if (d.configurable) {
        define(holder, key, {
          ...d,
          get: d.get && recorder(label + ' (get)', d.get),
          set: d.set && recorder(label + ' (set)', d.set),
        });
        replaced++;
      }
    }
  }
  for (let i = 0; i < holders.length; i++) {
    const [name, value] = holders[i];
    if (name.endsWith('.prototype') || name.startsWith('%')) continue;
    const d = describe(globalThis, name);
    if (d === undefined || !('value' in d) || !d.configurable) continue;
    define(globalThis, name, { ...d, value: new ProxyCtor(value, {
      get: (target: any, key: any) => { if (armed) hits[hits.length] = 'global ' + name + '.' + toText(key); return get(target, key); },
      apply: (target: any, self: any, args: any) => { if (armed) hits[hits.length] = 'global ' + name + '()'; return apply(target, self, args); },
      construct: (target: any, args: any, newTarget: any) => { if (armed) hits[hits.length] = 'new ' + name; return construct(target, args, newTarget); },
    }) });
    replaced++;
  }
`;
}
