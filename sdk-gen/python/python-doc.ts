// Text inside the Python stubs: docstrings and `#` comments, kept on their lines and
// unable to close the docstring they sit in.

import { VALUE_CONSTRAINTS } from '../constraint-tags.ts';

// Constraints a model needs to write valid arguments, in the order the TypeScript SDK shows them.
const CONSTRAINTS = [...VALUE_CONSTRAINTS, 'default', 'deprecated'] as const;
// A long value (a huge default) is cut here with "…".
const MAX_VALUE_LENGTH = 200;
const MAX_LINE_LENGTH = 400;

/** Text on one line, its length bounded. */
export function oneLineText(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_LINE_LENGTH ? `${line.slice(0, MAX_LINE_LENGTH - 1)}…` : line;
}

/** `minLength 3, format email, default 20`: a schema's constraints, '' when none. */
export function constraintText(schema: { readonly [key: string]: unknown }): string {
  const parts: string[] = [];
  for (const keyword of CONSTRAINTS) {
    if (!Object.hasOwn(schema, keyword)) continue;
    let value = JSON.stringify(schema[keyword]) ?? 'null';
    if (value.length > MAX_VALUE_LENGTH) value = `${value.slice(0, MAX_VALUE_LENGTH - 1)}…`;
    parts.push(`${keyword} ${value}`);
  }
  return parts.join(', ');
}

/** Text safe inside a `"""` docstring: backslashes doubled, `"""` broken up. */
export function docstringText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/"""/g, '""\\"');
}

/** A `# ...` comment's text: one line. */
export function commentText(text: string): string {
  return oneLineText(text);
}
