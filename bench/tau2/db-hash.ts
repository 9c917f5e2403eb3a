// Upstream grades the database by hash: sha256 of `json.dumps(db.model_dump(),
// sort_keys=True)` (default separators, ASCII escapes, floats as Python prints them).
// The same text here gives the same hex digest, so a recorded upstream hash can be
// checked against ours directly.
import { createHash } from 'node:crypto';
import { pyJsonDumps } from './py-json.ts';
import type { RetailDb } from './retail-db.ts';

/**
 * Canonical text of single rows (a user, an order, a product), keyed by their plain JSON:
 * a task changes a few rows, so each grading prints only those again.
 */
const rowTexts = new Map<string, string>();
const MAX_ROWS = 20_000;

function rowText(row: unknown): string {
  const plain = JSON.stringify(row);
  let text = rowTexts.get(plain);
  if (text === undefined) {
    if (rowTexts.size >= MAX_ROWS) rowTexts.clear();
    text = pyJsonDumps(row, { sortKeys: true });
    rowTexts.set(plain, text);
  }
  return text;
}

/** The canonical text of a database: what upstream hashes. */
export function canonicalDbText(db: RetailDb): string {
  const out: string[] = [];
  for (const section of ['orders', 'products', 'users'] as const) {
    const rows = db[section] as Record<string, unknown>;
    const ids = Object.keys(rows).sort();
    out.push(`${out.length === 0 ? '{' : ', '}"${section}": {`);
    ids.forEach((id, i) => {
      out.push(`${i === 0 ? '' : ', '}${pyJsonDumps(id)}: ${rowText(rows[id])}`);
    });
    out.push('}');
  }
  out.push('}');
  return out.join('');
}

/** Upstream's `get_db_hash()` of a database. */
export const dbHash = (db: RetailDb): string => createHash('sha256').update(canonicalDbText(db)).digest('hex');
