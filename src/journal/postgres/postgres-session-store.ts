// Sessions of the PostgreSQL store: one row per session in `ptc_sessions`, shared by every
// host of the database, so a session started on one host continues on another. Taking
// the lease and saving are each one conditional UPDATE (the row lock makes the check and
// the write one step), so two hosts can never both hold a session or both save over the
// same version.
import type { LeaseOutcome, SessionStore } from '../../sessions/session-store.ts';
import { SESSION_COLUMNS, type SessionRow, sessionRecord, sessionSummary } from '../session-rows.ts';
import type { PostgresPool } from './postgres-pool.ts';

/** The sessions table (schema version 2). */
export const POSTGRES_SESSIONS_SCHEMA = `
CREATE TABLE IF NOT EXISTS ptc_sessions (
  id text PRIMARY KEY,
  agent text,
  principal text,
  state text NOT NULL,
  bytes bigint NOT NULL,
  version bigint NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  lease_owner text,
  lease_until bigint
);
CREATE INDEX IF NOT EXISTS ptc_sessions_expires ON ptc_sessions (expires_at);
`;

export function createPostgresSessionStore(ready: () => Promise<void>, pool: () => PostgresPool): SessionStore {
  const rows = async (sql: string, params: unknown[]): Promise<SessionRow[]> => {
    await ready();
    return (await pool().query(sql, params)).rows as SessionRow[];
  };
  return {
    async getSession(id, now) {
      const [row] = await rows(`SELECT ${SESSION_COLUMNS}, state FROM ptc_sessions WHERE id = $1 AND expires_at > $2`, [
        id,
        now,
      ]);
      return row === undefined ? undefined : sessionRecord(row);
    },
    async leaseSession(id, lease, expiresAt, now): Promise<LeaseOutcome> {
      const [row] = await rows(
        `UPDATE ptc_sessions SET lease_owner = $2, lease_until = $3, expires_at = $4
         WHERE id = $1 AND expires_at > $5 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until <= $5)
         RETURNING ${SESSION_COLUMNS}, state`,
        [id, lease.owner, lease.until, expiresAt, now],
      );
      if (row !== undefined) return { kind: 'leased', record: sessionRecord(row) };
      const [held] = await rows(
        'SELECT lease_owner, lease_until FROM ptc_sessions WHERE id = $1 AND expires_at > $2 AND lease_until > $2',
        [id, now],
      );
      return held?.lease_owner != null && held.lease_until != null
        ? { kind: 'busy', lease: { owner: held.lease_owner, until: Number(held.lease_until) } }
        : { kind: 'missing' };
    },
    async saveSession(saved, owner, now) {
      if (saved.version === 1) {
        const values = [
          saved.id,
          saved.agent,
          saved.principal,
          saved.state,
          saved.bytes,
          saved.version,
          saved.createdAt,
          saved.updatedAt,
          saved.expiresAt,
        ];
        const inserted = await rows(
          `INSERT INTO ptc_sessions (id, agent, principal, state, bytes, version, created_at, updated_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING RETURNING id`,
          values,
        );
        return inserted.length === 1;
      }
      const updated = await rows(
        `UPDATE ptc_sessions SET state = $4, bytes = $5, version = $6, updated_at = $7, expires_at = $8,
           lease_owner = NULL, lease_until = NULL
         WHERE id = $1 AND agent IS NOT DISTINCT FROM $2 AND principal IS NOT DISTINCT FROM $3 AND version = $6 - 1
           AND expires_at > $9 AND (lease_owner IS NULL OR lease_owner = $10 OR lease_until <= $9)
         RETURNING id`,
        [
          saved.id,
          saved.agent,
          saved.principal,
          saved.state,
          saved.bytes,
          saved.version,
          saved.updatedAt,
          saved.expiresAt,
          now,
          owner,
        ],
      );
      return updated.length === 1;
    },
    async releaseSession(id, owner) {
      await rows(
        'UPDATE ptc_sessions SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2 RETURNING id',
        [id, owner],
      );
    },
    async deleteSession(id) {
      return (await rows('DELETE FROM ptc_sessions WHERE id = $1 RETURNING id', [id])).length === 1;
    },
    async listSessions(now) {
      await rows('DELETE FROM ptc_sessions WHERE expires_at <= $1 RETURNING id', [now]);
      const found = await rows(`SELECT ${SESSION_COLUMNS} FROM ptc_sessions ORDER BY created_at, id`, []);
      return found.map(sessionSummary);
    },
  };
}
