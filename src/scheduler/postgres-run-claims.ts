// Run claims of the PostgreSQL store, for many hosts: a claim is a session-level
// advisory lock on the run (pg_try_advisory_lock, so of two hosts claiming at once
// exactly one gets it — no read-then-write race) held on a dedicated connection for as
// long as the claim lasts, plus a row in ptc_run_claims saying who holds it. When the
// holder's host dies its session ends and the lock with it: the row is then stale, and
// the next claim (on any host) takes the run over. Liveness is the lock, not a pid, so
// it holds across hosts.
import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from './postgres-journal.ts';
import { isClaimLive, isRunClaim, type RunClaim, type RunClaims } from './run-claims.ts';

interface Held {
  readonly claim: RunClaim;
  readonly client: PostgresPoolClient;
}

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
): RunClaims & { dispose(): void } {
  // Claims this process holds, with the connection that holds each one's lock.
  const held = new Map<string, Held>();

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
    const mine = held.get(claim.runId);
    if (mine !== undefined) return mine.claim.owner === claim.owner ? undefined : mine.claim;
    const client = await pools().sessions.connect();
    let kept = false;
    let released = false;
    try {
      const { rows } = await client.query('SELECT pg_try_advisory_lock($1::bigint) AS ok', [runLockId(claim.runId)]);
      if ((rows[0] as { ok?: unknown } | undefined)?.ok !== true) {
        // A live session holds it: report its claim (written right after its lock)...
        const row = await rowOf(claim.runId);
        const holder = row ?? { runId: claim.runId, owner: '(another session)', pid: 0, host: '', at: 0 };
        if (Date.now() >= deadline) return holder;
        // ...once its row is written (the holder may be between its lock and its row), and
        // unless its process on this host is gone while the server is still ending its session.
        if (row !== undefined && isClaimLive(row)) return row;
        client.release();
        released = true;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return claimRun(claim, deadline);
      }
      // The lock is ours: any row left is a dead holder's, replaced.
      await client.query(
        'INSERT INTO ptc_run_claims (run_id, owner, claim) VALUES ($1, $2, $3) ON CONFLICT (run_id) DO UPDATE SET owner = EXCLUDED.owner, claim = EXCLUDED.claim',
        [claim.runId, claim.owner, JSON.stringify(claim)],
      );
      // A dropped connection ends the session and the claim with it; the host must not crash.
      (client as { on?: (event: 'error', listener: () => void) => void }).on?.('error', () => {});
      held.set(claim.runId, { claim, client });
      kept = true;
      return undefined;
    } finally {
      if (!kept && !released) client.release();
    }
  };

  return {
    claimRun: (claim) => claimRun(claim, Date.now() + 2_000),
    /** Ends the sessions of held claims (the store closes): their runs become claimable elsewhere. */
    dispose() {
      for (const { client } of held.values()) client.release(true);
      held.clear();
    },
    async releaseRun(runId, owner) {
      await ready();
      const mine = held.get(runId);
      if (mine !== undefined) {
        if (mine.claim.owner !== owner) return;
        held.delete(runId);
        let destroy = false;
        try {
          await mine.client.query('DELETE FROM ptc_run_claims WHERE run_id = $1 AND owner = $2', [runId, owner]);
          await mine.client.query('SELECT pg_advisory_unlock($1::bigint)', [runLockId(runId)]);
        } catch {
          // Its session ends with the connection: the lock goes, the row is stale.
          destroy = true;
        } finally {
          mine.client.release(destroy);
        }
        return;
      }
      // Another process's claim is not ours to end while its session lives.
      await withFreeLock(runId, (client) =>
        client.query('DELETE FROM ptc_run_claims WHERE run_id = $1 AND owner = $2', [runId, owner]),
      );
    },
    async runClaim(runId) {
      await ready();
      const mine = held.get(runId);
      if (mine !== undefined) return mine.claim;
      // Free lock: whatever row is left belongs to a session that is gone; it is cleared.
      const free = await withFreeLock(runId, async (client) => {
        await client.query('DELETE FROM ptc_run_claims WHERE run_id = $1', [runId]);
      });
      return free === undefined ? rowOf(runId) : undefined;
    },
  };
}
