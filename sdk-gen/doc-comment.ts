import { oneLine } from './one-line.ts';

/**
 * A one-line doc comment followed by a space, or `''` when there is nothing to say.
 * Every star-slash pair in the text is written `*\/`, so the text can never
 * close the comment early. `tags` (from `constraintTags`) are already one safe line.
 */
export function docComment(text: string, tags = ''): string {
  const line = [oneLine(text).replace(/\*\//g, '*\\/'), tags].filter((part) => part !== '').join(' ');
  return line === '' ? '' : `/** ${line} */ `;
}
