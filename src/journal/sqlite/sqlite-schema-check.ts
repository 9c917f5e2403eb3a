// A journal database holds only what the store creates. Anything else in its schema —
// a trigger on the journal table (it runs inside every append, on the host's event
// loop: a recursive query in one never ends), a view or table standing in for ours, an
// index on an expression — was put there by someone else, so the store refuses to open
// the file (one line naming what was found and how to fix it) before it writes or
// reads a row. The schema the store would create is read from a fresh in-memory
// database, so the comparison follows SQLite's own stored text exactly.
import type { DatabaseSync } from 'node:sqlite';
import { loadNodeSqlite } from './load-node-sqlite.ts';

interface SchemaObject {
  readonly type: string;
  readonly name: string;
  readonly tbl_name: string;
  readonly sql: string | null;
}

const readSchema = (db: DatabaseSync): SchemaObject[] =>
  db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid').all() as unknown as SchemaObject[];

const expectedBySchema = new Map<string, ReadonlyMap<string, SchemaObject>>();

/** What `schemaSql` creates, by object name. */
function expectedSchema(schemaSql: string): ReadonlyMap<string, SchemaObject> {
  let expected = expectedBySchema.get(schemaSql);
  if (expected === undefined) {
    const { DatabaseSync: Database } = loadNodeSqlite();
    const fresh = new Database(':memory:');
    try {
      fresh.exec(schemaSql);
      expected = new Map(readSchema(fresh).map((object) => [object.name, object]));
    } finally {
      fresh.close();
    }
    expectedBySchema.set(schemaSql, expected);
  }
  return expected;
}

/** Statistics tables ANALYZE writes: they only steer the query planner. */
const isStatTable = (object: SchemaObject): boolean => object.type === 'table' && /^sqlite_stat\d$/u.test(object.name);

const MAX_LISTED = 5;

function describe(object: SchemaObject, changed: boolean): string {
  const on = object.type === 'trigger' || object.type === 'index' ? ` on ${object.tbl_name}` : '';
  return `${object.type} "${object.name}"${on}${changed ? ' (not as the journal defines it)' : ''}`;
}

function dropStatement(object: SchemaObject): string {
  const kind = ['table', 'view', 'index', 'trigger'].includes(object.type) ? object.type.toUpperCase() : 'TABLE';
  return `DROP ${kind} "${object.name.replaceAll('"', '""')}"`;
}

/**
 * Throws (one line) when `db` holds a schema object `schemaSql` would not create, or
 * one of ours with another definition. Objects still missing are fine: they are created next.
 */
export function checkOnlyJournalSchema(db: DatabaseSync, path: string, schemaSql: string): void {
  const expected = expectedSchema(schemaSql);
  const foreign: { object: SchemaObject; changed: boolean }[] = [];
  for (const object of readSchema(db)) {
    const ours = expected.get(object.name);
    if (ours === undefined) {
      if (!isStatTable(object)) foreign.push({ object, changed: false });
    } else if (ours.type !== object.type || ours.tbl_name !== object.tbl_name || ours.sql !== object.sql) {
      foreign.push({ object, changed: true });
    }
  }
  if (foreign.length === 0) return;
  const listed = foreign.slice(0, MAX_LISTED).map(({ object, changed }) => describe(object, changed));
  const more = foreign.length > MAX_LISTED ? ` and ${foreign.length - MAX_LISTED} more` : '';
  const drops = foreign
    .slice(0, MAX_LISTED)
    .filter(({ changed }) => !changed)
    .map(({ object }) => `${dropStatement(object)};`);
  const fix =
    drops.length === foreign.length
      ? `use a new file, or remove them (sqlite3 ${path} '${drops.join(' ')}')`
      : 'use a new file for the journal';
  throw new Error(
    `${path} holds ${listed.join(', ')}${more}, which the journal did not create (a trigger would run inside every append); a journal database must hold only the journal: ${fix}`,
  );
}
