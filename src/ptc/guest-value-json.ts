// The JSON text of a nested call's value for the program, without loss: JSON.stringify
// writes -0 as 0, so a value holding -0 is written with "-0" there (JSON.parse in the
// guest reads it back as -0). Everything else a snapshot can hold is plain JSON already.
// The run_code result text uses it too (indented), so the model reads -0 as -0.
import { randomBytes } from 'node:crypto';
import type { JsonValue } from '../json/json-value.ts';

export function guestValueJson(value: JsonValue, indent?: number): string {
  // A number, string, boolean or null (most tool results): nothing to walk.
  if (typeof value !== 'object' || value === null)
    return Object.is(value, -0) ? '-0' : JSON.stringify(value, null, indent);
  if (!holdsNegativeZero(value)) return JSON.stringify(value, null, indent);
  // A marker no value can hold by chance; every occurrence is one -0.
  const marker = `ptc-negative-zero-${randomBytes(12).toString('hex')}`;
  const text = JSON.stringify(value, (_key, item: unknown) => (Object.is(item, -0) ? marker : item), indent);
  return text.replaceAll(`"${marker}"`, '-0');
}

/** Explicit stack: the value's depth is bounded by memory, not by the call stack. */
function holdsNegativeZero(value: JsonValue): boolean {
  const stack: JsonValue[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'number') {
      if (Object.is(item, -0)) return true;
    } else if (Array.isArray(item)) {
      for (const element of item) stack.push(element);
    } else if (typeof item === 'object' && item !== null) {
      for (const key in item) stack.push((item as { readonly [key: string]: JsonValue })[key] as JsonValue);
    }
  }
  return false;
}
