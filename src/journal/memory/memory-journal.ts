// An in-memory journal for tests and embedders with their own persistence. Events
// round-trip through JSON, exactly as they would through the file journal.
import { deepFreeze } from '../../json/json-value.ts';
import type { Journal, JournalContents, JournalEvent } from '../journal.ts';
import type { RunClaims } from '../run-claims.ts';
import { createMemoryRunClaims } from './memory-run-claims.ts';
import { createMemorySessionStore } from '../../sessions/memory-session-store.ts';
import type { SessionStore } from '../../sessions/session-store.ts';

export interface MemoryJournal extends Journal {
  /** The serialized lines so far (one JSON text per event). */
  readonly lines: readonly string[];
  readonly claims: RunClaims;
  readonly sessions: SessionStore;
  /** Always false: nothing here survives the process. */
  readonly durable: false;
}

export function createMemoryJournal(): MemoryJournal {
  const lines: string[] = [];
  return {
    lines,
    // Nothing here outlives the process: a paused run says so.
    durable: false,
    claims: createMemoryRunClaims(),
    sessions: createMemorySessionStore(),
    async append(events: readonly JournalEvent[]): Promise<void> {
      // All or nothing, like one write of the file journal.
      const serialized = events.map((e) => JSON.stringify(e));
      lines.push(...serialized);
    },
    async read(): Promise<JournalContents> {
      return { events: lines.map((l) => deepFreeze(JSON.parse(l) as JournalEvent)), warnings: [] };
    },
  };
}
