// A sandbox process must report ready within its start-up limit, counted in time it could
// have used. On an overloaded host a healthy process starting up is runnable but waits for
// a CPU (cpu-wait-meter.ts); killed for that, it would take with it the runs waiting for
// it, and a re-run process the run it was started for (its last attempt). So time it
// waited for a CPU is not counted, nor a late check of this host's (its ready message may
// be unread), up to a hard bound after which a process still not ready is killed whatever
// it waited for. A stopped or sleeping process earns nothing and is killed at the limit.
import type { CpuWaitMeter } from './cpu-wait-meter.ts';

/** @see ProcessSandboxOptions.startupLimitMs */
export const DEFAULT_STARTUP_LIMIT_MS = 30_000;
/** The largest start-up limit: its hard bound (10 times) stays a valid timer delay. */
export const MAX_STARTUP_LIMIT_MS = 600_000;
/** However long it waited for a CPU, a process not ready after this many start-up limits is killed. */
export const STARTUP_HARD_BOUND_FACTOR = 10;
/**
 * The longest between two readings of its waits: a thread born meanwhile is credited at most
 * this much time it may not have waited (the meter cannot tell when it was born).
 */
const CHECK_EVERY_MS = 1_000;
/** A check this late means this host's own thread was blocked: the process's ready message may be unread. */
const LATE_CHECK_MS = 50;

export interface StartupWatchOptions {
  readonly limitMs: number;
  /** The process's CPU-wait meter; undefined (no /proc, no pid): the clock alone. */
  readonly meter: CpuWaitMeter | undefined;
  readonly isReady: () => boolean;
  /** Kills the process, saying why. */
  readonly kill: (why: string) => void;
}

/** Watches a process just started until it is ready (or killed); `stop()` when it is gone. */
export function watchStartup(options: StartupWatchOptions): { stop(): void } {
  const { limitMs, meter, isReady, kill } = options;
  const startedAt = Date.now();
  const hardBoundMs = limitMs * STARTUP_HARD_BOUND_FACTOR;
  // Waits are read check by check, each from the reading before: a wait still under way
  // is never credited beyond the interval it was seen in.
  let mark = meter?.mark(startedAt);
  let waitedMs = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (ms: number, recheck: boolean): void => {
    const due = Date.now() + ms;
    timer = setTimeout(() => check(due, recheck), ms);
    timer.unref();
  };
  const check = (due: number, recheck: boolean): void => {
    timer = undefined;
    if (isReady()) return;
    const now = Date.now();
    const elapsed = now - startedAt;
    if (elapsed >= hardBoundMs) {
      kill(
        `it was not ready ${hardBoundMs} ms after it was started (${STARTUP_HARD_BOUND_FACTOR} × the start-up limit), whatever it waited for`,
      );
      return;
    }
    // Late once: read what has arrived first, the ready message may sit behind this timer.
    // Only once: a host late on every turn must still judge its processes.
    if (!recheck && now - due > LATE_CHECK_MS) {
      arm(0, true);
      return;
    }
    waitedMs += meter?.waitedSince(mark, now) ?? 0;
    mark = meter?.mark(now);
    const used = elapsed - waitedMs;
    if (used < limitMs) {
      arm(Math.min(limitMs - used, hardBoundMs - elapsed, CHECK_EVERY_MS), false);
      return;
    }
    kill(
      `it was not ready within its start-up limit of ${limitMs} ms (${elapsed} ms after it was started, ${Math.round(waitedMs)} ms of them waiting for a CPU)`,
    );
  };
  arm(Math.min(limitMs, CHECK_EVERY_MS), false);
  return {
    stop: () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
