// `ptc serve --journal <file|url>`: the durable journal of every call the server runs.
// The store is picked by the same rule as everywhere else (resolve-journal.ts: a
// postgres:// URL is PostgreSQL, shared by several servers; .db, .sqlite or .sqlite3 is
// SQLite; anything else JSONL, one file per process). A journal that cannot work fails
// at start with one line and exit status 2, not at the first call: a folder that does
// not exist, a database that cannot be reached or refuses the credentials.
import type { Journal } from '../journal/journal.ts';
import { openJournalPath } from '../journal/resolve-journal.ts';
import { UsageError } from './usage-error.ts';

export interface OpenedJournal {
  readonly journal: Journal | string;
  close(): Promise<void>;
}

export async function openJournalOption(path: string | undefined): Promise<OpenedJournal | undefined> {
  if (path === undefined) return undefined;
  let journal: ReturnType<typeof openJournalPath>;
  try {
    journal = openJournalPath(path, '--journal');
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  try {
    await journal.ready();
  } catch (error) {
    await journal.close();
    // The store's message names the URL without its password.
    throw new UsageError(`--journal: ${(error as Error).message}`);
  }
  return { journal, close: async () => journal.close() };
}
