// Fencing of the PostgreSQL store's resource locks and run claims. Both are session
// advisory locks, which end with their session: a lost session (a dropped connection, a
// terminated backend, a failover) frees them on the server while their holders still
// run here. So every acquisition takes a fencing token from one database sequence in the
// lock's session once it holds the lock (in the statement that takes it when it is free):
// a later holder of the same lock always draws later, so gets a larger one;
// and each held lock has a fence whose signal aborts, naming the lock, once its session
// is known to be lost (its connection's error event at once; a silent loss by the
// session's keep-alive query, session-keep-alive.ts).
import { type Fence, FenceLostError } from '../../pipeline/fence.ts';

/** The sequence every fencing token comes from (schema version 4). */
export const POSTGRES_FENCING_SCHEMA = 'CREATE SEQUENCE IF NOT EXISTS ptc_fencing_token';

/**
 * Takes advisory lock $1 when no other session holds it, and then a fencing token: the
 * token, or NULL when the lock is another session's. CASE evaluates its condition first,
 * and nextval is volatile (never folded), so a token is drawn only for a lock taken.
 */
export const TRY_LOCK_WITH_TOKEN =
  "SELECT CASE WHEN pg_try_advisory_lock($1::bigint) THEN nextval('ptc_fencing_token') END AS token";

/** A fencing token for a lock this session has just taken. */
export const NEXT_TOKEN = "SELECT nextval('ptc_fencing_token') AS token";

/** The token of a TRY_LOCK_WITH_TOKEN or NEXT_TOKEN answer; undefined when the lock was not taken. */
export function tokenOf(rows: readonly unknown[]): number | undefined {
  const token = (rows[0] as { token?: unknown } | undefined)?.token;
  if (token === null || token === undefined) return undefined;
  const value = Number(token); // bigint arrives as text
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`fencing token ${String(token)} is not a counter`);
  return value;
}

/** The fences of the locks one process holds on its sessions, by lock key. */
export class HeldFences {
  readonly #held = new Map<
    string,
    { readonly controller: AbortController; readonly fence: Fence; readonly what: string }
  >();

  /** A fence for `key`, just taken with `token`; `what` names it in the reason of its loss. */
  open(key: string, what: string, token: number): Fence {
    const controller = new AbortController();
    const fence: Fence = { token, signal: controller.signal };
    this.#held.set(key, { controller, fence, what });
    return fence;
  }

  /** The fence of `key` while it is held. */
  get(key: string): Fence | undefined {
    return this.#held.get(key)?.fence;
  }

  /** `key` was let go: its fence stays as it is. */
  close(key: string): void {
    this.#held.delete(key);
  }

  /** `key` was lost while held: its fence's signal aborts with a FenceLostError saying `why`. */
  lose(key: string, label: string, why: string): void {
    const held = this.#held.get(key);
    if (held === undefined) return;
    this.#held.delete(key);
    held.controller.abort(
      new FenceLostError(
        `${label}: ${held.what} (fencing token ${held.fence.token}) was lost: ${why}`,
        held.what,
        held.fence.token,
      ),
    );
  }
}
