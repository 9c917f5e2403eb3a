// Tamper evidence for a journal: with a key (PTC_JOURNAL_KEY), every row is written with
// `seal`, an HMAC-SHA256 over the row's canonical JSON, and checked when read. A row whose
// seal is missing or wrong is still returned (so the run it belongs to can be named and
// stopped), marked: `isUnsealed(event)`. Durable runs refuse a run with such a row; every
// other run stays usable. The seal covers each row's content, not the set of rows: a
// writer without the key cannot create or change a row, but can delete, reorder or
// duplicate whole rows.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../json/canonical-json.ts';
import { deepFreeze } from '../json/json-value.ts';
import type { Journal, JournalContents, JournalEvent } from './journal.ts';

/** The environment variable that holds the journal's sealing key. */
export const JOURNAL_KEY_ENV = 'PTC_JOURNAL_KEY';

/** Shortest key accepted, in characters. */
export const MIN_JOURNAL_KEY_LENGTH = 32;

const unsealed = new WeakSet<JournalEvent>();
const sealedStores = new WeakSet<Journal>();

/** Whether this event (from a sealed journal's read) had no valid seal. */
export function isUnsealed(event: JournalEvent): boolean {
  return unsealed.has(event);
}

/** The key from the environment, checked; undefined when the variable is not set. */
export function journalKeyFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const key = env[JOURNAL_KEY_ENV];
  if (key === undefined || key === '') return undefined;
  if (key.length < MIN_JOURNAL_KEY_LENGTH)
    throw new TypeError(
      `${JOURNAL_KEY_ENV} is ${key.length} characters; a journal key needs at least ${MIN_JOURNAL_KEY_LENGTH} (e.g. openssl rand -hex 32)`,
    );
  return key;
}

function sealOf(key: string, event: object): string {
  return createHmac('sha256', key).update(canonicalJson(event)).digest('hex');
}

/** The journal with every appended row sealed and every read row checked. */
export function sealJournal(journal: Journal, key: string): Journal {
  if (sealedStores.has(journal)) return journal;
  const wrapped: Pick<Journal, 'append' | 'read'> = {
    append(events) {
      return journal.append(events.map((event) => ({ ...event, seal: sealOf(key, event) }) as unknown as JournalEvent));
    },
    async read(): Promise<JournalContents> {
      const contents = await journal.read();
      const events = contents.events.map((event) => {
        const { seal, ...row } = event as JournalEvent & { seal?: unknown };
        const checked = deepFreeze(row) as JournalEvent;
        if (!sealMatches(key, row, seal)) unsealed.add(checked);
        return checked;
      });
      return { events, warnings: contents.warnings };
    },
  };
  // Keep the store's own extras (claims, path, close, query) reachable.
  const result = Object.assign(Object.create(journal) as Journal, wrapped);
  sealedStores.add(result);
  return result;
}

function sealMatches(key: string, row: object, seal: unknown): boolean {
  if (typeof seal !== 'string' || seal.length !== 64) return false;
  let expected: string;
  try {
    expected = sealOf(key, row);
  } catch {
    return false; // a row too deep to serialize cannot have been sealed
  }
  return timingSafeEqual(Buffer.from(expected), Buffer.from(seal));
}
