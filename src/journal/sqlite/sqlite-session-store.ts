// Sessions of the SQLite store: one row per session in `ptc_sessions`, beside the journal.
// Taking the lease and saving are each one conditional UPDATE (SQLite writes one at a
// time, across processes too), so two programs can never both hold a session or both
// save over the same version.
import type { DatabaseSync } from 'node:sqlite';
import type { LeaseOutcome, SessionStore } from '../../sessions/session-store.ts';
import { SESSION_COLUMNS, type SessionRow, sessionRecord, sessionSummary } from '../session-rows.ts';

/** The sessions table (the journal store checks a database's schema against it). */
export const SQLITE_SESSIONS_SCHEMA = `
CREATE TABLE IF NOT EXISTS ptc_sessions (
  id TEXT PRIMARY KEY,
  agent TEXT,
  principal TEXT,
  state TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  version INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  lease_owner TEXT,
  lease_until INTEGER
);
CREATE INDEX IF NOT EXISTS ptc_sessions_expires ON ptc_sessions (expires_at);
`;

export function createSqliteSessionStore(db: DatabaseSync, isClosed: () => boolean, label: string): SessionStore {
  db.exec(SQLITE_SESSIONS_SCHEMA);
  const get = db.prepare(`SELECT ${SESSION_COLUMNS}, state FROM ptc_sessions WHERE id = ? AND expires_at > ?`);
  const lease = db.prepare(
    `UPDATE ptc_sessions SET lease_owner = ?, lease_until = ?, expires_at = ?
     WHERE id = ? AND expires_at > ? AND (lease_owner IS NULL OR lease_owner = ? OR lease_until <= ?)
     RETURNING ${SESSION_COLUMNS}, state`,
  );
  const holder = db.prepare(
    'SELECT lease_owner, lease_until FROM ptc_sessions WHERE id = ? AND expires_at > ? AND lease_until > ?',
  );
  const insert = db.prepare(
    `INSERT INTO ptc_sessions (id, agent, principal, state, bytes, version, created_at, updated_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
  );
  const update = db.prepare(
    `UPDATE ptc_sessions SET state = ?, bytes = ?, version = ?, updated_at = ?, expires_at = ?,
       lease_owner = NULL, lease_until = NULL
     WHERE id = ? AND agent IS ? AND principal IS ? AND version = ?
       AND expires_at > ? AND (lease_owner IS NULL OR lease_owner = ? OR lease_until <= ?)`,
  );
  const release = db.prepare(
    'UPDATE ptc_sessions SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?',
  );
  const remove = db.prepare('DELETE FROM ptc_sessions WHERE id = ?');
  const purge = db.prepare('DELETE FROM ptc_sessions WHERE expires_at <= ?');
  const list = db.prepare(`SELECT ${SESSION_COLUMNS} FROM ptc_sessions ORDER BY created_at, id`);
  const open = (): void => {
    if (isClosed()) throw new Error(`journal ${label}: closed`);
  };
  return {
    async getSession(id, now) {
      open();
      const row = get.get(id, now) as SessionRow | undefined;
      return row === undefined ? undefined : sessionRecord(row);
    },
    async leaseSession(id, held, expiresAt, now): Promise<LeaseOutcome> {
      open();
      const row = lease.get(held.owner, held.until, expiresAt, id, now, held.owner, now) as SessionRow | undefined;
      if (row !== undefined) return { kind: 'leased', record: sessionRecord(row) };
      const other = holder.get(id, now, now) as { lease_owner: string | null; lease_until: number | null } | undefined;
      return other?.lease_owner != null && other.lease_until != null
        ? { kind: 'busy', lease: { owner: other.lease_owner, until: Number(other.lease_until) } }
        : { kind: 'missing' };
    },
    async saveSession(saved, owner, now) {
      open();
      if (saved.version === 1) {
        const { changes } = insert.run(
          saved.id,
          saved.agent,
          saved.principal,
          saved.state,
          saved.bytes,
          saved.version,
          saved.createdAt,
          saved.updatedAt,
          saved.expiresAt,
        );
        return Number(changes) === 1;
      }
      const { changes } = update.run(
        saved.state,
        saved.bytes,
        saved.version,
        saved.updatedAt,
        saved.expiresAt,
        saved.id,
        saved.agent,
        saved.principal,
        saved.version - 1,
        now,
        owner,
        now,
      );
      return Number(changes) === 1;
    },
    async releaseSession(id, owner) {
      open();
      release.run(id, owner);
    },
    async deleteSession(id) {
      open();
      return Number(remove.run(id).changes) === 1;
    },
    async listSessions(now) {
      open();
      purge.run(now);
      return (list.all() as unknown as SessionRow[]).map(sessionSummary);
    },
  };
}
