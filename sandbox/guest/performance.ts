// `performance`: now() (ms since the run started, on the guest's deterministic clock,
// which stands still while the program computes; each reading is 0.001 ms past the last
// at least, so a measured span is never zero), timeOrigin and toJSON.
import { defineProperty } from './intrinsics.ts';
import { clockElapsed, clockNow } from './clock.ts';

const STEP = 0.001;
let origin = 0;
let last = -1;

/** The run starts (its clock is seeded): performance.now() counts from here. */
export function startPerformanceClock(): void {
  origin = clockNow() - clockElapsed();
  last = -1;
}

/** performance.now() (also Event#timeStamp). */
export function performanceNow(): number {
  let value = clockElapsed();
  if (value <= last) value = last + STEP;
  last = value;
  return value;
}

let constructing = false;

export class Performance {
  constructor() {
    if (!constructing) throw new TypeError('Illegal constructor');
  }
  now(): number {
    return performanceNow();
  }
  get timeOrigin(): number {
    return origin;
  }
  toJSON(): { timeOrigin: number } {
    return { timeOrigin: origin };
  }
}
defineProperty(Performance.prototype, Symbol.toStringTag, { value: 'Performance', configurable: true });

export function makePerformance(): Performance {
  constructing = true;
  try {
    return new Performance();
  } finally {
    constructing = false;
  }
}
