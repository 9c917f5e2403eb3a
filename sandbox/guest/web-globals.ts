// The web-standard globals a program expects from a JavaScript runtime (see
// docs/guest-globals.md), with the property attributes Node gives them. Nothing here
// reaches the network, files or the host beyond the timer wake-up.
import { apply, defineProperty, PromiseCtor, promiseThen } from './intrinsics.ts';
import { AbortController, AbortSignal } from './abort.ts';
import { atob, btoa } from './base64.ts';
import { DOMException, QuotaExceededError } from './dom-exception.ts';
import { Event, EventTarget } from './event-target.ts';
import { invalidArgType } from './node-errors.ts';
import { makePerformance, Performance } from './performance.ts';
import { structuredClone } from './structured-clone.ts';
import { TextDecoder, TextEncoder } from './text-codec.ts';
import { clear, startTimer } from './timers.ts';
import { reportUncaught } from './uncaught.ts';
import { installUrl } from './url.ts';
import { Crypto, makeCrypto, SubtleCrypto } from './web-crypto.ts';

const PROMISE_RESOLVED: Promise<void> = new PromiseCtor<void>((resolve) => {
  resolve();
});

function setTimeout(callback: (...args: unknown[]) => unknown, delay?: unknown, ...args: unknown[]): unknown {
  return startTimer(callback, delay, args, false);
}
function setInterval(callback: (...args: unknown[]) => unknown, delay?: unknown, ...args: unknown[]): unknown {
  return startTimer(callback, delay, args, true);
}
function clearTimeout(timer?: unknown): void {
  clear(timer);
}
function clearInterval(timer?: unknown): void {
  clear(timer);
}
function queueMicrotask(callback: () => unknown): void {
  if (typeof callback !== 'function') throw invalidArgType('callback', 'of type function', callback);
  apply(promiseThen, PROMISE_RESOLVED, [
    () => {
      try {
        apply(callback, undefined, []);
      } catch (error) {
        reportUncaught(error);
      }
    },
  ]);
}
function structuredClone_(value: unknown, options?: unknown): unknown {
  // biome-ignore lint/complexity/noArguments: how many arguments were passed is observable (as in Node)
  return apply(structuredClone, undefined, arguments.length === 0 ? [] : [value, options]);
}
defineProperty(structuredClone_, 'name', { value: 'structuredClone', configurable: true });

/** Globals that only some Node lines have, installed once the run's config names the line. */
export function installNodeLineGlobals(scope: Record<string, unknown>, nodeMajor: number): void {
  if (nodeMajor >= 26) {
    defineProperty(scope, 'QuotaExceededError', {
      value: QuotaExceededError,
      writable: true,
      enumerable: false,
      configurable: true,
    });
  }
}

/** A global as Node has it: a writable, configurable data property. */
function define(scope: Record<string, unknown>, name: string, value: unknown, enumerable: boolean): void {
  defineProperty(scope, name, { value, writable: true, enumerable, configurable: true });
}

/**
 * A global behind a getter and a setter (as `crypto` and `performance` have always been), its
 * object made on the first read: most programs never touch it. Making it reads nothing
 * a program can replace (the class is the prelude's own, its constructor sets private
 * fields only), so the object is the same whenever it is made.
 */
function defineMadeOnRead(scope: Record<string, unknown>, name: string, make: () => unknown): void {
  let made = false;
  let current: unknown;
  defineProperty(scope, name, {
    get: () => {
      if (!made) {
        current = make();
        made = true;
      }
      return current;
    },
    set: (next: unknown) => {
      current = next;
      made = true;
    },
    enumerable: true,
    configurable: true,
  });
}

/** Installs the globals on the guest's global object (once, before any program). */
export function installWebGlobals(scope: Record<string, unknown>): void {
  // One call per global, in the order they always had (no object literal to walk with for-in).
  define(scope, 'setTimeout', setTimeout, true);
  define(scope, 'clearTimeout', clearTimeout, true);
  define(scope, 'setInterval', setInterval, true);
  define(scope, 'clearInterval', clearInterval, true);
  define(scope, 'queueMicrotask', queueMicrotask, true);
  define(scope, 'structuredClone', structuredClone_, true);
  define(scope, 'atob', atob, true);
  define(scope, 'btoa', btoa, true);
  defineProperty(atob, 'length', { value: 1, configurable: true });
  defineProperty(btoa, 'length', { value: 1, configurable: true });
  define(scope, 'TextEncoder', TextEncoder, false);
  define(scope, 'TextDecoder', TextDecoder, false);
  define(scope, 'AbortController', AbortController, false);
  define(scope, 'AbortSignal', AbortSignal, false);
  define(scope, 'EventTarget', EventTarget, false);
  define(scope, 'Event', Event, false);
  define(scope, 'DOMException', DOMException, false);
  define(scope, 'Crypto', Crypto, false);
  define(scope, 'SubtleCrypto', SubtleCrypto, false);
  define(scope, 'Performance', Performance, false);
  installUrl(scope);
  defineMadeOnRead(scope, 'crypto', makeCrypto);
  defineMadeOnRead(scope, 'performance', makePerformance);
}
