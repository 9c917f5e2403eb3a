// setTimeout/setInterval/clearTimeout/clearInterval as in Node. Timers live in a heap
// here; the host is only asked to wake the guest when the earliest one is due (one host
// timer per run, cleared when the run ends). Each wake fires one timer, as its own task
// crossing into the isolate from the host's event loop, so microtasks run between timers
// as in Node and a 0 ms interval cannot starve the host. A run holds at most
// MAX_PENDING_TIMERS timers; they all end with the run.
import { WAKE_NONE } from '../guest-protocol.ts';
import { post } from './host-link.ts';
import { apply, create, NumberCtor, RangeErrorCtor } from './intrinsics.ts';
import { advanceClockTo, clockNow, realNow } from './clock.ts';
import { invalidArgType } from './node-errors.ts';
import { run } from './run-state.ts';
import { reportUncaught } from './uncaught.ts';

/** Timers (and AbortSignal.timeout) a run may have pending at once. */
export const MAX_PENDING_TIMERS = 10_000;
/** Node's longest delay; a longer or invalid one becomes 1 ms. */
const TIMEOUT_MAX = 2 ** 31 - 1;

interface Entry {
  readonly id: number;
  due: number;
  seq: number;
  readonly repeat: number;
  delay: number;
  readonly callback: (...args: unknown[]) => unknown;
  readonly args: readonly unknown[];
  readonly handle: object;
  live: boolean;
}

// A binary heap of entries ordered by (due, seq), as a null-prototype record (an index
// setter the program plants on Array.prototype must not see it).
const heap = create(null) as Record<number, Entry>;
let heapSize = 0;
const byId = create(null) as Record<number, Entry | undefined>;
let liveCount = 0;
let nextId = 1;
let nextSeq = 1;
/** The due time the host was last asked to wake the guest at (WAKE_NONE: no wake). */
let requestedDue = WAKE_NONE;

function before(a: Entry, b: Entry): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}

function push(entry: Entry): void {
  let i = heapSize++;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const above = heap[parent] as Entry;
    if (!before(entry, above)) break;
    heap[i] = above;
    i = parent;
  }
  heap[i] = entry;
}

function pop(): void {
  const last = heap[--heapSize] as Entry;
  delete heap[heapSize];
  if (heapSize === 0) return;
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= heapSize) break;
    const right = left + 1;
    let child = left;
    if (right < heapSize && before(heap[right] as Entry, heap[left] as Entry)) child = right;
    if (!before(heap[child] as Entry, last)) break;
    heap[i] = heap[child] as Entry;
    i = child;
  }
  heap[i] = last;
}

/** The earliest live timer, dropping cleared ones from the top. */
function peek(): Entry | undefined {
  while (heapSize > 0) {
    const top = heap[0] as Entry;
    if (top.live) return top;
    pop();
  }
  return undefined;
}

// Cleared timers stay in the heap until they reach its top; when they outnumber the live
// ones the heap is rebuilt, so set-and-clear loops do not grow it.
function compactIfSparse(): void {
  if (heapSize < 64 || heapSize < 2 * liveCount) return;
  const live = create(null) as Record<number, Entry>;
  let count = 0;
  for (let i = 0; i < heapSize; i++) {
    const entry = heap[i] as Entry;
    delete heap[i];
    if (entry.live) live[count++] = entry;
  }
  heapSize = 0;
  for (let i = 0; i < count; i++) push(live[i] as Entry);
}

/** Asks the host to wake the guest when the earliest timer is due (once per change). */
function requestWake(): void {
  if (run.settled) return;
  const top = peek();
  const due = top === undefined ? WAKE_NONE : top.due;
  if (due === requestedDue) return;
  requestedDue = due;
  let ms = WAKE_NONE;
  if (due !== WAKE_NONE) {
    // Real time left, but never more than the run's clock has left: a clock behind real
    // time (a resumed run) fires what is overdue at once, a clock ahead of it (recorded
    // elsewhere) still waits no longer than the timer's delay.
    const onClock = due - clockNow();
    const real = due - realNow();
    const wait = real < onClock ? real : onClock;
    ms = wait > 0 ? wait : 0;
  }
  post({ __proto__: null, t: 'wake', ms });
}

function normalizeDelay(delay: unknown): number {
  const ms = NumberCtor(delay);
  return ms >= 1 && ms <= TIMEOUT_MAX ? ms : 1;
}

/** Node's Timeout object: ref/unref/hasRef/refresh, and its id as a primitive. */
export class Timeout {
  #id: number;
  #ref = true;
  constructor(id: number) {
    this.#id = id;
  }
  ref(): this {
    this.#ref = true;
    return this;
  }
  unref(): this {
    this.#ref = false;
    return this;
  }
  hasRef(): boolean {
    return this.#ref;
  }
  refresh(): this {
    const entry = byId[this.#id];
    if (entry?.live) {
      entry.live = false;
      const fresh = schedule(entry.callback, entry.delay, entry.args, entry.repeat, this, entry.id);
      byId[entry.id] = fresh;
      liveCount--;
      compactIfSparse();
      requestWake();
    }
    return this;
  }
  close(): this {
    clear(this);
    return this;
  }
  [Symbol.toPrimitive](): number {
    return this.#id;
  }
  /** Internal: the id of a handle, or undefined for anything else. */
  static idOf(value: unknown): number | undefined {
    return value instanceof Timeout ? value.#id : undefined;
  }
}

function schedule(
  callback: (...args: unknown[]) => unknown,
  delay: number,
  args: readonly unknown[],
  repeat: number,
  handle: object,
  id: number,
): Entry {
  const entry: Entry = {
    __proto__: null,
    id,
    due: clockNow() + delay,
    seq: nextSeq++,
    repeat,
    delay,
    callback,
    args,
    handle,
    live: true,
  } as Entry;
  push(entry);
  liveCount++;
  return entry;
}

/** Starts a timer for the program or for another global (AbortSignal.timeout). */
export function startTimer(
  callback: (...args: unknown[]) => unknown,
  delay: unknown,
  args: readonly unknown[],
  repeats: boolean,
): Timeout {
  if (typeof callback !== 'function') throw invalidArgType('callback', 'of type function', callback);
  if (liveCount >= MAX_PENDING_TIMERS) {
    throw new RangeErrorCtor(
      'The program has ' +
        MAX_PENDING_TIMERS +
        ' timers pending (the limit of one run): clear the timers it no longer needs, or wait for some to fire.',
    );
  }
  const ms = normalizeDelay(delay);
  const id = nextId++;
  const handle = new Timeout(id);
  byId[id] = schedule(callback, ms, args, repeats ? ms : -1, handle, id);
  requestWake();
  return handle;
}

/** clearTimeout/clearInterval: a Timeout, or its id as a number or numeric string. */
export function clear(timer: unknown): void {
  let id = Timeout.idOf(timer);
  if (id === undefined && (typeof timer === 'number' || typeof timer === 'string')) id = NumberCtor(timer);
  if (id === undefined) return;
  const entry = byId[id];
  if (entry === undefined) return;
  delete byId[id];
  if (entry.live) {
    entry.live = false;
    liveCount--;
    compactIfSparse();
  }
}

/** The host's wake: fires the earliest timer (one per wake) and asks for the next wake. */
export function wake(): void {
  const asked = requestedDue;
  requestedDue = WAKE_NONE;
  if (run.settled) return;
  const entry = peek();
  if (entry === undefined || entry.due > asked) {
    requestWake();
    return;
  }
  pop();
  advanceClockTo(entry.due);
  if (entry.repeat >= 0) {
    entry.due = clockNow() + entry.repeat;
    entry.seq = nextSeq++;
    push(entry);
  } else {
    entry.live = false;
    liveCount--;
    if (byId[entry.id] === entry) delete byId[entry.id];
  }
  try {
    apply(entry.callback, entry.handle, entry.args);
  } catch (error) {
    reportUncaught(error);
    return;
  } finally {
    requestWake();
  }
}

/** Pending timers (for tests and the timer bound). */
export function pendingTimers(): number {
  return liveCount;
}
