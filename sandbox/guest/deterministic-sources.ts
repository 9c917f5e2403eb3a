// The guest's only sources of randomness and time, deterministic per run so that a
// re-run (after a crash, or a resume from the journal) sees exactly what the first
// attempt saw, with nothing recorded but the run's seed, its start time and the time
// of each I/O event:
//   - randomness: a PRNG (sfc32) seeded from the run's identity (`seed`, a string);
//   - time: a clock frozen while the program computes. It starts at `clockStartMs` and
//     moves only at I/O events: a nested call's result carries the time the host
//     recorded for it (the journal's time on a re-run), and the clock jumps forward to
//     it when it is delivered. It never goes back.
// `Math.random`, `Date.now()`, `new Date()` and `Date()` read these. Other guest globals
// that need time or randomness (timers, crypto.getRandomValues/randomUUID,
// performance.now) must read them here too, never the host's: `randomUint32()`,
// `now()`, `elapsedMs()`, and `advanceClock(ms)` for an event of their own whose time
// is itself deterministic (e.g. a timer firing at `now() + delay` when it was set).
import { apply, construct, defineProperty, getOwnPropertyDescriptor } from './intrinsics.ts';

const RealDate = Date;
const dateToString = RealDate.prototype.toString;

// sfc32 state (four 32-bit words).
let a = 0x9e3779b9;
let b = 0x243f6a88;
let c = 0xb7e15162;
let d = 1;
let clockStart = 0;
let clock = 0;

/** Seeds the generator from the run's identity and sets the clock to the run's start; called once by `configure`. */
export function seedSources(seed: string, clockStartMs: number): void {
  // cyrb128: four independent 32-bit hashes of the seed text.
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < seed.length; i++) {
    const k = seed.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  a = (h1 ^ h2 ^ h3 ^ h4) >>> 0;
  b = (h2 ^ h1) >>> 0;
  c = (h3 ^ h1) >>> 0;
  d = (h4 ^ h1) >>> 0;
  // Warm up: the first outputs of a freshly seeded sfc32 are poorly mixed.
  for (let i = 0; i < 15; i++) randomUint32();
  clockStart = clockStartMs;
  clock = clockStartMs;
}

/** The next 32 random bits, as an unsigned integer. */
export function randomUint32(): number {
  a >>>= 0;
  b >>>= 0;
  c >>>= 0;
  d >>>= 0;
  let t = (a + b) | 0;
  a = b ^ (b >>> 9);
  b = (c + (c << 3)) | 0;
  c = (c << 21) | (c >>> 11);
  d = (d + 1) | 0;
  t = (t + d) | 0;
  c = (c + t) | 0;
  return t >>> 0;
}

/** A number in [0, 1), what `Math.random()` returns. */
export function random(): number {
  return randomUint32() / 4294967296;
}

/** The guest's current time in ms since the epoch, what `Date.now()` returns. */
export function now(): number {
  return clock;
}

/** Milliseconds since the run started on the guest's clock (for `performance.now()`). */
export function elapsedMs(): number {
  return clock - clockStart;
}

/** Moves the clock forward to `ms` (an I/O event's recorded time); earlier or invalid times are ignored. */
export function advanceClock(ms: unknown): void {
  if (typeof ms === 'number' && ms > clock && ms < 8.64e15) clock = ms;
}

/** Replaces `Math.random` and the clock-reading parts of `Date` in `scope` with the sources above. */
export function installDeterministicSources(scope: Record<string, unknown>): void {
  const math = scope['Math'] as Record<string, unknown>;
  defineProperty(math, 'random', {
    value: function random_(): number {
      return random();
    },
    writable: true,
    enumerable: false,
    configurable: true,
  });
  // `Date` as a function gives the current time as text; `new Date()` the current time;
  // with arguments it is the real constructor. Statics and the prototype are the real ones.
  const GuestDate = function GuestDate(this: unknown, ...args: unknown[]): unknown {
    if (new.target === undefined) return apply(dateToString, construct(RealDate, [clock]), []);
    return construct(RealDate, args.length === 0 ? [clock] : args, new.target);
  };
  defineProperty(GuestDate, 'prototype', { value: RealDate.prototype, writable: false });
  defineProperty(GuestDate, 'length', { value: 7, configurable: true });
  defineProperty(GuestDate, 'name', { value: 'Date', configurable: true });
  defineProperty(GuestDate, 'now', {
    value: function now_(): number {
      return clock;
    },
    writable: true,
    configurable: true,
  });
  // By index: `for … of` would run the array iterator (the program has not run yet, but it costs).
  for (let i = 0; i < 2; i++) {
    const key = i === 0 ? 'parse' : 'UTC';
    const descriptor = getOwnPropertyDescriptor(RealDate, key);
    if (descriptor !== undefined) defineProperty(GuestDate, key, descriptor);
  }
  defineProperty(RealDate.prototype, 'constructor', {
    value: GuestDate,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  defineProperty(scope, 'Date', { value: GuestDate, writable: true, enumerable: false, configurable: true });
}
