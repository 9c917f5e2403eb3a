// Memory outside the V8 heap, which isolated-vm's heap limit does not see: closed off
// (Wasm, shared memory, Intl.Segmenter and Intl.Locale) or charged to the run's budget
// (resizable ArrayBuffers, every other Intl object); over budget, the run fails (memory).
import {
  apply,
  ArrayBufferCtor,
  arrayBufferProto,
  construct,
  defineProperty,
  getOwnPropertyDescriptor,
  getOwnPropertyNames,
  NumberCtor,
  RangeErrorCtor,
  TypeErrorCtor,
} from './intrinsics.ts';
import { fatal, run } from './run-state.ts';

function chargeOffHeap(bytes: number, what: string, advice: string): void {
  if (bytes > run.offHeapLeft) {
    const message =
      what +
      ' is over the sandbox budget for memory outside the heap (' +
      run.offHeapLeft +
      ' of ' +
      run.offHeapTotal +
      ' bytes left)' +
      advice;
    fatal('memory', message);
    throw new RangeErrorCtor(message);
  }
  if (bytes > 0) run.offHeapLeft -= bytes;
}

function guardArrayBuffer(scope: Record<string, unknown>): void {
  const SandboxArrayBuffer = function (this: unknown, length: number, options?: unknown): ArrayBuffer {
    if (new.target === undefined) throw new TypeErrorCtor("Constructor ArrayBuffer requires 'new'");
    if (options !== null && (typeof options === 'object' || typeof options === 'function')) {
      const requested = (options as { maxByteLength?: unknown }).maxByteLength;
      if (requested !== undefined) {
        const max = NumberCtor(requested);
        chargeOffHeap(max, 'new ArrayBuffer(..., { maxByteLength: ' + max + ' })', '');
        return construct(ArrayBufferCtor, [length, { maxByteLength: max }], new.target) as ArrayBuffer;
      }
    }
    return construct(ArrayBufferCtor, [length], new.target) as ArrayBuffer;
  };
  defineProperty(SandboxArrayBuffer, 'prototype', { value: arrayBufferProto, writable: false });
  defineProperty(SandboxArrayBuffer, 'name', { value: 'ArrayBuffer', configurable: true });
  defineProperty(SandboxArrayBuffer, 'isView', { value: ArrayBufferCtor.isView, writable: true, configurable: true });
  const species = getOwnPropertyDescriptor(ArrayBufferCtor, Symbol.species);
  if (species !== undefined) defineProperty(SandboxArrayBuffer, Symbol.species, species);
  defineProperty(arrayBufferProto, 'constructor', { value: SandboxArrayBuffer, writable: true, configurable: true });
  defineProperty(scope, 'ArrayBuffer', { value: SandboxArrayBuffer, writable: true, configurable: true });
}

// Intl: the formatting classes stay, each charged for the ICU memory it owns (bytes
// measured on V8 12, rounded up), so a program that keeps hundreds of thousands of them
// fails with memory instead of filling gigabytes behind a small heap. Segmenter and Locale
// are removed: Segmenter#segment() copies its whole input into ICU memory and
// Locale#maximize() makes new ICU objects without a constructor call, neither of which a
// per-construction charge can see; a program has little use for either.
const INTL_REMOVED: readonly string[] = ['Segmenter', 'Locale'];
const INTL_COSTS: Readonly<Record<string, number>> = {
  __proto__: null,
  DateTimeFormat: 28672,
  RelativeTimeFormat: 9216,
  PluralRules: 3072,
  Collator: 2048,
  DisplayNames: 2048,
  NumberFormat: 2048,
  ListFormat: 1024,
} as unknown as Readonly<Record<string, number>>;
const INTL_ADVICE = ' (create one Intl object and reuse it)';

type IntlClass = ((...args: unknown[]) => unknown) & { readonly prototype: object };

function guardIntl(intl: Record<string, unknown>): void {
  for (let i = 0; i < INTL_REMOVED.length; i++) delete intl[INTL_REMOVED[i] as string];
  const names = getOwnPropertyNames(intl);
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const Original = intl[name] as IntlClass;
    if (typeof Original !== 'function' || typeof Original.prototype !== 'object') continue;
    const cost = INTL_COSTS[name] ?? 8192;
    const label = 'new Intl.' + name + '()';
    const Wrapped = function (this: unknown, ...args: unknown[]): unknown {
      chargeOffHeap(cost, label, INTL_ADVICE);
      return new.target === undefined ? apply(Original, this, args) : construct(Original, args, new.target);
    };
    const keys = getOwnPropertyNames(Original);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k] as string;
      const descriptor = getOwnPropertyDescriptor(Original, key);
      if (key !== 'prototype' && descriptor !== undefined) defineProperty(Wrapped, key, descriptor);
    }
    defineProperty(Wrapped, 'prototype', { value: Original.prototype, writable: false });
    defineProperty(Original.prototype, 'constructor', { value: Wrapped, writable: true, configurable: true });
    defineProperty(intl, name, { value: Wrapped, writable: true, configurable: true });
  }
}

/** Installs the guards on the guest's global object (once, before the program). */
export function installOffHeapGuards(scope: Record<string, unknown>): void {
  guardArrayBuffer(scope);
  guardIntl(scope['Intl'] as Record<string, unknown>);
  delete scope['WebAssembly'];
  delete scope['SharedArrayBuffer'];
  delete scope['Atomics'];
}
