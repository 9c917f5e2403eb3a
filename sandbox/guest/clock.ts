// The guest's clock for timers and performance.now(): the run's deterministic clock
// (deterministic-sources.ts: frozen while the program computes, moved by I/O events), moved
// forward to a timer's due time when the timer fires, so a re-run sees the same times.
// The real wall clock is read only to know how long the host should wait before a wake-up:
// a timer whose due time has passed in real time (a resumed sleeping program) fires at once.
import { advanceClock, elapsedMs, now } from './deterministic-sources.ts';

const dateNow = Date.now;

/** The real wall clock (ms since the epoch), whatever the program did to Date. */
export function realNow(): number {
  return dateNow();
}

/** The guest's time now (ms since the epoch), what Date.now() returns. */
export function clockNow(): number {
  return now();
}

/** Milliseconds since the run started on the guest's clock. */
export function clockElapsed(): number {
  return elapsedMs();
}

/** A timer due at `time` fires: the clock reads at least `time` from now on. */
export function advanceClockTo(time: number): void {
  advanceClock(time);
}
