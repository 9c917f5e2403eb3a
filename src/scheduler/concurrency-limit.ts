// The bound on concurrency-safe bodies that run at once (the size of the sequencer's p-queue pool).

/** Default pool size of one turn (or one run_code program). */
export const DEFAULT_CONCURRENCY = 8;

/** Returns the checked limit, or throws naming the option and the bad value. */
export function checkConcurrency(value: unknown, where: string): number {
  if (value === undefined) return DEFAULT_CONCURRENCY;
  if (value === Number.POSITIVE_INFINITY) return value;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new TypeError(
      `${where}: expected \`concurrency\` to be an integer >= 1 (or Infinity), got ${typeof value === 'number' ? String(value) : typeof value}`,
    );
  }
  return value;
}
