// A journal query (what to select, what comes back) and the checks of its arguments,
// shared by the stores that answer queries (SQLite, PostgreSQL): the same shape, limits
// and messages whichever store is behind a journal.
import type { JournalEvent } from './journal.ts';

/** What to select; every given field must match. */
export interface JournalQuery {
  /** Events of this call chain: the root call and every nested call under it. */
  readonly rootCallId?: string;
  /** Events of calls made by this agent (null: the global scope). */
  readonly agent?: string | null;
  /** Appended at or after this time (a Date or milliseconds since the epoch). */
  readonly since?: Date | number;
  /** Appended before this time. */
  readonly until?: Date | number;
  /** Only call events, or only result events. */
  readonly type?: JournalEvent['type'];
  /** Only entries after this `seq` (to page through a long journal). */
  readonly afterSeq?: number;
  /** At most this many entries. Default: all. */
  readonly limit?: number;
}

export interface JournalEntry {
  /** Append order, from 1. */
  readonly seq: number;
  /** When it was appended, in milliseconds since the epoch. */
  readonly at: number;
  readonly event: JournalEvent;
}

/** `value` as an integer >= `min`, or a TypeError naming the field. */
export function count(value: number, field: string, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min)
    throw new TypeError(`journal query: ${field} must be an integer >= ${min}, got ${String(value)}`);
  return value;
}

/** A Date or epoch milliseconds as milliseconds, or a TypeError naming the field. */
export function millis(value: Date | number, field: string): number {
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== 'number' || !Number.isFinite(ms))
    throw new TypeError(`journal query: ${field} must be a Date or milliseconds since the epoch`);
  return ms;
}
