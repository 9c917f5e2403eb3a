// How long a call or run waits for the journal to acknowledge an append. Besides the
// store-wide `journalAppendTimeoutMs`, an append is given up once the call it belongs to
// is cancelled (its caller aborted, or the run it is nested in ended) and, for a run_code
// call, once the run's wall deadline has passed — each after a short grace in which a
// working store still answers. A store that never answers so cannot keep a run pending
// past its abort or its wall limit; the store may still record the event later. The
// grace is the runtime's `journalWaitGraceMs` (see journal-bounds.ts).
import type { Journal, JournalEvent } from './journal.ts';
import { journalWaitGraceOf } from './journal-bounds.ts';

/** What bounds the wait for one append, besides the store-wide timeout. */
export interface JournalWait {
  /** The call's signal: once it aborts, the append gets at most the journal's wait grace more. */
  readonly signal: AbortSignal;
  /** The wall deadline of the run (ms since the epoch); an append past it gets the same grace. */
  readonly deadlineAt?: number;
  /** The run's wall limit, for the error message. */
  readonly wallTimeMs?: number;
}

// Tools whose journal waits count against a wall limit of their own (run_code: its
// `limits.wallTimeMs`, counted from the call's start).
const wallBounds = new WeakMap<object, number>();

/** Marks a built-in tool whose calls' journal waits end at `wallTimeMs` after the call started. */
export function markJournalWallBound(tool: object, wallTimeMs: number): void {
  wallBounds.set(tool, wallTimeMs);
}

/** The wait of a call that started now, with this tool (if it has a wall bound) and signal. */
export function journalWaitFor(tool: object | undefined, signal: AbortSignal): JournalWait {
  const wallTimeMs = tool === undefined ? undefined : wallBounds.get(tool);
  return wallTimeMs === undefined ? { signal } : runJournalWait(signal, wallTimeMs);
}

/** The wait of a run that started now with this wall limit. */
export function runJournalWait(signal: AbortSignal, wallTimeMs: number): JournalWait {
  return { signal, deadlineAt: Date.now() + wallTimeMs, wallTimeMs };
}

/** Thrown when an append is given up on; the store did not answer in time. */
export class JournalWaitError extends Error {
  override readonly name = 'JournalWaitError';
}

/**
 * Appends `events`, awaited until the wait is over (see above), then a JournalWaitError.
 * Without a wait, the append itself. The append is not cancelled (a store has no way to
 * be): only no longer awaited.
 */
export function awaitAppend(
  journal: Journal,
  events: readonly JournalEvent[],
  wait: JournalWait | undefined,
): Promise<void> {
  const append = journal.append(events);
  if (wait === undefined) return append;
  const graceMs = journalWaitGraceOf(journal);
  return new Promise<void>((resolve, reject) => {
    const { signal } = wait;
    let timer: NodeJS.Timeout | undefined;
    let firesAt = Number.POSITIVE_INFINITY;
    const settle = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    const arm = (at: number, why: string): void => {
      if (at >= firesAt) return;
      firesAt = at;
      clearTimeout(timer);
      timer = setTimeout(
        () => {
          settle();
          reject(new JournalWaitError(`journal append not acknowledged ${why}; the journal store did not answer`));
        },
        Math.max(0, at - Date.now()),
      );
      // Like the store-wide timeout: a pending wait alone does not keep a process alive.
      timer.unref();
    };
    const onAbort = (): void => arm(Date.now() + graceMs, `within ${graceMs} ms of the call's cancellation`);
    append.then(
      () => {
        settle();
        resolve();
      },
      (error: unknown) => {
        settle();
        reject(error);
      },
    );
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    if (wait.deadlineAt !== undefined)
      arm(
        Math.max(wait.deadlineAt, Date.now() + graceMs),
        `by the run's wall deadline (wallTimeMs ${wait.wallTimeMs ?? '?'}, counted from the call's start; ${graceMs} ms when the append began after it)`,
      );
  });
}
