// Where sessions live: one record per session, holding the state text a run_code program
// left on `state` (sandbox/guest/state-codec.ts writes it). A store keeps records
// durably (the journal's stores each have one: `journal.sessions`) and makes the two
// steps that must not race atomic: taking a session for one program at a time (a lease
// with an expiry, so a crashed host's hold ends on its own), and saving over exactly the
// version the program read (so an update is never lost). Everything else is plain reads.

/** The program running on a session now: only `owner` may save; after `until` the hold is void. */
export interface SessionLease {
  readonly owner: string;
  /** ms since the epoch. */
  readonly until: number;
}

/** One session as stored. */
export interface SessionRecord {
  /** At least 128 random bits (base64url). */
  readonly id: string;
  /** The agent that created it (null: the global scope). Another agent's id is unknown to it. */
  readonly agent: string | null;
  /** The principal it was created for (`rt.execute({ principal })`; null: none). Another principal's id is unknown to it. */
  readonly principal: string | null;
  /** The state text the last successful program left; '{}' until then. */
  readonly state: string;
  /** UTF-8 bytes of `state`. */
  readonly bytes: number;
  /** 0 before the first save, then one more per save: a save names the version it read. */
  readonly version: number;
  /** ms since the epoch. */
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Idle expiry: every use moves it to now + ttl. */
  readonly expiresAt: number;
  readonly lease?: SessionLease;
}

/** A session without its state, as listings show it. */
export type SessionSummary = Omit<SessionRecord, 'state'>;

/** What a lease attempt found. */
export type LeaseOutcome =
  | { readonly kind: 'leased'; readonly record: SessionRecord }
  | { readonly kind: 'busy'; readonly lease: SessionLease }
  | { readonly kind: 'missing' };

/** The store contract. Small on purpose: every method is one atomic step of the store. */
export interface SessionStore {
  /** The session, if it exists and has not expired at `now`. */
  getSession(id: string, now: number): Promise<SessionRecord | undefined>;
  /**
   * Takes the session for `lease.owner` if no live lease holds it (an expired lease is
   * taken over), and moves its expiry to `expiresAt`. `missing` when there is no such
   * session or it expired at `now`; `busy` (nothing changed) when another live lease holds it.
   */
  leaseSession(id: string, lease: SessionLease, expiresAt: number, now: number): Promise<LeaseOutcome>;
  /**
   * Writes `record` (its `version` is the one read plus one) and drops the lease, only if
   * the stored version is still `record.version - 1` and no other owner's live lease
   * holds it; version 1 creates the session (refused when the id exists). false: nothing written.
   */
  saveSession(record: SessionRecord, owner: string, now: number): Promise<boolean>;
  /** Drops the lease if `owner` holds it. */
  releaseSession(id: string, owner: string): Promise<void>;
  /** Removes the session; false when there was none. */
  deleteSession(id: string): Promise<boolean>;
  /** Sessions not expired at `now`, oldest first (expired ones may be removed on the way). */
  listSessions(now: number): Promise<SessionSummary[]>;
}
