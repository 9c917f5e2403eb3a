// Fencing: what a store that holds a lock or a run claim across hosts gives the holder.
// A lock held on a database session can end while its holder still runs (the session is
// lost: a dropped connection, a terminated backend, a failover); another host may then
// take it. The holder learns it from its fence's signal, which aborts with a
// FenceLostError naming what was lost, and its token — larger than every earlier
// holder's of the same lock — lets a backend that records the token refuse the stale
// holder's writes.

/** A held lock's or claim's fencing: its token and the signal that tells of its loss. */
export interface Fence {
  /**
   * From the database at acquisition: larger than the token of every earlier holder of
   * the same resource (or run), so a backend that keeps the largest token it has seen
   * can refuse a holder whose token is smaller.
   */
  readonly token: number;
  /** Aborts with a FenceLostError once the lock or claim is known to be lost while held. */
  readonly signal: AbortSignal;
}

/** The reason a fence's signal aborts: which lock or claim was lost, and why. */
export class FenceLostError extends Error {
  override readonly name = 'FenceLostError';
  /** What was held: `resource "account:42"` or `the claim on durable run <runId>`. */
  readonly held: string;
  readonly token: number;

  constructor(message: string, held: string, token: number) {
    super(message);
    this.held = held;
    this.token = token;
  }
}

/** Whether a signal aborted because a fence was lost (and not by a caller). */
export function fenceLostReason(signal: AbortSignal): FenceLostError | undefined {
  return signal.aborted && signal.reason instanceof FenceLostError ? signal.reason : undefined;
}
