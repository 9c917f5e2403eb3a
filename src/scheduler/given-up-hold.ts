// A call given up on (TOOL_TIMEOUT or ABORTED with `info.bodySettled: false`) has its
// result, but its body may still run. Exclusive calls are barriers, so the sequence keeps
// that call's slot: later calls start only once the body settles. The wait is bounded:
// a body still running `holdAfterGiveUpMs` after the give-up stops the sequence (its
// later calls get SCHEDULER_FAILURE, not run) rather than hang it or let a body run
// beside an exclusive one.
import { SchedulerError, SCHEDULER_ERROR_CODES } from './scheduler-error.ts';

/** How long later calls wait for a given-up body before the sequence stops. */
export const DEFAULT_HOLD_AFTER_GIVE_UP_MS = 30_000;

/** setTimeout's ceiling. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface GivenUpBody {
  readonly callId: string;
  readonly name: string;
  /** Settles when the body does. */
  readonly settled: Promise<void>;
}

export interface GivenUpHold {
  /** Resolves when the body settled, when the bound ran out (after `onExpired`), or at `end()`. */
  readonly released: Promise<void>;
  /** Stops waiting: nothing later will wait for this body (the sequence is done). */
  end(): void;
}

/** Checks the option now: a TypeError naming it. */
export function checkHoldAfterGiveUpMs(value: unknown, where: string): number {
  if (value === undefined) return DEFAULT_HOLD_AFTER_GIVE_UP_MS;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_TIMER_MS)
    throw new TypeError(
      `${where}: holdAfterGiveUpMs must be a finite number of milliseconds >= 0, got ${String(value)}`,
    );
  return value;
}

/** The scheduler's failure when the bound runs out: it names the call and the option. */
export function holdExpiredError(body: Pick<GivenUpBody, 'callId' | 'name'>, holdMs: number): SchedulerError {
  const id = body.callId.length > 80 ? `${body.callId.slice(0, 80)}…` : body.callId;
  return new SchedulerError(
    SCHEDULER_ERROR_CODES.SCHEDULER_FAILURE,
    `tool scheduler stopped: call "${id}" of "${body.name}" was given up on, but its body was still running ${holdMs} ms later (createToolRuntime({ holdAfterGiveUpMs })); later calls are not started, so that no body runs beside an exclusive call`,
    { details: { callId: body.callId, name: body.name, holdAfterGiveUpMs: holdMs } },
  );
}

export function holdGivenUpBody(body: GivenUpBody, holdMs: number, onExpired: () => void): GivenUpHold {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const timer = setTimeout(() => {
    onExpired();
    release();
  }, holdMs);
  const end = (): void => {
    clearTimeout(timer);
    release();
  };
  void body.settled.then(end, end);
  return { released, end };
}
