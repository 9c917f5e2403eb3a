// Run claims of the PostgreSQL store, for many hosts: a claim is a session-level
// advisory lock on the run (pg_try_advisory_lock, so of two hosts claiming at once
// exactly one gets it — no read-then-write race) plus a row in ptc_run_claims saying who
// holds it. When the holder's host dies its session ends and the lock with it: the row
// is then stale, and the next claim (on any host) takes the run over. Liveness is the
// lock, not a pid, so it holds across hosts.
//
// All claims of one process share one dedicated session (advisory locks are per session,
// any number per session): a connection per claim would cap a process at its session
// pool's size in runs in flight. In-process, claims of one run are taken one at a time,
// since a session's advisory locks are re-entrant and would let both of two local
// claimers in. Every claim draws a fencing token and has a fence (fencing.ts). If that
// session is lost (a dropped connection, a terminated backend, a keep-alive query
// unanswered), every claim on it goes: each run's fence aborts (the runtime stops the run),
// the store refuses the run's journal rows from then on (another process may resume it
// meanwhile; its rows are the ones that count), and the host gets a JournalWarning naming
// them; their releases end nothing of the new holders'.
import { createHash } from 'node:crypto';
import type { Fence, FenceLostError } from '../../pipeline/fence.ts';
import { HeldFences, TRY_LOCK_WITH_TOKEN, tokenOf } from './fencing.ts';
import type { PostgresPool, PostgresPoolClient } from './postgres-pool.ts';
import { PostgresSharedSession } from './postgres-shared-session.ts';
import type { KeepAlive } from './session-keep-alive.ts';
import { isClaimLive, isRunClaim, type RunClaim, type RunClaims } from '../run-claims.ts';

/** The bigint advisory-lock id of a run. */
function runLockId(runId: string): string {
  return createHash('sha256').update(`ptc-run:${runId}`).digest().readBigInt64BE(0).toString();
}

function parseClaim(text: unknown): RunClaim | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isRunClaim(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `ready` connects and migrates; `pools` gives the pool for short queries and the one
 * whose connections hold sessions (locks, claims).
 */
export function createPostgresRunClaims(
  ready: () => Promise<void>,
  pools: () => { readonly main: PostgresPool; readonly sessions: PostgresPool },
  label: string,
  describe: (error: unknown) => string,
  keepAlive: KeepAlive,
): RunClaims & {
  dispose(): void;
  /** Why this process no longer writes the run's rows: its claim was lost while held (until it claims the run again). */
  lostClaim(runId: string): FenceLostError | undefined;
} {
  // Claims this process holds, by run (each on the shared session, which knows which generation).
  const claims = new Map<string, RunClaim>();
  const fences = new HeldFences();
  // Runs whose claim this process lost while running them: their rows are refused.
  const lost = new Map<string, FenceLostError>();
  const session = new PostgresSharedSession(
    () => pools().sessions.connect(),
    (runIds, why) => {
      for (const runId of runIds) {
        claims.delete(runId);
        const fence = fences.get(runId);
        fences.lose(runId, label, why ?? 'the journal store was closed');
        if (fence !== undefined && why !== undefined) lost.set(runId, fence.signal.reason as FenceLostError);
      }
      if (why === undefined) return;
      const named = runIds.slice(0, 10).join(', ') + (runIds.length > 10 ? `, and ${runIds.length - 10} more` : '');
      process.emitWarning(
        `${label}: the session holding the claims of ${runIds.length} durable run${runIds.length === 1 ? '' : 's'} (${named}) was lost (${why}); they were stopped here and their journal rows are refused, since another process may resume them meanwhile`,
        'JournalWarning',
      );
    },
    keepAlive,
  );
  // Per run, the tail of its in-process claim/release operations (they run one at a time).
  const tails = new Map<string, Promise<unknown>>();

  const serial = <T>(runId: string, f: () => Promise<T>): Promise<T> => {
    const run = (tails.get(runId) ?? Promise.resolve()).then(f, f);
    const tail = run.then(
      () => {},
      () => {},
    );
    tails.set(runId, tail);
    void tail.then(() => {
      if (tails.get(runId) === tail) tails.delete(runId);
    });
    return run;
  };

  const rowOf = async (runId: string): Promise<RunClaim | undefined> => {
    const { rows } = await pools().main.query('SELECT claim FROM ptc_run_claims WHERE run_id = $1', [runId]);
    return parseClaim((rows[0] as { claim?: unknown } | undefined)?.claim);
  };

  /** Runs `f` holding the run's lock briefly on a pooled connection; undefined when someone else holds it. */
  const withFreeLock = async <T>(
    runId: string,
    f: (client: PostgresPoolClient) => Promise<T>,
  ): Promise<{ value: T } | undefined> => {
    const client = await pools().sessions.connect();
    let destroy = false;
    try {
      const id = runLockId(runId);
      const { rows } = await client.query('SELECT pg_try_advisory_lock($1::bigint) AS ok', [id]);
      if ((rows[0] as { ok?: unknown } | undefined)?.ok !== true) return undefined;
      try {
        return { value: await f(client) };
      } finally {
        await client.query('SELECT pg_advisory_unlock($1::bigint)', [id]).catch(() => void (destroy = true));
      }
    } catch (error) {
      destroy = true;
      throw error;
    } finally {
      client.release(destroy);
    }
  };

  const claimRun = async (claim: RunClaim, deadline: number): Promise<RunClaim | undefined> => {
    await ready();
    for (;;) {
      const mine = claims.get(claim.runId);
      if (mine !== undefined) return mine.owner === claim.owner ? undefined : mine;
      const locked = await session.use(async ({ generation, client: connecting }) => {
        const client = await connecting;
        let token: number | undefined;
        try {
          token = tokenOf((await client.query(TRY_LOCK_WITH_TOKEN, [runLockId(claim.runId)])).rows);
          if (token === undefined) return false;
          // The lock is ours: any row left is a dead holder's, replaced.
          await client.query(
            'INSERT INTO ptc_run_claims (run_id, owner, claim) VALUES ($1, $2, $3) ON CONFLICT (run_id) DO UPDATE SET owner = EXCLUDED.owner, claim = EXCLUDED.claim',
            [claim.runId, claim.owner, JSON.stringify(claim)],
          );
        } catch (error) {
          session.end(generation, true, 'a claim failed'); // whether the lock is held is unknown
          throw error;
        }
        if (!session.hold(claim.runId, generation)) throw new Error('the claims session to PostgreSQL was lost');
        claims.set(claim.runId, claim);
        fences.open(claim.runId, `the claim on durable run ${claim.runId}`, token);
        lost.delete(claim.runId);
        return true;
      });
      if (locked) return undefined;
      // Another session holds it: report its claim (written right after its lock)...
      const row = await rowOf(claim.runId);
      const holder = row ?? { runId: claim.runId, owner: '(another session)', pid: 0, host: '', at: 0 };
      if (Date.now() >= deadline) return holder;
      // ...once its row is written (the holder may be between its lock and its row), and
      // unless its process on this host is gone while the server is still ending its session.
      if (row !== undefined && isClaimLive(row)) return row;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  return {
    claimRun: (claim) =>
      serial(claim.runId, async () => {
        try {
          return await claimRun(claim, Date.now() + 2_000);
        } catch (error) {
          // The driver's words alone ("Connection terminated") say neither where nor what.
          if (error instanceof Error && error.message.startsWith(label)) throw error;
          throw new Error(
            `${label}: claiming durable run ${claim.runId} failed (${describe(error)}); it was not claimed, try again`,
            { cause: error },
          );
        }
      }),
    /** Ends the claims session (the store closes): its runs become claimable elsewhere. */
    dispose() {
      session.dispose();
      claims.clear();
    },
    fenceOf(runId: string, owner: string): Fence | undefined {
      return claims.get(runId)?.owner === owner ? fences.get(runId) : undefined;
    },
    lostClaim: (runId) => lost.get(runId),
    releaseRun: (runId, owner) =>
      serial(runId, async () => {
        await ready();
        const mine = claims.get(runId);
        if (mine !== undefined) {
          if (mine.owner !== owner) return;
          claims.delete(runId);
          fences.close(runId);
          const generation = session.holder(runId);
          session.forget(runId);
          if (generation === undefined || !session.isOpen(generation)) return; // its session, and the lock, are gone
          await session.use(async ({ client: connecting }) => {
            try {
              const client = await connecting;
              await client.query('DELETE FROM ptc_run_claims WHERE run_id = $1 AND owner = $2', [runId, owner]);
              await client.query('SELECT pg_advisory_unlock($1::bigint)', [runLockId(runId)]);
            } catch {
              // Whether the lock is still held is unknown: end the session (its locks go with it).
              session.end(generation, true, 'a release failed');
            }
          });
          return;
        }
        // Another process's claim is not ours to end while its session lives.
        await withFreeLock(runId, (client) =>
          client.query('DELETE FROM ptc_run_claims WHERE run_id = $1 AND owner = $2', [runId, owner]),
        );
      }),
    async runClaim(runId) {
      await ready();
      const mine = claims.get(runId);
      if (mine !== undefined) return mine;
      // Free lock: whatever row is left belongs to a session that is gone; it is cleared.
      const free = await withFreeLock(runId, async (client) => {
        await client.query('DELETE FROM ptc_run_claims WHERE run_id = $1', [runId]);
      });
      return free === undefined ? rowOf(runId) : undefined;
    },
  };
}
