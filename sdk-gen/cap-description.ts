/**
 * Most characters one description (a tool's, or a schema property's) may put in front
 * of the model: an imported tool's description is outside text and can be megabytes.
 * @default 4096
 */
export const MAX_DESCRIPTION_CHARS = 4096;

/**
 * `text` cut to at most `max` characters, the cut visible: it ends with
 * `… (truncated, N chars)`, N the characters left out. A surrogate pair stays whole.
 */
export function capDescription(text: string, max = MAX_DESCRIPTION_CHARS): string {
  if (text.length <= max) return text;
  // The marker's length depends on N, which depends on the marker's length: settle it.
  let kept = max;
  for (let i = 0; i < 3; i += 1) kept = Math.max(0, max - marker(text.length - kept).length);
  const code = text.charCodeAt(kept - 1);
  const head = text.slice(0, code >= 0xd800 && code <= 0xdbff ? kept - 1 : kept).trimEnd();
  return `${head}${marker(text.length - head.length)}`;
}

const marker = (omitted: number): string => `… (truncated, ${omitted} chars)`;
