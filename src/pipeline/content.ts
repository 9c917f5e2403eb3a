// Checks that hook- or tool-supplied content and context messages are well formed,
// and returns frozen plain copies.
import type { ContentBlock, ContextMessage } from './tool-result.ts';

export function checkContent(value: unknown, where: string): readonly ContentBlock[] {
  if (!Array.isArray(value)) throw new TypeError(`${where} must be an array of content blocks, got ${typeof value}`);
  // Fresh blocks of strings: freezing each block and the list freezes it all the way down.
  return Object.freeze(
    value.map((block: unknown, i): ContentBlock => {
      const b = block as Record<string, unknown> | null;
      if (b !== null && typeof b === 'object' && b.type === 'text' && typeof b.text === 'string')
        return Object.freeze({ type: 'text', text: b.text });
      if (
        b !== null &&
        typeof b === 'object' &&
        b.type === 'image' &&
        typeof b.data === 'string' &&
        typeof b.mimeType === 'string'
      ) {
        return Object.freeze({ type: 'image', data: b.data, mimeType: b.mimeType });
      }
      throw new TypeError(`${where}[${i}] must be { type: 'text', text } or { type: 'image', data, mimeType }`);
    }),
  );
}

export function checkContext(value: unknown, where: string): ContextMessage {
  const m = value as Record<string, unknown> | null;
  if (m === null || typeof m !== 'object' || m.role !== 'user') {
    throw new TypeError(`${where} must be { role: 'user', content: [{ type: 'text', text }] }`);
  }
  return Object.freeze({ role: 'user', content: checkContent(m.content, `${where}.content`) });
}

export function checkContexts(value: unknown, where: string): readonly ContextMessage[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError(`${where} must be an array of context messages`);
  return value.map((m, i) => checkContext(m, `${where}[${i}]`));
}

export const textContent = (text: string): readonly ContentBlock[] =>
  Object.freeze([Object.freeze({ type: 'text', text })]);
