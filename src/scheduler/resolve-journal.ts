// The `journal` option: a store object, or a path. One rule picks the store a path names,
// for every entry point (createToolRuntime, executeTurn, replayJournal, `ptc serve
// --journal`): a path ending in .db, .sqlite or .sqlite3 is a SQLite store, anything
// else the embedded JSONL store. A path whose folder does not exist is refused at once,
// not at the first call.
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { openFileJournal } from './file-journal.ts';
import type { Journal } from './journal.ts';
import { checkJournalBounds, type JournalBounds } from './journal-bounds.ts';
import { openSqliteJournal } from './sqlite-journal.ts';

export type JournalStoreKind = 'sqlite' | 'jsonl';

/** The store kind a journal path names (the one rule). */
export function journalStoreKind(path: string): JournalStoreKind {
  return /\.(db|sqlite3?)$/iu.test(path) ? 'sqlite' : 'jsonl';
}

/** A journal path opened as the store it names; `close()` releases a SQLite store. Throws (one line) for a path that cannot hold a journal. */
export function openJournalPath(path: string, where = 'journal'): Journal & { close(): void } {
  if (typeof path !== 'string' || path.trim() === '')
    throw new TypeError(`${where}: give a file path (.jsonl, or .db/.sqlite for SQLite)`);
  const dir = dirname(resolve(path));
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new TypeError(`${where} ${path}: the folder ${dir} does not exist`);
  if (journalStoreKind(path) === 'sqlite') {
    try {
      return openSqliteJournal(path);
    } catch (error) {
      throw new TypeError(`${where} ${path}: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  return Object.assign(openFileJournal(path), { close: () => {} });
}

export function resolveJournal(option: Journal | string | undefined, bounds: JournalBounds = {}): Journal | undefined {
  const bound = checkJournalBounds(bounds);
  const journal = typeof option === 'string' ? openJournalPath(option, 'createToolRuntime: journal') : option;
  if (
    journal !== undefined &&
    (typeof journal !== 'object' ||
      journal === null ||
      typeof journal.append !== 'function' ||
      typeof journal.read !== 'function')
  ) {
    throw new TypeError('createToolRuntime: journal must be a file path or an object with append(events) and read()');
  }
  return journal === undefined ? undefined : bound(journal);
}
