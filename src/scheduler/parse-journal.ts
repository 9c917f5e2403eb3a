// Reads JSONL journal text. A torn last line (a write cut short) and unreadable
// lines are skipped with a warning; they never affect the other entries.
import { deepFreeze } from '../json/json-value.ts';
import type { JournalContents, JournalEvent, JournalWarning } from './journal.ts';
import { isRunJournalEvent } from './run-journal-events.ts';

export function parseJournal(text: string, source: string): JournalContents {
  const events: JournalEvent[] = [];
  const warnings: JournalWarning[] = [];
  const lines = text.split('\n');
  // With a final newline the last piece is empty; without one, it is a torn tail
  // unless it happens to be a whole event (cut exactly before its newline).
  const tailIndex = text.endsWith('\n') || text.length === 0 ? -1 : lines.length - 1;
  lines.forEach((line, i) => {
    if (line.trim().length === 0) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    if (isJournalEvent(parsed)) {
      events.push(deepFreeze(parsed));
      return;
    }
    warnings.push(
      i === tailIndex
        ? {
            kind: 'torn-tail',
            line: i + 1,
            message: `${source}: line ${i + 1} is incomplete (a write was cut short, e.g. the process was killed while appending); skipped`,
          }
        : {
            kind: 'unreadable-line',
            line: i + 1,
            message: `${source}: line ${i + 1} is not a journal event (an earlier torn write?); skipped`,
          },
    );
  });
  return { events, warnings };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function isJournalEvent(value: unknown): value is JournalEvent {
  if (
    !isObject(value) ||
    typeof value.callId !== 'string' ||
    value.callId.length === 0 ||
    typeof value.name !== 'string'
  )
    return false;
  if (value.type === 'tool/call') {
    return (
      (value.agent === null || typeof value.agent === 'string') &&
      Object.hasOwn(value, 'arguments') &&
      (value.rootCallId === undefined || typeof value.rootCallId === 'string') &&
      (value.parentCallId === undefined || typeof value.parentCallId === 'string')
    );
  }
  if (value.type === 'tool/result') {
    const r = value.result;
    return (
      isObject(r) &&
      r.callId === value.callId &&
      typeof r.isError === 'boolean' &&
      Array.isArray(r.content) &&
      (value.at === undefined || (typeof value.at === 'number' && Number.isFinite(value.at)))
    );
  }
  return isRunJournalEvent(value);
}
