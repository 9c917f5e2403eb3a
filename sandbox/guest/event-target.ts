// Event and EventTarget as far as AbortSignal needs them (no DOM tree: an event is
// dispatched at its target only), behaving as Node's: listeners run in the order added,
// a listener is added once per (type, callback, capture), `once` and `signal` options,
// handleEvent objects, stopImmediatePropagation. A listener that throws is an uncaught
// exception (in Node it ends the process; here it ends the run).
import { apply, create, defineProperty } from './intrinsics.ts';
import { missingArgs, nodeTypeError } from './node-errors.ts';
import { performanceNow } from './performance.ts';
import { reportUncaught } from './uncaught.ts';

const NONE = 0;
const AT_TARGET = 2;
let trustedDispatch = false;

export class Event {
  #type: string;
  #bubbles: boolean;
  #cancelable: boolean;
  #composed: boolean;
  #defaultPrevented = false;
  #stopped = false;
  #target: EventTarget | null = null;
  #current: EventTarget | null = null;
  #phase = NONE;
  #timeStamp: number;
  #trusted: boolean;
  #dispatching = false;

  constructor(type: string, options?: { bubbles?: boolean; cancelable?: boolean; composed?: boolean } | null) {
    // biome-ignore lint/complexity/noArguments: how many arguments were passed is observable (as in Node)
    if (arguments.length === 0) throw missingArgs('type');
    this.#type = '' + type;
    const init = options ?? {};
    this.#bubbles = !!init.bubbles;
    this.#cancelable = !!init.cancelable;
    this.#composed = !!init.composed;
    this.#timeStamp = performanceNow();
    this.#trusted = trustedDispatch;
  }
  get type(): string {
    return this.#type;
  }
  get target(): EventTarget | null {
    return this.#target;
  }
  get currentTarget(): EventTarget | null {
    return this.#current;
  }
  get srcElement(): EventTarget | null {
    return this.#target;
  }
  get eventPhase(): number {
    return this.#phase;
  }
  get bubbles(): boolean {
    return this.#bubbles;
  }
  get cancelable(): boolean {
    return this.#cancelable;
  }
  get composed(): boolean {
    return this.#composed;
  }
  get defaultPrevented(): boolean {
    return this.#cancelable && this.#defaultPrevented;
  }
  get returnValue(): boolean {
    return !this.defaultPrevented;
  }
  get timeStamp(): number {
    return this.#timeStamp;
  }
  get isTrusted(): boolean {
    return this.#trusted;
  }
  get cancelBubble(): boolean {
    return this.#stopped;
  }
  set cancelBubble(value: boolean) {
    if (value) this.#stopped = true;
  }
  preventDefault(): void {
    this.#defaultPrevented = true;
  }
  stopPropagation(): void {
    // Nothing propagates past the target here.
  }
  stopImmediatePropagation(): void {
    this.#stopped = true;
  }
  composedPath(): EventTarget[] {
    return this.#dispatching && this.#target !== null ? [this.#target] : [];
  }
  initEvent(type: string, bubbles?: boolean, cancelable?: boolean): void {
    if (this.#dispatching) return;
    this.#type = '' + type;
    this.#bubbles = !!bubbles;
    this.#cancelable = !!cancelable;
  }
  /** Internal: starts a dispatch at `target`; false if the event is being dispatched already. */
  static begin(event: Event, target: EventTarget): boolean {
    if (event.#dispatching) return false;
    event.#dispatching = true;
    event.#stopped = false;
    event.#target = target;
    event.#current = target;
    event.#phase = AT_TARGET;
    return true;
  }
  static stopped(event: Event): boolean {
    return event.#stopped;
  }
  static end(event: Event): void {
    event.#dispatching = false;
    event.#current = null;
    event.#phase = NONE;
  }
}
const PHASES = ['NONE', 'CAPTURING_PHASE', 'AT_TARGET', 'BUBBLING_PHASE'];
for (let value = 0; value < PHASES.length; value++) {
  const name = PHASES[value] as string;
  defineProperty(Event, name, { value, enumerable: true });
  defineProperty(Event.prototype, name, { value, enumerable: true });
}
defineProperty(Event.prototype, Symbol.toStringTag, { value: 'Event', configurable: true });

type Listener = ((event: Event) => unknown) | { handleEvent(event: Event): unknown };

interface Registration {
  readonly callback: Listener;
  readonly capture: boolean;
  readonly once: boolean;
  removed: boolean;
}

interface ListenerOptions {
  capture?: boolean;
  once?: boolean;
  passive?: boolean;
  signal?: unknown;
}

function flatten(options: boolean | ListenerOptions | undefined | null): ListenerOptions {
  if (typeof options === 'boolean') return { capture: options };
  return options ?? {};
}

export class EventTarget {
  #listeners = create(null) as Record<string, Registration[] | undefined>;

  addEventListener(type: string, callback: Listener | null, options?: boolean | ListenerOptions): void {
    // biome-ignore lint/complexity/noArguments: how many arguments were passed is observable (as in Node)
    if (arguments.length < 2) throw missingArgs('type');
    if (callback === null || callback === undefined) return;
    if (typeof callback !== 'function' && (typeof callback !== 'object' || callback === null)) {
      throw nodeTypeError('ERR_INVALID_ARG_TYPE', 'The "listener" argument must be an instance of EventListener.');
    }
    const flat = flatten(options);
    const capture = !!flat.capture;
    const signal = flat.signal;
    if (signal !== undefined && isAbortedSignal(signal)) return;
    const key = '' + type;
    let list = this.#listeners[key];
    if (list === undefined) {
      list = [];
      this.#listeners[key] = list;
    }
    for (let i = 0; i < list.length; i++) {
      const entry = list[i] as Registration;
      if (entry.callback === callback && entry.capture === capture) return;
    }
    const registration: Registration = {
      __proto__: null,
      callback,
      capture,
      once: !!flat.once,
      removed: false,
    } as Registration;
    defineProperty(list, list.length, { value: registration, writable: true, enumerable: true, configurable: true });
    if (signal !== undefined) {
      whenAborted(signal, () => {
        this.removeEventListener(key, callback, { capture });
      });
    }
  }

  removeEventListener(type: string, callback: Listener | null, options?: boolean | ListenerOptions): void {
    const list = this.#listeners['' + type];
    if (list === undefined || callback === null || callback === undefined) return;
    const capture = !!flatten(options).capture;
    for (let i = 0; i < list.length; i++) {
      const entry = list[i] as Registration;
      if (entry.callback === callback && entry.capture === capture) {
        entry.removed = true;
        const rest = create(null) as Record<number, Registration>;
        let count = 0;
        for (let j = 0; j < list.length; j++) if (j !== i) rest[count++] = list[j] as Registration;
        list.length = 0;
        for (let j = 0; j < count; j++) {
          defineProperty(list, j, { value: rest[j], writable: true, enumerable: true, configurable: true });
        }
        return;
      }
    }
  }

  dispatchEvent(event: Event): boolean {
    if (!(event instanceof Event)) {
      throw nodeTypeError('ERR_INVALID_ARG_TYPE', 'The "event" argument must be an instance of Event.');
    }
    if (!Event.begin(event, this)) {
      throw nodeTypeError('ERR_EVENT_RECURSION', 'The event "' + event.type + '" is already being dispatched');
    }
    try {
      const list = this.#listeners[event.type];
      if (list !== undefined) {
        const snapshot = create(null) as Record<number, Registration>;
        const count = list.length;
        for (let i = 0; i < count; i++) snapshot[i] = list[i] as Registration;
        for (let i = 0; i < count; i++) {
          const entry = snapshot[i] as Registration;
          if (entry.removed) continue;
          if (entry.once) this.removeEventListener(event.type, entry.callback, { capture: entry.capture });
          try {
            const callback = entry.callback;
            if (typeof callback === 'function') apply(callback, this, [event]);
            else {
              const handle = callback.handleEvent;
              if (typeof handle === 'function') apply(handle, callback, [event]);
            }
          } catch (error) {
            reportUncaught(error);
          }
          if (Event.stopped(event)) break;
        }
      }
    } finally {
      Event.end(event);
    }
    return !event.defaultPrevented;
  }
}
defineProperty(EventTarget.prototype, Symbol.toStringTag, { value: 'EventTarget', configurable: true });

/** Dispatches an event the platform made (isTrusted is true). */
export function dispatchTrusted(target: EventTarget, type: string): void {
  trustedDispatch = true;
  let event: Event;
  try {
    event = new Event(type);
  } finally {
    trustedDispatch = false;
  }
  target.dispatchEvent(event);
}

// Set by abort.ts (which imports this file): how `signal` options are followed.
let isAbortedSignal: (signal: unknown) => boolean = () => false;
let whenAborted: (signal: unknown, fn: () => void) => void = () => undefined;

export function linkSignals(
  aborted: (signal: unknown) => boolean,
  onAbort: (signal: unknown, fn: () => void) => void,
): void {
  isAbortedSignal = aborted;
  whenAborted = onAbort;
}
