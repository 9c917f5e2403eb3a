// The `journal` option: a store object, or a path for the embedded JSONL store.
import { openFileJournal } from './file-journal.ts';
import type { Journal } from './journal.ts';
import { checkJournalBounds, type JournalBounds } from './journal-bounds.ts';

export function resolveJournal(option: Journal | string | undefined, bounds: JournalBounds = {}): Journal | undefined {
  const bound = checkJournalBounds(bounds);
  const journal = typeof option === 'string' ? openFileJournal(option) : option;
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
