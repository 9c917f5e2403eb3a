// AbortController and AbortSignal (abort, timeout, any) as Node has them. Code inside
// the prelude follows a signal through `onSignalAbort`, which the program cannot stop
// (it is not an event listener).
import { apply, create, defineProperty } from './intrinsics.ts';
import { DOMException } from './dom-exception.ts';
import { dispatchTrusted, EventTarget, linkSignals } from './event-target.ts';
import { invalidArgType, nodeTypeError, outOfRange, received } from './node-errors.ts';
import { startTimer } from './timers.ts';
import { reportUncaught } from './uncaught.ts';

const CONSTRUCTING = create(null) as object;
let constructing = false;

type EventHandler = ((this: AbortSignal, event: unknown) => unknown) | null;

export class AbortSignal extends EventTarget {
  #aborted = false;
  #reason: unknown = undefined;
  #algorithms: (() => void)[] = [];
  #dependents: AbortSignal[] = [];
  #onabort: EventHandler = null;
  #handlerInstalled = false;

  constructor(token?: unknown) {
    if (!constructing || token !== CONSTRUCTING) throw nodeTypeError('ERR_ILLEGAL_CONSTRUCTOR', 'Illegal constructor');
    constructing = false;
    super();
  }
  get aborted(): boolean {
    return this.#aborted;
  }
  get reason(): unknown {
    return this.#reason;
  }
  throwIfAborted(): void {
    if (this.#aborted) throw this.#reason;
  }
  get onabort(): EventHandler {
    return this.#onabort;
  }
  set onabort(handler: EventHandler) {
    this.#onabort = typeof handler === 'function' ? handler : null;
    if (this.#onabort !== null && !this.#handlerInstalled) {
      this.#handlerInstalled = true;
      this.addEventListener('abort', (event: unknown) => {
        const current = this.#onabort;
        if (current !== null) apply(current, this, [event]);
      });
    }
  }

  static abort(reason?: unknown): AbortSignal {
    const signal = newSignal();
    signal.#aborted = true;
    signal.#reason = reason === undefined ? abortError() : reason;
    return signal;
  }

  static timeout(delay: number): AbortSignal {
    if (typeof delay !== 'number') throw invalidArgType('delay', 'of type number', delay);
    if (!(delay >= 0 && delay <= 4294967295) || delay !== Math.floor(delay)) {
      throw outOfRange('delay', delay === Math.floor(delay) ? '>= 0 && <= 4294967295' : 'an integer', delay);
    }
    const signal = newSignal();
    startTimer(
      () => {
        AbortSignal.signalAbort(signal, new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
      },
      delay,
      [],
      false,
    ).unref();
    return signal;
  }

  static any(signals: Iterable<AbortSignal>): AbortSignal {
    if (
      signals === null ||
      typeof signals !== 'object' ||
      typeof (signals as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function'
    ) {
      throw nodeTypeError('ERR_INVALID_ARG_TYPE', 'signals cannot be converted to sequence.');
    }
    const list: AbortSignal[] = [];
    let index = 0;
    for (const signal of signals) {
      if (!(signal instanceof AbortSignal)) {
        throw nodeTypeError(
          'ERR_INVALID_ARG_TYPE',
          'The "signals[' + index + ']" argument must be an instance of AbortSignal.',
        );
      }
      defineProperty(list, list.length, { value: signal, writable: true, enumerable: true, configurable: true });
      index++;
    }
    const result = newSignal();
    for (let i = 0; i < list.length; i++) {
      const source = list[i] as AbortSignal;
      if (source.#aborted) {
        result.#aborted = true;
        result.#reason = source.#reason;
        return result;
      }
    }
    for (let i = 0; i < list.length; i++) {
      const source = list[i] as AbortSignal;
      defineProperty(source.#dependents, source.#dependents.length, {
        value: result,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
    return result;
  }

  /** Internal: aborts `signal` with `reason` (the spec's "signal abort"). */
  static signalAbort(signal: AbortSignal, reason: unknown): void {
    if (signal.#aborted) return;
    signal.#aborted = true;
    signal.#reason = reason === undefined ? abortError() : reason;
    const algorithms = signal.#algorithms;
    signal.#algorithms = [];
    for (let i = 0; i < algorithms.length; i++) {
      try {
        (algorithms[i] as () => void)();
      } catch (error) {
        reportUncaught(error);
      }
    }
    dispatchTrusted(signal, 'abort');
    const dependents = signal.#dependents;
    signal.#dependents = [];
    for (let i = 0; i < dependents.length; i++) AbortSignal.signalAbort(dependents[i] as AbortSignal, signal.#reason);
  }

  /** Internal: runs `fn` once when `signal` aborts (not a listener: the program cannot stop it). */
  static onAbort(signal: AbortSignal, fn: () => void): void {
    if (signal.#aborted) return;
    defineProperty(signal.#algorithms, signal.#algorithms.length, {
      value: fn,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
}
defineProperty(AbortSignal.prototype, Symbol.toStringTag, { value: 'AbortSignal', configurable: true });

function newSignal(): AbortSignal {
  constructing = true;
  try {
    return new AbortSignal(CONSTRUCTING);
  } finally {
    constructing = false;
  }
}

function abortError(): DOMException {
  return new DOMException('This operation was aborted', 'AbortError');
}

export class AbortController {
  #signal: AbortSignal = newSignal();
  get signal(): AbortSignal {
    return this.#signal;
  }
  abort(reason?: unknown): void {
    AbortSignal.signalAbort(this.#signal, reason);
  }
}
defineProperty(AbortController.prototype, Symbol.toStringTag, { value: 'AbortController', configurable: true });

linkSignals(
  (signal) => {
    if (!(signal instanceof AbortSignal)) {
      throw nodeTypeError(
        'ERR_INVALID_ARG_TYPE',
        'The "options.signal" property must be an instance of AbortSignal.' + received(signal),
      );
    }
    return signal.aborted;
  },
  (signal, fn) => {
    AbortSignal.onAbort(signal as AbortSignal, fn);
  },
);

/** True for a real AbortSignal (for tools.x(args, { signal })). */
export function isAbortSignal(value: unknown): value is AbortSignal {
  return value instanceof AbortSignal;
}
