// A journal store on SQLite (`node:sqlite`, built into Node; no dependency). Each append
// is one transaction, committed with `synchronous=FULL` in WAL mode, so an append is
// durable when it resolves and all-or-nothing when the process dies: there is no torn
// line to skip. Beside the events it keeps, per event, the call's root, agent and
// parent and the append time, indexed, so a session can be queried by root call,
// agent or time. `DatabaseSync` is synchronous: an append holds the event loop for
// its fsync (the file journal's fsync is off-thread).
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Journal, JournalContents, JournalEvent, JournalWarning } from '../journal.ts';
import { deepFreeze } from '../../json/json-value.ts';
import { isJournalEvent } from '../parse-journal.ts';
import { RUN_EVENT_TYPES } from '../run-journal-events.ts';
import { loadNodeSqlite } from './load-node-sqlite.ts';
import { createSqliteRunClaims, RUN_CLAIMS_SCHEMA } from './sqlite-run-claims.ts';
import { checkOnlyJournalSchema } from './sqlite-schema-check.ts';
import { count, millis, type JournalEntry, type JournalQuery } from '../journal-query.ts';
import { createSqliteSessionStore, SQLITE_SESSIONS_SCHEMA } from './sqlite-session-store.ts';
import type { SessionStore } from '../../sessions/session-store.ts';

export type { JournalEntry, JournalQuery } from '../journal-query.ts';

export interface SqliteJournalOptions {
  /** Rows that do not hold a journal event, found by `read()`. Default: `process.emitWarning`. */
  readonly onWarning?: (warning: JournalWarning) => void;
  /** The clock for `at`. @default Date.now */
  readonly now?: () => number;
}

export interface SqliteJournal extends Journal {
  readonly path: string;
  /** Matching events in append order. */
  query(query?: JournalQuery): Promise<readonly JournalEntry[]>;
  /** Sessions (`createToolRuntime({ sessions })`), in a table beside the journal. */
  readonly sessions: SessionStore;
  /** Closes the database; later appends reject. */
  close(): void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ptc_journal (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  type TEXT NOT NULL,
  call_id TEXT NOT NULL,
  root_call_id TEXT NOT NULL,
  parent_call_id TEXT,
  agent TEXT,
  event TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ptc_journal_root ON ptc_journal (root_call_id, seq);
CREATE INDEX IF NOT EXISTS ptc_journal_agent ON ptc_journal (agent, seq);
CREATE INDEX IF NOT EXISTS ptc_journal_at ON ptc_journal (at);
CREATE INDEX IF NOT EXISTS ptc_journal_call ON ptc_journal (call_id, type);
`;

interface Row {
  readonly seq: number;
  readonly at: number;
  readonly event: string;
}

export function openSqliteJournal(path: string, options: SqliteJournalOptions = {}): SqliteJournal {
  if (typeof path !== 'string' || path.length === 0)
    throw new TypeError('openSqliteJournal: path must be a non-empty file path (or ":memory:")');
  const onWarning = options.onWarning ?? ((w: JournalWarning) => process.emitWarning(w.message, 'JournalWarning'));
  const now = options.now ?? Date.now;
  const { DatabaseSync: Database } = loadNodeSqlite();
  const db: DatabaseSync = new Database(path, { timeout: 5000 });
  try {
    // A file someone else prepared runs nothing of theirs here (see sqlite-schema-check.ts).
    checkOnlyJournalSchema(db, path, SCHEMA + RUN_CLAIMS_SCHEMA + SQLITE_SESSIONS_SCHEMA);
    // No SQL function with side effects from the schema; no writes to the schema itself.
    db.exec('PRAGMA trusted_schema = OFF;');
    db.enableDefensive?.(true);
    // WAL + FULL: a committed transaction is fsync'd before COMMIT returns.
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
    db.exec(SCHEMA);
  } catch (error) {
    db.close();
    throw error;
  }
  const insert = db.prepare(
    'INSERT INTO ptc_journal (at, type, call_id, root_call_id, parent_call_id, agent, event) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  // A result row takes its chain and agent from its call's row, so queries find both.
  const callOf = db.prepare(
    "SELECT root_call_id AS root, parent_call_id AS parent, agent FROM ptc_journal WHERE call_id = ? AND type = 'tool/call' ORDER BY seq DESC LIMIT 1",
  );
  let closed = false;
  const claims = createSqliteRunClaims(db);
  const sessions = createSqliteSessionStore(db, () => closed, path);

  const rows = (sql: string, params: (string | number | null)[]): Row[] =>
    db.prepare(sql).all(...params) as unknown as Row[];

  return {
    path,
    claims,
    sessions,
    async append(events: readonly JournalEvent[]): Promise<void> {
      if (closed) throw new Error(`journal ${path}: closed`);
      const lines = events.map((event, i) => {
        if (!isJournalEvent(event))
          throw new TypeError(
            `journal ${path}: events[${i}] is not a tool/call or tool/result event (nor a run/* event)`,
          );
        return { event, text: JSON.stringify(event) };
      });
      const at = now();
      db.exec('BEGIN IMMEDIATE');
      try {
        for (const { event, text } of lines) insertEvent(insert, callOf, at, event, text);
        db.exec('COMMIT');
      } catch (error) {
        if (db.isTransaction) db.exec('ROLLBACK');
        throw error;
      }
    },
    async read(): Promise<JournalContents> {
      const contents = toContents(rows('SELECT seq, at, event FROM ptc_journal ORDER BY seq', []), path);
      contents.warnings.forEach(onWarning);
      return contents;
    },
    async query(query: JournalQuery = {}): Promise<readonly JournalEntry[]> {
      const where: string[] = [];
      const params: (string | number | null)[] = [];
      if (query.rootCallId !== undefined) {
        where.push('root_call_id = ?');
        params.push(String(query.rootCallId));
      }
      if (query.agent !== undefined) {
        where.push(query.agent === null ? 'agent IS NULL' : 'agent = ?');
        if (query.agent !== null) params.push(String(query.agent));
      }
      if (query.since !== undefined) {
        where.push('at >= ?');
        params.push(millis(query.since, 'since'));
      }
      if (query.until !== undefined) {
        where.push('at < ?');
        params.push(millis(query.until, 'until'));
      }
      if (query.type !== undefined) {
        if (
          query.type !== 'tool/call' &&
          query.type !== 'tool/result' &&
          query.type !== 'user/message' &&
          !(RUN_EVENT_TYPES as readonly string[]).includes(query.type)
        )
          throw new TypeError(
            `journal query: type must be "tool/call" or "tool/result", got ${JSON.stringify(query.type)} (the run/* event types and "user/message" are accepted too)`,
          );
        where.push('type = ?');
        params.push(query.type);
      }
      if (query.afterSeq !== undefined) {
        where.push('seq > ?');
        params.push(count(query.afterSeq, 'afterSeq', 0));
      }
      const limit = query.limit === undefined ? '' : ` LIMIT ${count(query.limit, 'limit', 1)}`;
      const sql = `SELECT seq, at, event FROM ptc_journal${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY seq${limit}`;
      const entries: JournalEntry[] = [];
      for (const row of rows(sql, params)) {
        const event = parseRow(row);
        if (event !== undefined) entries.push(deepFreeze({ seq: row.seq, at: row.at, event }));
      }
      return entries;
    },
    close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}

function insertEvent(
  insert: StatementSync,
  callOf: StatementSync,
  at: number,
  event: JournalEvent,
  text: string,
): void {
  if (event.type !== 'tool/call' && event.type !== 'tool/result') {
    // A run's own event: filed under its run_code call (root and agent from that call's row).
    const call = callOf.get(event.callId) as { root: string; agent: string | null } | undefined;
    insert.run(at, event.type, event.callId, call?.root ?? event.callId, null, call?.agent ?? null, text);
    return;
  }
  if (event.type === 'tool/call') {
    insert.run(
      at,
      event.type,
      event.callId,
      event.rootCallId ?? event.callId,
      event.parentCallId ?? null,
      event.agent,
      text,
    );
    return;
  }
  const call = callOf.get(event.callId) as { root: string; parent: string | null; agent: string | null } | undefined;
  insert.run(at, event.type, event.callId, call?.root ?? event.callId, call?.parent ?? null, call?.agent ?? null, text);
}

function parseRow(row: Row): JournalEvent | undefined {
  try {
    const parsed: unknown = JSON.parse(row.event);
    return isJournalEvent(parsed) ? deepFreeze(parsed) : undefined;
  } catch {
    return undefined;
  }
}

function toContents(all: readonly Row[], path: string): JournalContents {
  const events: JournalEvent[] = [];
  const warnings: JournalWarning[] = [];
  for (const row of all) {
    const event = parseRow(row);
    if (event !== undefined) events.push(event);
    else
      warnings.push({
        kind: 'unreadable-line',
        line: row.seq,
        message: `${path}: row ${row.seq} is not a journal event; skipped`,
      });
  }
  return { events, warnings };
}
