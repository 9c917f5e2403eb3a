// Argument snapshots the scheduler already took for a call (deep-frozen plain JSON from
// snapshotJson): the pipeline uses them as they are instead of copying them again.
// Module-private registry: only code that imports it can vouch for a value, and a
// registered value is frozen all the way down, so it cannot change after the check.
import type { JsonValue } from '../json/json-value.ts';

const taken = new WeakSet<object>();

/** Records `value`, a result of snapshotJson, as safe to use without another copy. */
export function registerSnapshot(value: JsonValue): void {
  if (typeof value === 'object' && value !== null) taken.add(value);
}

/** Whether `value` is a registered snapshot. */
export function isRegisteredSnapshot(value: unknown): value is JsonValue {
  return typeof value === 'object' && value !== null && taken.has(value);
}
