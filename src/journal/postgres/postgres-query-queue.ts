// One query at a time on a connection that many callers share (the claims session and
// the resource locks' shared session): node-postgres deprecates giving a client a query
// while another runs on it (a DeprecationWarning in the host's output; pg 9 drops it), so
// the queue is ours. Order is kept: a query starts when the one given before it settled.
import type { PostgresPoolClient } from './postgres-pool.ts';

type ErrorListener = (error?: unknown) => void;

/** The connection's `error` events (a pg client has them; a caller's pool client may not). */
export interface ErrorEvents {
  on?(event: 'error', listener: ErrorListener): void;
  off?(event: 'error', listener: ErrorListener): void;
}

/** `client`, with each query sent once every query given before it has settled. */
export function oneQueryAtATime(client: PostgresPoolClient): PostgresPoolClient & ErrorEvents {
  let tail: Promise<unknown> = Promise.resolve();
  const events = client as ErrorEvents;
  return {
    query(text, values) {
      const next = tail.then(() => client.query(text, values));
      tail = next.catch(() => {});
      return next;
    },
    release: (destroy) => client.release(destroy),
    on: (event, listener) => events.on?.(event, listener),
    off: (event, listener) => events.off?.(event, listener),
  };
}
