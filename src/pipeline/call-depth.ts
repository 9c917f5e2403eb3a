// How deep nested calls may go. A top-level call has depth 0; a nested call (a
// run_code SDK call, a composite tool's `exec.callTool`) is one deeper than its parent.
// A call deeper than the limit is refused before policy (NESTING_TOO_DEEP), so a
// composite tool that calls itself, directly or through run_code, ends.

/** @default 8 */
export const DEFAULT_MAX_CALL_DEPTH = 8;

/** Returns the checked limit, or throws naming the option and the bad value. */
export function checkMaxCallDepth(value: unknown, where: string): number {
  if (value === undefined) return DEFAULT_MAX_CALL_DEPTH;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(
      `${where}: expected \`maxCallDepth\` to be an integer >= 1, got ${typeof value === 'number' ? String(value) : typeof value}`,
    );
  }
  return value;
}
