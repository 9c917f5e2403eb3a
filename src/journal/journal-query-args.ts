// Checks of a journal query's arguments, shared by the stores that answer queries (SQLite,
// PostgreSQL): the same limits and the same messages whichever store is behind a journal.

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
