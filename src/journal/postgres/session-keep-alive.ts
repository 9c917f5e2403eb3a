// The keep-alive of a session that holds locks: a connection whose server side is gone
// without a word (a failover, a network partition, a server killed with its host) gives
// no error event until something is sent on it, while another host may already hold its
// locks on the new server. So a session holding locks sends `SELECT 1` every
// `intervalMs`; a probe that fails, or is not answered within `timeoutMs`, counts as the
// session lost. A terminated backend or a closed connection is known at once from the
// connection's error event; this bounds the rest: at most intervalMs + timeoutMs.
import type { PostgresPoolClient } from './postgres-pool.ts';

/** How a session holding locks is probed. */
export interface KeepAlive {
  /** Time between one probe's answer and the next probe. */
  readonly intervalMs: number;
  /** How long a probe may go unanswered before the session counts as lost. */
  readonly timeoutMs: number;
}

/** @see PostgresJournalOptions.keepAliveMs and keepAliveTimeoutMs */
export const DEFAULT_KEEP_ALIVE: KeepAlive = { intervalMs: 1_000, timeoutMs: 5_000 };

/** Probes `client` until stopped (the returned function); `onLost(why)` once, when a probe fails or times out. */
export function keepSessionAlive(
  client: PostgresPoolClient,
  keepAlive: KeepAlive,
  onLost: (why: string) => void,
): () => void {
  let stopped = false;
  let next: ReturnType<typeof setTimeout> | undefined;
  let deadline: ReturnType<typeof setTimeout> | undefined;
  const stop = (): void => {
    stopped = true;
    clearTimeout(next);
    clearTimeout(deadline);
  };
  const lost = (why: string): void => {
    if (stopped) return;
    stop();
    onLost(why);
  };
  const schedule = (): void => {
    if (stopped) return;
    next = setTimeout(probe, keepAlive.intervalMs);
    next.unref(); // a held connection keeps the process alive, not its probe
  };
  const probe = (): void => {
    if (stopped) return;
    let answered = false;
    // Timers run before the sockets are read: after a stalled event loop the answer may be
    // waiting unread, so the deadline reads them once (setImmediate) before it decides.
    deadline = setTimeout(
      () =>
        setImmediate(
          () => answered || lost(`its keep-alive query was not answered within ${keepAlive.timeoutMs} ms`),
        ).unref(),
      keepAlive.timeoutMs,
    );
    deadline.unref();
    client.query('SELECT 1').then(
      () => {
        answered = true;
        clearTimeout(deadline);
        schedule();
      },
      (error: unknown) =>
        lost(`its keep-alive query failed (${error instanceof Error ? error.message : String(error)})`),
    );
  };
  schedule();
  return stop;
}
