// The `journal` option: a store object, or a string. One rule picks the store a string
// names, for every entry point (createToolRuntime, executeTurn, replayJournal, `ptc serve
// --journal`): a postgres:// or postgresql:// URL is the PostgreSQL store (shared by
// hosts; node-postgres loads on first use), a path ending in .db, .sqlite or .sqlite3 a
// SQLite store, anything else the embedded JSONL store. A path whose folder does not
// exist is refused at once, not at the first call; a database is checked by `ready()`
// (`ptc serve` awaits it at start).
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { openFileJournal } from './file/file-journal.ts';
import type { Journal } from './journal.ts';
import { checkJournalBounds, type JournalBounds } from './journal-bounds.ts';
import { journalKeyFromEnv, sealJournal } from './sealed-journal.ts';
import { isPostgresUrl, openPostgresJournal } from './postgres/postgres-journal.ts';
import { openSqliteJournal } from './sqlite/sqlite-journal.ts';

export type JournalStoreKind = 'postgres' | 'sqlite' | 'jsonl';

/** The store kind a journal string names (the one rule). */
export function journalStoreKind(path: string): JournalStoreKind {
  if (isPostgresUrl(path)) return 'postgres';
  return /\.(db|sqlite3?)$/iu.test(path) ? 'sqlite' : 'jsonl';
}

/** A store opened from a string: `ready()` connects and checks it (files: at once), `close()` releases it. */
export type OpenedJournalStore = Journal & {
  ready(): Promise<void>;
  close(): void | Promise<void>;
};

/**
 * A journal string opened as the store it names; throws (one line) for a path that
 * cannot hold a journal. Nothing connects yet: a database is reached at `ready()` or
 * its first use.
 */
export function openJournalPath(path: string, where = 'journal'): OpenedJournalStore {
  if (typeof path !== 'string' || path.trim() === '')
    throw new TypeError(`${where}: give a file path (.jsonl, or .db/.sqlite for SQLite) or a postgres:// URL`);
  const kind = journalStoreKind(path);
  if (kind === 'postgres') {
    try {
      return openPostgresJournal(path);
    } catch (error) {
      throw new TypeError(`${where}: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  const dir = dirname(resolve(path));
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new TypeError(`${where} ${path}: the folder ${dir} does not exist`);
  if (kind === 'sqlite') {
    try {
      return Object.assign(openSqliteJournal(path), { ready: async () => {} });
    } catch (error) {
      throw new TypeError(`${where} ${path}: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  return Object.assign(openFileJournal(path), { ready: async () => {}, close: () => {} });
}

export function resolveJournal(option: Journal | string | undefined, bounds: JournalBounds = {}): Journal | undefined {
  return resolveOwnedJournal(option, bounds)?.journal;
}

/** Like resolveJournal, and says how to release a store it opened from a string (a given store is the caller's). */
export function resolveOwnedJournal(
  option: Journal | string | undefined,
  bounds: JournalBounds = {},
): { readonly journal: Journal; close(): Promise<void> } | undefined {
  // The bounds and the sealing key are checked (a TypeError naming the bad one) before anything opens.
  const bounded = checkJournalBounds(bounds);
  const key = journalKeyFromEnv();
  const bound = (journal: Journal): Journal => bounded(key === undefined ? journal : sealJournal(journal, key));
  if (option === undefined) return undefined;
  if (typeof option === 'string') {
    const opened = openJournalPath(option, 'createToolRuntime: journal');
    return { journal: bound(opened), close: async () => opened.close() };
  }
  if (
    typeof option !== 'object' ||
    option === null ||
    typeof option.append !== 'function' ||
    typeof option.read !== 'function'
  ) {
    throw new TypeError('createToolRuntime: journal must be a file path or an object with append(events) and read()');
  }
  return { journal: bound(option), close: async () => {} };
}
