// Providers refuse empty text: the Anthropic Messages API answers 400 "text content
// blocks must be non-empty" for `{ type: 'text', text: '' }`, and an empty tool result
// reads as nothing at all to a model. A result that renders no text becomes this.

/** What the model reads for a result with no text (`return ''`, `console.log('')`, no content). */
export const EMPTY_RESULT_TEXT = '(no output)';

/** `text`, or the placeholder when it is empty. */
export const nonEmptyText = (text: string): string => (text === '' ? EMPTY_RESULT_TEXT : text);
