// Text inside the Python stubs: docstrings and `#` comments, kept on their lines and
// unable to close the docstring they sit in.

import { shownConstraints } from '../constraint-tags.ts';

// A long value (a huge default) is cut here with "…".
const MAX_VALUE_LENGTH = 200;
const MAX_LINE_LENGTH = 400;

/** Text on one line, its length bounded. */
export function oneLineText(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_LINE_LENGTH ? `${line.slice(0, MAX_LINE_LENGTH - 1)}…` : line;
}

/**
 * `minLength 3, format "email", items.minimum 0`: a schema's constraints and its items',
 * the ones the TypeScript SDK shows and in its order; '' when none.
 */
export function constraintText(schema: { readonly [key: string]: unknown }): string {
  const items = Object.hasOwn(schema, 'items') ? schema.items : undefined;
  const parts = [
    ...shownConstraints(schema).map((shown) => ({ ...shown, prefix: '' })),
    ...shownConstraints(items).map((shown) => ({ ...shown, prefix: 'items.' })),
  ].map(({ keyword, value, prefix }) => {
    let text = JSON.stringify(value) ?? 'null';
    if (text.length > MAX_VALUE_LENGTH) text = `${text.slice(0, MAX_VALUE_LENGTH - 1)}…`;
    return `${prefix}${keyword} ${text}`;
  });
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
