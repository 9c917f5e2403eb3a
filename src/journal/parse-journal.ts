// Reads JSONL journal text. A torn last line (a write cut short) and unreadable
// lines are skipped with a warning; they never affect the other entries.
import { deepFreeze } from '../json/json-value.ts';
import type { JournalContents, JournalEvent, JournalWarning } from './journal.ts';
import { isRunJournalEvent } from './run-journal-events.ts';
import { isPlanJournalEvent } from './plan-journal-events.ts';

export function parseJournal(text: string, source: string): JournalContents {
  const events: JournalEvent[] = [];
  const warnings: JournalWarning[] = [];
  const lines = text.split('\n');
  let skipped = 0;
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
    if (warnings.length >= MAX_PARSE_WARNINGS) {
      skipped += 1;
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
  if (skipped > 0)
    warnings.push({
      kind: 'unreadable-line',
      message: `${source}: ${skipped} more lines are not journal events; skipped (not listed one by one)`,
    });
  return { events, warnings };
}

/** Skipped lines listed one by one; past it they are counted in one more warning. */
export const MAX_PARSE_WARNINGS = 100;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A text or image block, as results carry them (a replay presents them). */
function isContentBlock(block: unknown): boolean {
  if (!isObject(block)) return false;
  if (block.type === 'text') return typeof block.text === 'string';
  if (block.type === 'image') return typeof block.data === 'string' && typeof block.mimeType === 'string';
  return false;
}

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
      (value.parentCallId === undefined || typeof value.parentCallId === 'string') &&
      (value.runId === undefined || typeof value.runId === 'string')
    );
  }
  if (value.type === 'tool/result') {
    const r = value.result;
    return (
      isObject(r) &&
      r.callId === value.callId &&
      typeof r.isError === 'boolean' &&
      Array.isArray(r.content) &&
      r.content.every(isContentBlock) &&
      (r.error === undefined ||
        (isObject(r.error) && typeof r.error.code === 'string' && typeof r.error.message === 'string')) &&
      (value.at === undefined || (typeof value.at === 'number' && Number.isFinite(value.at))) &&
      (value.runId === undefined || typeof value.runId === 'string')
    );
  }
  if (value.type === 'user/message') {
    const m = value.message;
    return (
      typeof value.inbox === 'string' &&
      value.inbox.length > 0 &&
      Number.isSafeInteger(value.index) &&
      (value.index as number) >= 0 &&
      isObject(m) &&
      m.role === 'user' &&
      Array.isArray(m.content) &&
      m.content.every(isContentBlock) &&
      typeof value.at === 'number' &&
      Number.isFinite(value.at)
    );
  }
  if (typeof value.type === 'string' && value.type.startsWith('plan/')) return isPlanJournalEvent(value);
  return isRunJournalEvent(value);
}
