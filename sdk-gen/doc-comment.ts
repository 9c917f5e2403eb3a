import { oneLine } from './one-line.ts';

/**
 * A one-line doc comment followed by a space, or `''` for blank text.
 * Every star-slash pair in the text is written `*\/`, so the text can never
 * close the comment early.
 */
export function docComment(text: string): string {
  const line = oneLine(text).replace(/\*\//g, '*\\/');
  return line === '' ? '' : `/** ${line} */ `;
}
