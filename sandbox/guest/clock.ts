// The guest's clock, read by the timers and performance.now(): wall time, never running
// backwards, moved forward to a timer's due time when the timer fires.
const dateNow = Date.now;
let floor = 0;

/** The real wall clock (ms since the epoch), whatever the program did to Date. */
export function realNow(): number {
  return dateNow();
}

/** The guest's time now (ms since the epoch). */
export function clockNow(): number {
  const now = dateNow();
  if (now > floor) floor = now;
  return floor;
}

/** A timer due at `time` fires: the clock reads at least `time` from now on. */
export function advanceClockTo(time: number): void {
  if (time > floor) floor = time;
}
