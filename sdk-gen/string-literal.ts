/**
 * A TypeScript string literal for any string. JSON.stringify escapes quotes,
 * backslashes, control characters and lone surrogates; U+2028/U+2029 are escaped
 * too so the literal never spans a line in any reader.
 */
export function stringLiteral(value: string): string {
  return JSON.stringify(value)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
