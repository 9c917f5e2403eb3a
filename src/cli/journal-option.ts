// `ptc serve --journal <file>`: the durable journal of every call the server runs. A
// file ending in .db, .sqlite or .sqlite3 is a SQLite store (queryable by root call,
// agent and time); anything else is the append-only JSONL store. One file per process.
import type { Journal } from '../scheduler/journal.ts';
import { UsageError } from './usage-error.ts';

export interface OpenedJournal {
  readonly journal: Journal | string;
  close(): void;
}

export async function openJournalOption(path: string | undefined): Promise<OpenedJournal | undefined> {
  if (path === undefined) return undefined;
  if (path.trim() === '') throw new UsageError('--journal: give a file path (.jsonl, or .db/.sqlite for SQLite)');
  if (!/\.(db|sqlite3?)$/iu.test(path)) return { journal: path, close: () => {} };
  const { openSqliteJournal } = await import('../scheduler/sqlite-journal.ts');
  try {
    const journal = openSqliteJournal(path);
    return { journal, close: () => journal.close() };
  } catch (error) {
    throw new UsageError(`--journal ${path}: ${(error as Error).message}`);
  }
}
