// Run claims of the SQLite store: a table of claimed runs, read and written in one
// IMMEDIATE transaction, so of two processes claiming a run at once exactly one wins
// (the other waits on SQLite's lock, then sees the claim).
import type { DatabaseSync } from 'node:sqlite';
import { isClaimLive, isRunClaim, type RunClaim, type RunClaims } from '../run-claims.ts';

/** The claims table (the journal store checks a database's schema against it). */
export const RUN_CLAIMS_SCHEMA = `
CREATE TABLE IF NOT EXISTS ptc_run_claims (
  run_id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  claim TEXT NOT NULL
);
`;

export function createSqliteRunClaims(db: DatabaseSync): RunClaims {
  db.exec(RUN_CLAIMS_SCHEMA);
  const select = db.prepare('SELECT claim FROM ptc_run_claims WHERE run_id = ?');
  const upsert = db.prepare(
    'INSERT INTO ptc_run_claims (run_id, owner, claim) VALUES (?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET owner = excluded.owner, claim = excluded.claim',
  );
  const remove = db.prepare('DELETE FROM ptc_run_claims WHERE run_id = ? AND owner = ?');
  const current = (runId: string): RunClaim | undefined => {
    const row = select.get(runId) as { claim: string } | undefined;
    if (row === undefined) return undefined;
    try {
      const parsed: unknown = JSON.parse(row.claim);
      return isRunClaim(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    async claimRun(claim) {
      db.exec('BEGIN IMMEDIATE');
      try {
        const holder = current(claim.runId);
        if (holder !== undefined && holder.owner !== claim.owner && isClaimLive(holder)) {
          db.exec('ROLLBACK');
          return holder;
        }
        upsert.run(claim.runId, claim.owner, JSON.stringify(claim));
        db.exec('COMMIT');
        return undefined;
      } catch (error) {
        if (db.isTransaction) db.exec('ROLLBACK');
        throw error;
      }
    },
    async releaseRun(runId, owner) {
      remove.run(runId, owner);
    },
    async runClaim(runId) {
      return current(runId);
    },
  };
}
