// Records the prelude builds on every call (a pending call, a queued one, a serializer's
// state) are instances of classes made here: their chain ends in a frozen prototype of
// their own with no prototype, so a program that pollutes Object.prototype reaches them
// no more than a `{ __proto__: null }` literal, and V8 keeps them in fast mode (such a
// literal is a dictionary: slower to build, read and collect, on every call).
import { freeze, setPrototypeOf } from './intrinsics.ts';

/** Cuts `ctor.prototype` off Object.prototype and freezes it (no `constructor` left on it). */
export function bareRecordClass(ctor: abstract new (...args: never[]) => object): void {
  const proto = ctor.prototype as { constructor?: unknown };
  setPrototypeOf(proto, null);
  delete proto.constructor;
  freeze(proto);
}
