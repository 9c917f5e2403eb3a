// A journal store on PostgreSQL, shared by every host that names the same database:
// `journal: 'postgres://…'`. node-postgres (`pg`) is imported on first use only. The
// table is created on first use under a transaction-scoped advisory lock, so several
// hosts starting at once migrate it once, and it carries a schema version. Appends
// are write-ahead like the other stores (an append resolves once its transaction has
// committed), and appends made in the same tick by concurrent calls are grouped into
// one INSERT: one round trip for all of them (group commit), one batch in flight at a
// time, so a host's events keep their order. Beside the events it keeps each call's
// root, parent and agent and the append time, indexed, for `query`. It also serves the
// cross-host resource locks (`lockResource`, postgres-resource-locks.ts): session-level
// advisory locks, held only while the body runs and released with the session when its
// host dies.
import type { Pool, PoolConfig } from 'pg';
import { deepFreeze } from '../../json/json-value.ts';
import type { Journal, JournalContents, JournalEvent, JournalWarning } from '../journal.ts';
import { isJournalEvent } from '../parse-journal.ts';
import type { PostgresPool, PostgresPoolClient } from './postgres-pool.ts';
import { createPostgresResourceLocks } from './postgres-resource-locks.ts';
import { createPostgresRunClaims } from './postgres-run-claims.ts';
import { POSTGRES_FENCING_SCHEMA } from './fencing.ts';
import { DEFAULT_KEEP_ALIVE, type KeepAlive } from './session-keep-alive.ts';
import type { HeldLock } from '../../pipeline/resource-locks.ts';
import { createPostgresSessionStore, POSTGRES_SESSIONS_SCHEMA } from './postgres-session-store.ts';
import type { SessionStore } from '../../sessions/session-store.ts';
import type { RunClaims } from '../run-claims.ts';
import { RUN_EVENT_TYPES } from '../run-journal-events.ts';
import { count, millis, type JournalEntry, type JournalQuery } from '../journal-query.ts';

export type { PostgresPool, PostgresPoolClient } from './postgres-pool.ts';

/** Options of `openPostgresJournal`. */
export interface PostgresJournalOptions {
  /** Rows that do not hold a journal event, found by `read()`. Default: `process.emitWarning`. */
  readonly onWarning?: (warning: JournalWarning) => void;
  /** The clock for `at`. @default Date.now */
  readonly now?: () => number;
  /** Connections for appends and reads (a URL only; a given pool keeps its own size). @default 10 */
  readonly poolSize?: number;
  /**
   * Connections that hold a session: one shared by every resource key this host holds
   * while no other host holds it, one shared by the claims of every durable run this
   * host is running, and one per key this host waits for (and then holds) because
   * another host held it. Neither the number of keys held nor of runs in flight is
   * bounded by it; only keys contended across hosts at once are. @default 20
   */
  readonly sessionPoolSize?: number;
  /** How long to wait for a connection to the server. @default 10000 */
  readonly connectTimeoutMs?: number;
  /**
   * The server's `statement_timeout` for appends, reads and queries (a URL only; a given
   * pool keeps its own): a trigger someone put on the journal table runs inside every
   * append, and this ends it on the server. Lock waits are not bounded by it. @default 60000
   */
  readonly statementTimeoutMs?: number;
  /**
   * A session that holds resource locks or run claims sends a keep-alive query (`SELECT 1`)
   * this often, so that a session lost without an error (a failover, a partition) is found:
   * the bodies and runs it guarded are then aborted. A terminated backend or a closed
   * connection is found at once, without it. @default 1000
   */
  readonly keepAliveMs?: number;
  /** How long a keep-alive query may go unanswered before its session counts as lost. @default 5000 */
  readonly keepAliveTimeoutMs?: number;
}

/** A journal store on PostgreSQL, shared by every host of the same database. */
export interface PostgresJournal extends Journal {
  /** The URL without its password (or "(pool)" for a given pool). */
  readonly url: string;
  /** Connects and creates or checks the tables; rejects with one clear message when it cannot. */
  ready(): Promise<void>;
  /** Matching events in append order (seq). */
  query(query?: JournalQuery): Promise<readonly JournalEntry[]>;
  /**
   * Waits until no other holder (on any host of this database) holds `key`, then holds it
   * until the returned function is called. Rejects with the signal's reason if it aborts
   * first. The function's `fence` carries the lock's fencing token, and its signal aborts
   * if the lock is lost while held.
   */
  lockResource(key: string, signal: AbortSignal): Promise<HeldLock>;
  /** Who continues a durable run: a session advisory lock per run, released when its host dies. */
  readonly claims: RunClaims;
  /** Sessions (`createToolRuntime({ sessions })`): one table shared by every host of the database. */
  readonly sessions: SessionStore;
  /** Ends the pools (only the ones the store created) and the sessions of held claims; later appends reject. */
  close(): Promise<void>;
}

/** The version of the tables this ptc-runtime creates and reads (kept in `ptc_meta`). */
export const POSTGRES_SCHEMA_VERSION = 4;
// pg_advisory_xact_lock key for the migration ("ptc-jour" in ASCII).
const MIGRATION_LOCK = '8103961637335922034';

const SCHEMA_V1 = `
CREATE TABLE IF NOT EXISTS ptc_journal (
  seq bigserial PRIMARY KEY,
  at bigint NOT NULL,
  type text NOT NULL,
  call_id text NOT NULL,
  root_call_id text NOT NULL,
  parent_call_id text,
  agent text,
  event text NOT NULL
);
CREATE INDEX IF NOT EXISTS ptc_journal_root ON ptc_journal (root_call_id, seq);
CREATE INDEX IF NOT EXISTS ptc_journal_agent ON ptc_journal (agent, seq);
CREATE INDEX IF NOT EXISTS ptc_journal_at ON ptc_journal (at);
CREATE INDEX IF NOT EXISTS ptc_journal_call ON ptc_journal (call_id, type);
CREATE TABLE IF NOT EXISTS ptc_run_claims (
  run_id text PRIMARY KEY,
  owner text NOT NULL,
  claim text NOT NULL
);
`;

// Version 2, for operators reading the table with psql: the event as jsonb (`event`;
// the exact text the store reads back moves to `event_text`, since jsonb reorders keys
// and a re-run compares arguments as written), the run it belongs to (`run_id`: a run's
// own events and its program's calls) and the append time as timestamptz (`time`), with
// indexes for the events of one run and for run events by type (what is paused).
// Existing rows are converted in place in one pass, with the indexes built after it (an
// UPDATE that kept them would write every row into each of them).
const MIGRATE_V2_PREPARE = `
CREATE TEMP TABLE ptc_run_starts ON COMMIT DROP AS
  SELECT call_id, seq, substring(event FROM '"runId":"([^"]*)"') AS run_id FROM ptc_journal WHERE type = 'run/start';
CREATE INDEX ON ptc_run_starts (call_id, seq);
DROP INDEX IF EXISTS ptc_journal_root, ptc_journal_agent, ptc_journal_at, ptc_journal_call;
ALTER TABLE ptc_journal RENAME COLUMN event TO event_text;
ALTER TABLE ptc_journal ADD COLUMN event jsonb, ADD COLUMN run_id text, ADD COLUMN time timestamptz;
`;
/** The one pass; `jsonb` converts `event_text`. */
const migrateV2Fill = (jsonb: string): string => `
UPDATE ptc_journal j SET event = ${jsonb}, time = to_timestamp(at / 1000.0),
  run_id = CASE
    WHEN type IN ('run/start', 'run/paused', 'run/resumed', 'run/end') THEN substring(event_text FROM '"runId":"([^"]*)"')
    WHEN type IN ('tool/call', 'tool/result') AND parent_call_id IS NOT NULL THEN (
      SELECT s.run_id FROM ptc_run_starts s WHERE s.call_id = j.root_call_id AND s.seq < j.seq
      ORDER BY s.seq DESC LIMIT 1)
  END`;
// When some row's text is not JSON jsonb takes (a NUL, a lone surrogate, a row someone
// else wrote), the pass runs again converting row by row: such a text becomes the jsonb
// with U+FFFD, or else a JSON string (the store still reports that row as unreadable).
const MIGRATE_V2_ROW_BY_ROW = `
CREATE FUNCTION pg_temp.ptc_jsonb(t text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN t::jsonb;
EXCEPTION WHEN others THEN
  BEGIN
    RETURN replace(t, '\\u0000', '\\ufffd')::jsonb;
  EXCEPTION WHEN others THEN
    RETURN to_jsonb(t);
  END;
END $$;
${migrateV2Fill('pg_temp.ptc_jsonb(event_text)')};
DROP FUNCTION pg_temp.ptc_jsonb(text);
`;
const MIGRATE_V2_FINISH = `
ALTER TABLE ptc_journal ALTER COLUMN event SET NOT NULL, ALTER COLUMN time SET NOT NULL;
CREATE INDEX ptc_journal_root ON ptc_journal (root_call_id, seq);
CREATE INDEX ptc_journal_agent ON ptc_journal (agent, seq);
CREATE INDEX ptc_journal_at ON ptc_journal (at);
CREATE INDEX ptc_journal_call ON ptc_journal (call_id, type);
CREATE INDEX ptc_journal_run ON ptc_journal (run_id, seq) WHERE run_id IS NOT NULL;
CREATE INDEX ptc_journal_run_events ON ptc_journal (type, seq)
  WHERE type IN ('run/start', 'run/paused', 'run/resumed', 'run/end');
CREATE INDEX ptc_journal_time ON ptc_journal (time);
`;

/** Schema version 1 → 2, inside the caller's transaction. */
async function migrateToV2(client: PostgresPoolClient): Promise<void> {
  await client.query(MIGRATE_V2_PREPARE);
  await client.query('SAVEPOINT ptc_v2_fill');
  try {
    await client.query(migrateV2Fill('event_text::jsonb'));
  } catch {
    await client.query('ROLLBACK TO SAVEPOINT ptc_v2_fill');
    await client.query(MIGRATE_V2_ROW_BY_ROW);
  }
  await client.query(MIGRATE_V2_FINISH);
}

// One INSERT for a batch; a result (or a run's own event) whose call is not known here
// takes its root, agent and run from the call's row. `event` is the jsonb of the text,
// or of a copy that jsonb accepts when the text has a NUL or a lone surrogate escape.
const INSERT = `
INSERT INTO ptc_journal (at, time, type, call_id, root_call_id, parent_call_id, agent, run_id, event_text, event)
SELECT $1::bigint, to_timestamp($1::bigint / 1000.0), t.type, t.call_id,
  CASE WHEN t.known THEN t.root_call_id ELSE COALESCE(c.root_call_id, t.call_id) END,
  CASE WHEN t.known THEN t.parent_call_id WHEN t.type = 'tool/result' THEN c.parent_call_id ELSE NULL END,
  CASE WHEN t.known THEN t.agent ELSE c.agent END,
  COALESCE(t.run_id, CASE WHEN t.type = 'tool/result' THEN c.run_id END),
  t.event_text, COALESCE(t.event_json, t.event_text)::jsonb
FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::boolean[], $9::text[], $10::text[])
  WITH ORDINALITY AS t(type, call_id, root_call_id, parent_call_id, agent, event_text, known, run_id, event_json, ord)
LEFT JOIN LATERAL (
  SELECT j.root_call_id, j.parent_call_id, j.agent, j.run_id FROM ptc_journal j
  WHERE NOT t.known AND j.call_id = t.call_id AND j.type = 'tool/call'
  ORDER BY j.seq DESC LIMIT 1
) c ON true
ORDER BY t.ord`;

interface Chain {
  readonly root: string;
  readonly parent: string | null;
  readonly agent: string | null;
  /** The durable run the call belongs to (its program's call), if any. */
  readonly runId: string | null;
}

interface Row {
  readonly type: JournalEvent['type'];
  readonly callId: string;
  /** Undefined: look it up from the call's row. */
  readonly chain: Chain | undefined;
  /** A run's own event: its run id (even when the chain is looked up). */
  readonly runId: string | null;
  readonly text: string;
  /** A copy of the text that jsonb accepts, when the text itself is not (NUL, lone surrogates). */
  readonly json: string | null;
}

interface Pending {
  readonly rows: readonly Row[];
  resolve(): void;
  reject(error: unknown): void;
}

interface StoredRow {
  readonly seq: string | number;
  readonly at: string | number;
  readonly event: string;
}

/** Whether a journal option names a PostgreSQL database. */
export function isPostgresUrl(spec: string): boolean {
  return /^postgres(ql)?:\/\//iu.test(spec);
}

/** `url` without its password, for messages. */
export function redactPostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/**
 * Opens (lazily: nothing connects before the first use or `ready()`) a journal on the
 * PostgreSQL database at `target`, a `postgres://` URL, or on a pool the caller owns.
 */
export function openPostgresJournal(
  target: string | { readonly pool: PostgresPool },
  options: PostgresJournalOptions = {},
): PostgresJournal {
  const ownsPools = typeof target === 'string';
  if (ownsPools && !isPostgresUrl(target))
    throw new TypeError('openPostgresJournal: give a postgres:// or postgresql:// URL, or { pool }');
  if (!ownsPools && (typeof target !== 'object' || target === null || typeof target.pool?.query !== 'function'))
    throw new TypeError('openPostgresJournal: give a postgres:// or postgresql:// URL, or { pool }');
  const url = ownsPools ? redactPostgresUrl(target) : '(pool)';
  const label = `journal ${url}`;
  const onWarning = options.onWarning ?? ((w: JournalWarning) => process.emitWarning(w.message, 'JournalWarning'));
  const now = options.now ?? Date.now;
  const poolSize = positive(options.poolSize, 10, 'poolSize');
  const sessionPoolSize = positive(options.sessionPoolSize, 20, 'sessionPoolSize');
  const connectTimeoutMs = positive(options.connectTimeoutMs, 10_000, 'connectTimeoutMs');
  const statementTimeoutMs = positive(options.statementTimeoutMs, 60_000, 'statementTimeoutMs');
  const keepAlive: KeepAlive = {
    intervalMs: positive(options.keepAliveMs, DEFAULT_KEEP_ALIVE.intervalMs, 'keepAliveMs'),
    timeoutMs: positive(options.keepAliveTimeoutMs, DEFAULT_KEEP_ALIVE.timeoutMs, 'keepAliveTimeoutMs'),
  };

  let pool: PostgresPool | undefined = ownsPools ? undefined : target.pool;
  let lockPool: PostgresPool | undefined = pool;
  let readyPromise: Promise<void> | undefined;
  let closed = false;
  // Chains of calls this store wrote, until their result is written.
  const chains = new Map<string, Chain>();
  let queue: Pending[] = [];
  let scheduled = false;
  let flushing: Promise<void> | undefined;

  const createPools = async (): Promise<void> => {
    if (pool !== undefined) return;
    const pg = await import('pg');
    const config = (max: number): PoolConfig => ({
      connectionString: target as string,
      max,
      connectionTimeoutMillis: connectTimeoutMs,
      allowExitOnIdle: true,
      application_name: 'ptc-runtime',
    });
    const warn = (error: Error): void =>
      process.emitWarning(`${label}: an idle connection failed (${error.message})`, 'JournalWarning');
    // Session locks wait as long as their holder runs: no statement timeout on their pool.
    const main: Pool = new pg.Pool({ ...config(poolSize), statement_timeout: statementTimeoutMs });
    const locks: Pool = new pg.Pool(config(sessionPoolSize));
    main.on('error', warn);
    locks.on('error', warn);
    pool = main as unknown as PostgresPool;
    lockPool = locks as unknown as PostgresPool;
  };

  const migrate = async (): Promise<void> => {
    await createPools();
    const client = await pool!.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
      await client.query('CREATE TABLE IF NOT EXISTS ptc_meta (key text PRIMARY KEY, value text NOT NULL)');
      const { rows } = await client.query("SELECT value FROM ptc_meta WHERE key = 'schema_version'");
      const found = rows.length === 0 ? 0 : Number((rows[0] as { value: string }).value);
      if (found > POSTGRES_SCHEMA_VERSION)
        throw new Error(
          `the database holds journal schema version ${found}, newer than this ptc-runtime supports (${POSTGRES_SCHEMA_VERSION}); upgrade ptc-runtime`,
        );
      if (found < 1) await client.query(SCHEMA_V1);
      if (found < 2) await migrateToV2(client);
      // Version 3 adds the sessions table, version 4 the fencing tokens' sequence.
      if (found < 3) await client.query(POSTGRES_SESSIONS_SCHEMA);
      if (found < 4) await client.query(POSTGRES_FENCING_SCHEMA);
      if (found < POSTGRES_SCHEMA_VERSION)
        await client.query(
          "INSERT INTO ptc_meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
          [String(POSTGRES_SCHEMA_VERSION)],
        );
      await client.query('COMMIT');
      await warnOfForeignTriggers(client, label, ownsPools ? statementTimeoutMs : undefined).catch(() => {});
    } catch (error) {
      await client.query('ROLLBACK').catch(() => void (broken = true));
      throw error;
    } finally {
      client.release(broken);
    }
  };

  const ready = (): Promise<void> => {
    if (closed) return Promise.reject(new Error(`${label}: closed`));
    readyPromise ??= migrate().catch((error: unknown) => {
      readyPromise = undefined;
      throw new Error(`${label}: ${describePostgresError(error, connectTimeoutMs)}`, { cause: error });
    });
    return readyPromise;
  };

  const insert = async (rows: readonly Row[]): Promise<void> => {
    const column = <T>(pick: (row: Row) => T): T[] => rows.map(pick);
    await pool!.query(INSERT, [
      now(),
      column((r) => r.type),
      column((r) => r.callId),
      column((r) => r.chain?.root ?? null),
      column((r) => r.chain?.parent ?? null),
      column((r) => r.chain?.agent ?? null),
      column((r) => r.text),
      column((r) => r.chain !== undefined),
      column((r) => r.runId ?? r.chain?.runId ?? null),
      column((r) => r.json),
    ]);
  };

  const flush = async (): Promise<void> => {
    scheduled = false;
    const batch = queue;
    queue = [];
    if (batch.length === 0) return;
    let done!: () => void;
    flushing = new Promise((resolve) => (done = resolve));
    try {
      await ready();
      await insert(batch.flatMap((p) => p.rows));
      for (const p of batch) p.resolve();
    } catch (error) {
      for (const p of batch) p.reject(error);
    } finally {
      flushing = undefined;
      done();
    }
    // What arrived during the round trip has waited one already: it goes at once.
    if (queue.length > 0 && !scheduled) void flush();
  };

  const schedule = (): void => {
    if (scheduled || flushing !== undefined) return;
    scheduled = true;
    // The calls of this tick join the batch.
    setImmediate(() => void flush());
  };

  const drained = async (): Promise<void> => {
    while (flushing !== undefined || queue.length > 0) {
      if (flushing !== undefined) await flushing;
      else await new Promise((resolve) => setImmediate(resolve));
    }
  };

  // The run of each run_code call this store saw start or resume, for its program's calls.
  const runOf = new Map<string, string>();
  const toRow = (event: JournalEvent): Row => {
    const text = JSON.stringify(event);
    const json = JSONB_UNSAFE.test(text) ? jsonbSafeText(event) : null;
    if (event.type === 'tool/call') {
      const root = event.rootCallId ?? event.callId;
      const parent = event.parentCallId ?? null;
      const chain: Chain = {
        root,
        parent,
        agent: event.agent,
        runId: parent === null ? null : (runOf.get(root) ?? null),
      };
      chains.set(event.callId, chain);
      return { type: event.type, callId: event.callId, chain, runId: null, text, json };
    }
    const call = chains.get(event.callId);
    if (event.type === 'tool/result') {
      chains.delete(event.callId);
      runOf.delete(event.callId);
      return { type: event.type, callId: event.callId, chain: call, runId: null, text, json };
    }
    // A run's own event (or a user message) is filed under its call: that call's root and agent, no parent.
    const runId = 'runId' in event ? event.runId : null;
    if (event.type === 'run/start' || event.type === 'run/resumed') runOf.set(event.callId, event.runId);
    const chain = call === undefined ? undefined : { ...call, parent: null, runId };
    return { type: event.type, callId: event.callId, chain, runId, text, json };
  };

  const claims = createPostgresRunClaims(
    ready,
    () => ({ main: pool!, sessions: lockPool! }),
    label,
    (error) => describePostgresError(error, connectTimeoutMs),
    keepAlive,
  );
  const locks = createPostgresResourceLocks({
    keepAlive,
    ready,
    pools: () => ({ main: pool!, sessions: lockPool! }),
    label,
    sessionPoolSize: ownsPools ? sessionPoolSize : undefined,
    connectTimeoutMs,
    describe: (error) => describePostgresError(error, connectTimeoutMs),
  });

  const select = async (sql: string, params: unknown[]): Promise<StoredRow[]> => {
    await drained();
    await ready();
    return (await pool!.query(sql, params)).rows as StoredRow[];
  };

  return {
    url,
    ready,
    claims,
    sessions: createPostgresSessionStore(ready, () => pool!),
    append(events: readonly JournalEvent[]): Promise<void> {
      if (closed) return Promise.reject(new Error(`${label}: closed`));
      let rows: Row[];
      try {
        events.forEach((event, i) => {
          if (!isJournalEvent(event))
            throw new TypeError(`${label}: events[${i}] is not a tool/call or tool/result event (nor a run/* event)`);
        });
        rows = events.map(toRow);
        // A run whose claim this process lost is another's to write now (fencing.ts).
        for (const row of rows) {
          const runId = row.runId ?? row.chain?.runId ?? undefined;
          const lost = runId === undefined ? undefined : claims.lostClaim(runId);
          if (lost !== undefined)
            throw new Error(
              `${lost.message}; its ${row.type} row was not written (this process no longer writes run ${runId}: another process may be continuing it)`,
            );
        }
      } catch (error) {
        return Promise.reject(error);
      }
      return new Promise<void>((resolve, reject) => {
        queue.push({ rows, resolve, reject });
        schedule();
      });
    },
    async read(): Promise<JournalContents> {
      const events: JournalEvent[] = [];
      const warnings: JournalWarning[] = [];
      for (const row of await select('SELECT seq, at, event_text AS event FROM ptc_journal ORDER BY seq', [])) {
        const event = parseStored(row);
        if (event !== undefined) events.push(event);
        else
          warnings.push({
            kind: 'unreadable-line',
            line: Number(row.seq),
            message: `${label}: row ${row.seq} is not a journal event; skipped`,
          });
      }
      warnings.forEach(onWarning);
      return { events, warnings };
    },
    async query(query: JournalQuery = {}): Promise<readonly JournalEntry[]> {
      const where: string[] = [];
      const params: unknown[] = [];
      const param = (value: unknown): string => {
        params.push(value);
        return `$${params.length}`;
      };
      if (query.rootCallId !== undefined) where.push(`root_call_id = ${param(String(query.rootCallId))}`);
      if (query.agent !== undefined)
        where.push(query.agent === null ? 'agent IS NULL' : `agent = ${param(String(query.agent))}`);
      if (query.since !== undefined) where.push(`at >= ${param(millis(query.since, 'since'))}`);
      if (query.until !== undefined) where.push(`at < ${param(millis(query.until, 'until'))}`);
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
        where.push(`type = ${param(query.type)}`);
      }
      if (query.afterSeq !== undefined) where.push(`seq > ${param(count(query.afterSeq, 'afterSeq', 0))}`);
      const limit = query.limit === undefined ? '' : ` LIMIT ${count(query.limit, 'limit', 1)}`;
      const sql = `SELECT seq, at, event_text AS event FROM ptc_journal${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY seq${limit}`;
      const entries: JournalEntry[] = [];
      for (const row of await select(sql, params)) {
        const event = parseStored(row);
        if (event !== undefined) entries.push(deepFreeze({ seq: Number(row.seq), at: Number(row.at), event }));
      }
      return entries;
    },
    lockResource: (key, signal) => locks.lockResource(key, signal),
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await drained().catch(() => {});
      claims.dispose();
      locks.dispose();
      if (ownsPools) {
        const ends = [pool?.end(), lockPool === pool ? undefined : lockPool?.end()];
        await Promise.all(ends.map((p) => p?.catch(() => {})));
      }
    },
  };
}

/**
 * Triggers and rules on the store's tables that it did not create. In a shared database
 * they may be someone's audit trail, so they are reported, not refused: they run inside
 * every append, on the server, bounded by the session's statement timeout.
 */
async function warnOfForeignTriggers(
  client: PostgresPoolClient,
  label: string,
  statementTimeoutMs: number | undefined,
): Promise<void> {
  const { rows } = await client.query(
    `SELECT 'trigger' AS kind, tgname AS name, tgrelid::regclass::text AS tbl FROM pg_trigger
       WHERE NOT tgisinternal AND tgrelid IN ('ptc_journal'::regclass, 'ptc_run_claims'::regclass)
     UNION ALL
     SELECT 'rule', rulename, ev_class::regclass::text FROM pg_rewrite
       WHERE rulename <> '_RETURN' AND ev_class IN ('ptc_journal'::regclass, 'ptc_run_claims'::regclass)
     ORDER BY 3, 2`,
  );
  if (rows.length === 0) return;
  const found = (rows as { kind: string; name: string; tbl: string }[])
    .map((row) => `${row.kind} "${row.name}" on ${row.tbl}`)
    .join(', ');
  const bound =
    statementTimeoutMs === undefined
      ? "bounded only by your pool's statement_timeout"
      : `each statement ended by the server after ${statementTimeoutMs} ms (statementTimeoutMs)`;
  process.emitWarning(
    `${label}: the database has ${found}, which ptc-runtime did not create; it runs inside every append (${bound})`,
    'JournalWarning',
  );
}

/** One line for a connection or server error. */
export function describePostgresError(error: unknown, connectTimeoutMs: number): string {
  const e = error as { code?: unknown; message?: unknown; address?: unknown; port?: unknown; hostname?: unknown };
  const message = typeof e?.message === 'string' ? e.message : String(error);
  switch (e?.code) {
    case 'ECONNREFUSED':
      return `cannot connect to PostgreSQL (connection refused${typeof e.port === 'number' ? ` at ${String(e.address)}:${e.port}` : ''}); is the server running?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot connect to PostgreSQL: host ${String(e.hostname ?? '')} not found`;
    case '28P01':
    case '28000':
      return `PostgreSQL refused the credentials: ${message}`;
    case '3D000':
      return `PostgreSQL: ${message}`;
    default:
      if (/timeout/iu.test(message))
        return `cannot connect to PostgreSQL: no answer within ${connectTimeoutMs} ms (${message})`;
      return message;
  }
}

function parseStored(row: StoredRow): JournalEvent | undefined {
  try {
    const parsed: unknown = JSON.parse(row.event);
    return isJournalEvent(parsed) ? deepFreeze(parsed) : undefined;
  } catch {
    return undefined;
  }
}

/** JSON text jsonb refuses: a NUL escape, or a lone surrogate's (JSON.stringify writes only those as \\ud8xx). */
const JSONB_UNSAFE = /\\u0000|\\ud[89a-f]/iu;

// Without the u flag, so that the halves of a pair are seen one by one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The event as JSON jsonb accepts: NULs and lone surrogates become U+FFFD (the exact text stays in event_text). */
function jsonbSafeText(event: JournalEvent): string {
  const clean = (value: unknown): unknown => {
    if (typeof value === 'string') return value.replaceAll('\u0000', '\ufffd').replace(LONE_SURROGATE, '\ufffd');
    if (Array.isArray(value)) return value.map(clean);
    if (typeof value === 'object' && value !== null)
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [clean(k) as string, clean(v)]));
    return value;
  };
  return JSON.stringify(clean(event));
}

function positive(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw new TypeError(`openPostgresJournal: ${field} must be an integer >= 1, got ${String(value)}`);
  return value;
}
