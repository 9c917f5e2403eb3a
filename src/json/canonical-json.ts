// Canonical JSON text: object keys sorted, so equal JSON values give equal text whatever
// their key order. What an approval binds (a call's name and arguments) and what a
// journal row's seal covers are digests of this text.
import { createHash } from 'node:crypto';

/**
 * Canonical JSON text: equal JSON values (in JSON Schema's sense) give equal text. What
 * JSON.stringify leaves out (an undefined property) is left out here too, so a value
 * and its JSON round trip give the same text.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(value)
      .filter((k) => record[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
  }
  // -0 and 0 are the same JSON number.
  return typeof value === 'number' && Object.is(value, -0) ? '0' : (JSON.stringify(value) ?? 'null');
}

/** SHA-256 (hex) of a tool call's name and canonical arguments: what an approver was shown. */
export function callDigest(name: string, args: unknown): string {
  return createHash('sha256')
    .update(canonicalJson([name, args ?? null]))
    .digest('hex');
}
