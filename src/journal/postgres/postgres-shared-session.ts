// One PostgreSQL session shared by a process's advisory locks of one kind (durable run
// claims; resource keys nobody else holds): a session holds any number of advisory
// locks, so holding many costs one connection, not one each — a connection per lock
// would cap the process at its session pool's size.
//
// The session is opened on first use and goes back to the pool once it holds nothing
// and nobody is using it (a checked-out connection keeps the process alive; an idle
// process must be able to exit). If it is lost (a dropped connection, a terminated
// backend, a query in an unknown state), everything held on it is lost with it: the
// owner is told which keys, and the next use opens a new session (a new generation, so
// a late release of a lost key ends nothing on the new one). A loss is known at once from
// the connection's error event, and otherwise from the session's keep-alive query.
import type { PostgresPoolClient } from './postgres-pool.ts';
import { type ErrorEvents, oneQueryAtATime } from './postgres-query-queue.ts';
import { DEFAULT_KEEP_ALIVE, type KeepAlive, keepSessionAlive } from './session-keep-alive.ts';

/** A session of one generation; its client runs one query at a time. */
export interface SessionLease {
  readonly generation: number;
  readonly client: Promise<PostgresPoolClient>;
}

export class PostgresSharedSession {
  readonly #connect: () => Promise<PostgresPoolClient>;
  readonly #onEnd: (keys: readonly string[], lost: string | undefined) => void;
  readonly #keepAlive: KeepAlive;
  #session: (SessionLease & { readonly onError: () => void; stopKeepAlive?: () => void }) | undefined;
  #generation = 0;
  // Operations between taking the session and being done with it: the session must not
  // go back to the pool while one of their queries is still on it.
  #using = 0;
  // What is held on it, with the generation holding each key.
  readonly #held = new Map<string, number>();

  /**
   * `connect` checks a connection out of the session pool; `onEnd` hears the keys that
   * went with a session that ended while holding them (`lost` says why, when it was lost).
   */
  constructor(
    connect: () => Promise<PostgresPoolClient>,
    onEnd: (keys: readonly string[], lost: string | undefined) => void,
    keepAlive: KeepAlive = DEFAULT_KEEP_ALIVE,
  ) {
    this.#connect = connect;
    this.#onEnd = onEnd;
    this.#keepAlive = keepAlive;
  }

  /** Runs `f` with the session (opened if needed), which stays checked out while `f` runs. */
  async use<T>(f: (lease: SessionLease) => Promise<T>): Promise<T> {
    this.#using += 1;
    try {
      return await f(this.#current());
    } finally {
      this.#using -= 1;
      this.#releaseIfIdle();
    }
  }

  /** Records `key` as held on generation `generation`; false when that session is gone meanwhile. */
  hold(key: string, generation: number): boolean {
    if (this.#session?.generation !== generation) return false;
    this.#held.set(key, generation);
    return true;
  }

  /** The generation of the live session holding `key`, if any. */
  holder(key: string): number | undefined {
    return this.#held.get(key);
  }

  /** Forgets `key` (its lock was let go, or is about to be). */
  forget(key: string): void {
    this.#held.delete(key);
  }

  /** Whether `generation` is the session open now. */
  isOpen(generation: number): boolean {
    return this.#session?.generation === generation;
  }

  /**
   * Lets go of the session of `generation`: destroyed when its locks must go (lost, or in
   * an unknown state), else returned to the pool (it holds no lock then).
   */
  end(generation: number, destroy: boolean, lost?: string): void {
    const session = this.#session;
    if (session?.generation !== generation) return;
    this.#session = undefined;
    session.stopKeepAlive?.();
    const dropped: string[] = [];
    for (const [key, g] of this.#held)
      if (g === generation) {
        this.#held.delete(key);
        dropped.push(key);
      }
    if (dropped.length > 0) this.#onEnd(dropped, lost);
    void session.client
      .then((c) => {
        (c as ErrorEvents).off?.('error', session.onError);
        c.release(destroy);
      })
      .catch(() => {});
  }

  /** Ends the session (the store closes): what it held is free elsewhere. */
  dispose(): void {
    if (this.#session !== undefined) this.end(this.#session.generation, true);
    this.#held.clear();
  }

  #current(): SessionLease {
    if (this.#session !== undefined) return this.#session;
    this.#generation += 1;
    const generation = this.#generation;
    // A dropped connection ends the session and what it holds; the host must not crash.
    const onError = (error?: unknown): void =>
      this.end(generation, true, `its connection failed${error instanceof Error ? ` (${error.message})` : ''}`);
    const session: SessionLease & { readonly onError: () => void; stopKeepAlive?: () => void } = {
      generation,
      client: this.#connect().then((c) => {
        (c as ErrorEvents).on?.('error', onError);
        const queued = oneQueryAtATime(c);
        if (this.#session === session)
          session.stopKeepAlive = keepSessionAlive(queued, this.#keepAlive, (why) => this.end(generation, true, why));
        return queued;
      }),
      onError,
    };
    const client = session.client;
    this.#session = session;
    client.catch(() => this.end(generation, false)); // could not connect: the next use tries again
    return this.#session;
  }

  #releaseIfIdle(): void {
    const session = this.#session;
    if (session === undefined || this.#using > 0) return;
    for (const g of this.#held.values()) if (g === session.generation) return;
    this.end(session.generation, false);
  }
}
