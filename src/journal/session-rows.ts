// A `ptc_sessions` row as the SQL stores read it (SQLite and PostgreSQL keep the same
// columns), and the session it stands for. PostgreSQL's driver gives bigint columns as
// strings, SQLite as numbers: both are read through Number.
import type { SessionRecord, SessionSummary } from '../sessions/session-store.ts';

/** The columns a listing reads (the state is read only for one session). */
export const SESSION_COLUMNS =
  'id, agent, principal, bytes, version, created_at, updated_at, expires_at, lease_owner, lease_until';

/** One row of `ptc_sessions`. */
export interface SessionRow {
  readonly id: string;
  readonly agent: string | null;
  readonly principal: string | null;
  readonly state?: string;
  readonly bytes: string | number;
  readonly version: string | number;
  readonly created_at: string | number;
  readonly updated_at: string | number;
  readonly expires_at: string | number;
  readonly lease_owner: string | null;
  readonly lease_until: string | number | null;
}

/** The session a row stands for, without its state. */
export function sessionSummary(row: SessionRow): SessionSummary {
  const base = {
    id: row.id,
    agent: row.agent,
    principal: row.principal,
    bytes: Number(row.bytes),
    version: Number(row.version),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    expiresAt: Number(row.expires_at),
  };
  return row.lease_owner === null || row.lease_until === null
    ? base
    : { ...base, lease: { owner: row.lease_owner, until: Number(row.lease_until) } };
}

/** The session a row stands for, with its state (`{}` when the row was read without it). */
export const sessionRecord = (row: SessionRow): SessionRecord => ({ ...sessionSummary(row), state: row.state ?? '{}' });
