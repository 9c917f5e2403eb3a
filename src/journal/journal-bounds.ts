// Bounds on what the journal is asked to keep and how long it may take: every event's
// JSON is counted per run (the events of one root call and everything nested in it) and
// per runtime (the host), and an append the store does not acknowledge in time fails.
// Over a bound, the append is refused before it reaches the store: the call fails with
// SCHEDULER_FAILURE (its body not run, when it was the call's write-ahead record), so a
// program cannot fill the journal's disk by passing large arguments in a loop, and a
// store that hangs cannot leave runs pending past their abort and wall clock.
import type { Journal, JournalEvent } from './journal.ts';

export interface JournalBounds {
  /**
   * Bytes of journal JSON one run (a root call and every call nested in it) may write;
   * the root call's own result is always written (it counts toward maxJournalBytes only).
   * @default 67108864 (64 MiB)
   */
  readonly maxJournalBytesPerRun?: number;
  /**
   * Bytes of journal JSON this runtime may write in its lifetime (the host's disk
   * budget); then every journaled call fails with SCHEDULER_FAILURE until a restart
   * with a fresh (rotated) journal. `Infinity` turns the bound off.
   * @default 4294967296 (4 GiB)
   */
  readonly maxJournalBytes?: number;
  /**
   * An append the store has not acknowledged in this many ms fails (SCHEDULER_FAILURE),
   * so a hung store cannot keep a call pending forever.
   * @default 60000
   */
  readonly journalAppendTimeoutMs?: number;
  /**
   * How long an append may still take once its call was cancelled or its run's wall
   * deadline passed (a working store still answers in this time); then the call stops
   * waiting for it and fails, naming the unanswered store.
   * @default 5000
   */
  readonly journalWaitGraceMs?: number;
}

export const DEFAULT_MAX_JOURNAL_BYTES_PER_RUN = 64 * 1_048_576;
export const DEFAULT_MAX_JOURNAL_BYTES = 4 * 1_073_741_824;
export const DEFAULT_JOURNAL_APPEND_TIMEOUT_MS = 60_000;
export const DEFAULT_JOURNAL_WAIT_GRACE_MS = 5_000;

/** Every bounded journal, with the wait grace it was given. */
const bounded = new WeakMap<Journal, number>();

/** The grace a call gives this journal's appends after its cancellation or deadline. */
export function journalWaitGraceOf(journal: Journal): number {
  return bounded.get(journal) ?? DEFAULT_JOURNAL_WAIT_GRACE_MS;
}

function checkBound(value: number | undefined, fallback: number, name: string, infinite: boolean): number {
  if (value === undefined) return fallback;
  if (infinite && value === Number.POSITIVE_INFINITY) return value;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw new TypeError(`createToolRuntime: ${name} must be a positive integer, got ${String(value)}`);
  return value;
}

/** Checks the bounds now (a TypeError naming the bad one); returns the wrapper to apply. */
export function checkJournalBounds(options: JournalBounds): (journal: Journal) => Journal {
  const perRun = checkBound(
    options.maxJournalBytesPerRun,
    DEFAULT_MAX_JOURNAL_BYTES_PER_RUN,
    'maxJournalBytesPerRun',
    true,
  );
  const total = checkBound(options.maxJournalBytes, DEFAULT_MAX_JOURNAL_BYTES, 'maxJournalBytes', true);
  const timeoutMs = checkBound(
    options.journalAppendTimeoutMs,
    DEFAULT_JOURNAL_APPEND_TIMEOUT_MS,
    'journalAppendTimeoutMs',
    false,
  );
  const graceMs = checkBound(options.journalWaitGraceMs, DEFAULT_JOURNAL_WAIT_GRACE_MS, 'journalWaitGraceMs', false);
  return (journal) => boundJournal(journal, perRun, total, timeoutMs, graceMs);
}

function boundJournal(journal: Journal, perRun: number, total: number, timeoutMs: number, graceMs: number): Journal {
  if (bounded.has(journal)) return journal;
  let written = 0;
  /** Bytes per open run, by root callId. */
  const runs = new Map<string, number>();
  /** The root of every call whose result is still to come. */
  const rootOf = new Map<string, string>();
  const refuse = (message: string): Promise<never> => Promise.reject(new RangeError(message));
  const wrapped: Journal = {
    append(events: readonly JournalEvent[]): Promise<void> {
      let bytes = 0;
      const roots: string[] = [];
      const sizes: number[] = [];
      const pending = new Map<string, number>();
      for (const event of events) {
        const size = Buffer.byteLength(JSON.stringify(event) ?? '', 'utf8') + 1;
        bytes += size;
        sizes.push(size);
        const root =
          event.type === 'tool/call' ? (event.rootCallId ?? event.callId) : (rootOf.get(event.callId) ?? event.callId);
        roots.push(root);
        // A root's own result always goes in: the run's outcome must be durable. A user
        // message comes after its call's run ended: the host's budget counts it.
        if ((event.type === 'tool/result' && root === event.callId) || event.type === 'user/message') continue;
        const used = (pending.get(root) ?? runs.get(root) ?? 0) + size;
        pending.set(root, used);
        if (used > perRun) {
          return refuse(
            `journal budget: run "${root.length > 80 ? `${root.slice(0, 80)}…` : root}" would journal ${used} bytes, more than maxJournalBytesPerRun (${perRun})`,
          );
        }
      }
      if (written + bytes > total) {
        return refuse(
          `journal budget: this runtime would journal ${written + bytes} bytes, more than maxJournalBytes (${total}); rotate the journal and restart, or raise the bound`,
        );
      }
      written += bytes;
      events.forEach((event, i) => {
        const root = roots[i] as string;
        if (event.type === 'tool/call') rootOf.set(event.callId, root);
        else if (event.type === 'tool/result') rootOf.delete(event.callId);
        if (event.type === 'user/message') return;
        if (event.type === 'tool/result' && root === event.callId) runs.delete(root);
        else runs.set(root, (runs.get(root) ?? 0) + (sizes[i] as number));
      });
      return withTimeout(journal.append(events), timeoutMs);
    },
    read: () => journal.read(),
  };
  // Keep the store's own extras (path, close, query) reachable.
  const result = Object.assign(Object.create(journal) as Journal, wrapped);
  bounded.set(result, graceMs);
  return result;
}

function withTimeout(append: Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`journal append not acknowledged within ${timeoutMs} ms (journalAppendTimeoutMs)`)),
      timeoutMs,
    );
    timer.unref();
  });
  return Promise.race([append, timeout]).finally(() => clearTimeout(timer));
}
