import { capDescription } from './cap-description.ts';
import { oneLine } from './one-line.ts';

/**
 * A one-line doc comment followed by a space, or `''` when there is nothing to say.
 * Every star-slash pair in the text is written `*\/`, so the text can never
 * close the comment early. The text is capped at `MAX_DESCRIPTION_CHARS` with a visible
 * marker. `tags` (from `constraintTags`) are already one safe line.
 */
export function docComment(text: string, tags = ''): string {
  const line = [capDescription(oneLine(text)).replace(/\*\//g, '*\\/'), tags].filter((part) => part !== '').join(' ');
  return line === '' ? '' : `/** ${line} */ `;
}
