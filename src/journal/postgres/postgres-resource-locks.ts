// Resource locks of the PostgreSQL store, across hosts: a key is a session-level
// advisory lock on a hash of it, held while the body runs and released with its session
// when the host dies.
//
// Keys nobody else holds cost no connection of their own: they are taken with
// pg_try_advisory_lock on one session shared by the whole process (a session holds any
// number of advisory locks), so the number of keys held at once is not bounded by the
// session pool. Only a key another host holds is waited for on a dedicated connection
// (pg_advisory_lock, cancelled from another connection when the wait's signal aborts),
// and held on it until released: the lock cannot move between sessions without letting
// go of it. Advisory locks are re-entrant per session, so within the process a key is
// taken one holder at a time (a FIFO keyed mutex first).
//
// Every lock taken draws a fencing token (fencing.ts), and its holder gets a fence. The
// shared session goes back to the pool once it holds no key (an idle process can exit).
// If a session holding keys is lost (a dropped connection, a terminated backend, a
// keep-alive query unanswered), every key on it is lost with it: the fence of each aborts,
// naming its key, so the bodies holding them are told; the host also gets a
// JournalWarning naming how many, their releases do nothing, and the next lock opens a
// new session.
import { createHash } from 'node:crypto';
import { createKeyedMutex } from '../../pipeline/resource-locks.ts';
import type { HeldLock } from '../../pipeline/resource-locks.ts';
import { HeldFences, NEXT_TOKEN, TRY_LOCK_WITH_TOKEN, tokenOf } from './fencing.ts';
import type { PostgresPool, PostgresPoolClient } from './postgres-pool.ts';
import { type ErrorEvents, oneQueryAtATime } from './postgres-query-queue.ts';
import { PostgresSharedSession } from './postgres-shared-session.ts';
import { type KeepAlive, keepSessionAlive } from './session-keep-alive.ts';

/** What the store gives its resource locks. */
export interface PostgresResourceLockOptions {
  /** Connects and migrates. */
  readonly ready: () => Promise<void>;
  /** The pool for short queries (cancels) and the one whose connections hold sessions. */
  readonly pools: () => { readonly main: PostgresPool; readonly sessions: PostgresPool };
  /** "journal postgres://…", the start of every error and warning. */
  readonly label: string;
  /** The size of the session pool the store created; undefined for a pool the caller gave. */
  readonly sessionPoolSize: number | undefined;
  readonly connectTimeoutMs: number;
  /** Turns a driver error into one sentence. */
  readonly describe: (error: unknown) => string;
  /** How sessions holding keys are probed. */
  readonly keepAlive: KeepAlive;
}

export interface PostgresResourceLocks {
  /**
   * Holds `key` on every host of the database until the returned function is called
   * (again: nothing); its `fence` has the lock's fencing token and aborts if the lock is lost.
   */
  lockResource(key: string, signal: AbortSignal): Promise<HeldLock>;
  /** Ends the shared session (the store closes): its keys are free elsewhere. */
  dispose(): void;
}

/** The bigint advisory-lock id of a resource key (the first 8 bytes of its SHA-256). */
export function advisoryKey(key: string): string {
  return createHash('sha256').update(`ptc-resource:${key}`).digest().readBigInt64BE(0).toString();
}

export function createPostgresResourceLocks(options: PostgresResourceLockOptions): PostgresResourceLocks {
  const { ready, pools, label } = options;
  // One holder per key id in this process (the shared session would let a second one in).
  const local = createKeyedMutex();
  // The fence of each key held, by advisory id (one holder per id in the process).
  const fences = new HeldFences();
  // Keys nobody else held, on the session shared by the process.
  const session = new PostgresSharedSession(
    () => pools().sessions.connect(),
    (ids, lost) => {
      for (const id of ids) fences.lose(id, label, lost ?? 'the journal store was closed');
      if (lost === undefined) return;
      process.emitWarning(
        `${label}: the session holding ${ids.length} resource lock${ids.length === 1 ? '' : 's'} was lost (${lost}); the calls holding them run on without their locks, and other processes may take those keys meanwhile`,
        'JournalWarning',
      );
    },
    options.keepAlive,
  );
  const what = (key: string): string => `the lock on resource ${JSON.stringify(key)}`;

  const fail = (error: unknown): Error => {
    const message = error instanceof Error ? error.message : String(error);
    // pg-pool's words when every connection of the pool stayed checked out.
    if (message.includes('timeout exceeded when trying to connect')) {
      const limit =
        options.sessionPoolSize === undefined
          ? 'every connection of the given pool is in use'
          : `all sessionPoolSize (${options.sessionPoolSize}) session connections are in use`;
      const raise =
        options.sessionPoolSize === undefined
          ? 'give the pool more connections (its max)'
          : 'raise it: openPostgresJournal(url, { sessionPoolSize })';
      return new Error(
        `${label}: resource lock failed: no session connection was free within ${options.connectTimeoutMs} ms — ${limit} (one shared by the keys this process holds, one shared by its durable runs' claims, and one per key it waits for or holds while another process held it); ${raise}`,
        { cause: error },
      );
    }
    return new Error(`${label}: resource lock failed (${options.describe(error)})`, { cause: error });
  };

  /** Lets go of a key held on the shared session of generation `gen` (nothing if that session is gone). */
  const unlockShared = async (id: string, gen: number): Promise<void> => {
    if (session.holder(id) !== gen) return;
    fences.close(id);
    session.forget(id);
    if (!session.isOpen(gen)) return;
    await session.use(async ({ client }) => {
      try {
        await (await client).query('SELECT pg_advisory_unlock($1::bigint)', [id]);
      } catch {
        // Whether the key is still held is unknown: end the session (its locks go with it).
        session.end(gen, true, 'an unlock failed');
      }
    });
  };

  /** The key on the shared session when nobody holds it: its release, or undefined when another session holds it. */
  const tryShared = (key: string, id: string, signal: AbortSignal): Promise<(() => Promise<void>) | undefined> =>
    session.use(async ({ generation, client: connecting }) => {
      let client: PostgresPoolClient;
      try {
        client = await untilAborted(connecting, signal, () => {});
      } catch (error) {
        throw signal.aborted ? signal.reason : fail(error);
      }
      let token: number | undefined;
      try {
        token = tokenOf((await client.query(TRY_LOCK_WITH_TOKEN, [id])).rows);
      } catch (error) {
        session.end(generation, true, 'a lock failed'); // whether it was taken is unknown
        throw fail(error);
      }
      if (token === undefined) return undefined;
      if (!session.hold(id, generation))
        throw fail(new Error('the session to PostgreSQL was lost while taking the lock'));
      fences.open(id, what(key), token);
      return () => unlockShared(id, generation);
    });

  /** Waits for a key another session holds, on a connection of its own, and holds it there. */
  const waitDedicated = async (key: string, id: string, signal: AbortSignal): Promise<() => Promise<void>> => {
    const { main, sessions } = pools();
    let client: PostgresPoolClient;
    try {
      client = await untilAborted(sessions.connect(), signal, (c) => c.release());
    } catch (error) {
      throw signal.aborted ? signal.reason : fail(error);
    }
    const pid = (client as { processID?: unknown }).processID;
    // A held connection that drops must not crash the host: its lock is gone with the
    // session (its fence tells the holder), and release() finds out.
    let stopKeepAlive = (): void => {};
    const lost = (why: string): void => {
      stopKeepAlive();
      fences.lose(id, label, why);
    };
    const onError = (error?: unknown): void =>
      lost(`its connection failed${error instanceof Error ? ` (${error.message})` : ''}`);
    (client as ErrorEvents).on?.('error', onError);
    let returned = false;
    const done = (destroy: boolean): void => {
      if (returned) return;
      returned = true;
      stopKeepAlive();
      (client as ErrorEvents).off?.('error', onError);
      client.release(destroy);
    };
    // A wait cannot be interrupted from its own connection: cancel it from another one,
    // again until the wait ends (a cancel that arrives before the wait began does nothing).
    let waiting = true;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const onAbort = (): void => {
      if (!waiting) return;
      if (typeof pid !== 'number') return done(true);
      void main.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => done(true));
      retry = setTimeout(onAbort, 100);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    let token: number | undefined;
    try {
      const wait = client.query('SELECT pg_advisory_lock($1::bigint)', [id]);
      // Aborted while connecting: the listener above will never fire.
      if (signal.aborted) onAbort();
      await wait;
      waiting = false;
      token = tokenOf((await client.query(NEXT_TOKEN)).rows);
      if (token === undefined) throw new Error('no fencing token was drawn');
    } catch (error) {
      done(true);
      throw signal.aborted ? signal.reason : fail(error);
    } finally {
      waiting = false;
      clearTimeout(retry);
      signal.removeEventListener('abort', onAbort);
    }
    fences.open(id, what(key), token);
    // Held: probed (with the unlock, one query at a time) so that a silent loss is found too.
    const held = oneQueryAtATime(client);
    stopKeepAlive = keepSessionAlive(held, options.keepAlive, (why) => {
      lost(why);
      done(true);
    });
    return async () => {
      stopKeepAlive();
      fences.close(id);
      try {
        await held.query('SELECT pg_advisory_unlock($1::bigint)', [id]);
        done(false);
      } catch {
        // The session ends with the connection, and its locks with it.
        done(true);
      }
    };
  };

  return {
    async lockResource(key, signal) {
      if (signal.aborted) throw signal.reason;
      await ready();
      const id = advisoryKey(key);
      const releaseLocal = await local(id, signal);
      let unlock: () => Promise<void>;
      try {
        unlock = (await tryShared(key, id, signal)) ?? (await waitDedicated(key, id, signal));
      } catch (error) {
        releaseLocal();
        throw error;
      }
      // Undefined only when the lock was lost between its taking and here (its fence has gone).
      const fence = fences.get(id);
      let released = false;
      const release = async (): Promise<void> => {
        if (released) return;
        released = true;
        try {
          await unlock();
        } finally {
          releaseLocal();
        }
      };
      if (signal.aborted) {
        await release();
        throw signal.reason;
      }
      if (fence === undefined) {
        await release();
        throw fail(new Error('the session to PostgreSQL was lost right after the lock was taken'));
      }
      return Object.assign(release, { fence });
    },
    dispose() {
      session.dispose();
    },
  };
}

/** `promise`, or the signal's reason once it aborts (a value that comes after is given to `dispose`). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, dispose: (value: T) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) dispose(value);
        else resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
