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

/** Installs the globals on the guest's global object (once, before any program). */
export function installWebGlobals(scope: Record<string, unknown>): void {
  const functions: Record<string, unknown> = {
    setTimeout,
    clearTimeout,
    setInterval,
    clearInterval,
    queueMicrotask,
    structuredClone: structuredClone_,
    atob,
    btoa,
  };
  for (const name in functions) {
    defineProperty(scope, name, { value: functions[name], writable: true, enumerable: true, configurable: true });
  }
  defineProperty(atob, 'length', { value: 1, configurable: true });
  defineProperty(btoa, 'length', { value: 1, configurable: true });
  const classes: Record<string, unknown> = {
    TextEncoder,
    TextDecoder,
    AbortController,
    AbortSignal,
    EventTarget,
    Event,
    DOMException,
    Crypto,
    SubtleCrypto,
    Performance,
  };
  for (const name in classes) {
    defineProperty(scope, name, { value: classes[name], writable: true, enumerable: false, configurable: true });
  }
  installUrl(scope);
  for (const [name, value] of [
    ['crypto', makeCrypto()],
    ['performance', makePerformance()],
  ] as const) {
    let current: unknown = value;
    defineProperty(scope, name, {
      get: () => current,
      set: (next: unknown) => {
        current = next;
      },
      enumerable: true,
      configurable: true,
    });
  }
}
