// `ptc serve --journal <file>`: the durable journal of every call the server runs. The
// store is picked by the same rule as everywhere else (resolve-journal.ts: .db, .sqlite
// or .sqlite3 is SQLite, anything else JSONL). A path that cannot hold a journal (its
// folder is missing) fails at start: one line, exit status 2. One file per process.
import type { Journal } from '../scheduler/journal.ts';
import { openJournalPath } from '../scheduler/resolve-journal.ts';
import { UsageError } from './usage-error.ts';

export interface OpenedJournal {
  readonly journal: Journal | string;
  close(): void;
}

export async function openJournalOption(path: string | undefined): Promise<OpenedJournal | undefined> {
  if (path === undefined) return undefined;
  try {
    const journal = openJournalPath(path, '--journal');
    return { journal, close: () => journal.close() };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
