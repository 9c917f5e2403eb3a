// `performance`: now() (ms since the run started, on the guest's clock; never the same
// value twice, so a measured span is never zero), timeOrigin and toJSON.
import { defineProperty } from './intrinsics.ts';
import { clockNow } from './clock.ts';

const STEP = 0.001;
let origin = clockNow();
let last = -1;

/** The run starts: performance.now() counts from here. */
export function startPerformanceClock(): void {
  origin = clockNow();
  last = -1;
}

let constructing = false;

export class Performance {
  constructor() {
    if (!constructing) throw new TypeError('Illegal constructor');
  }
  now(): number {
    let value = clockNow() - origin;
    if (value <= last) value = last + STEP;
    last = value;
    return value;
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
