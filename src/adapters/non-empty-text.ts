// Providers refuse empty text: the Anthropic Messages API answers 400 "text content
// blocks must be non-empty" for `{ type: 'text', text: '' }` (and refuses text that is
// only whitespace in places), and an empty tool result reads as nothing at all to a
// model. A result that renders no visible text becomes this.

/** What the model reads for a result with no text (`return ''`, `console.log('')`, no content). */
export const EMPTY_RESULT_TEXT = '(no output)';

/** True for text a provider would take as empty: nothing, or whitespace only. */
export const isBlank = (text: string): boolean => text.trim() === '';

/** `text`, or the placeholder when it is blank. */
export const nonEmptyText = (text: string): string => (isBlank(text) ? EMPTY_RESULT_TEXT : text);
