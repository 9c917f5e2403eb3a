// What a hosted program receives for one of its calls. A program is code, not a
// reader: a success is the JSON text of the canonical value (what a local run_code
// program gets as a value), never the rendered content; a failure is its rendered text
// ("Error: …"). Never empty.
import type { ToolResult } from '../pipeline/tool-result.ts';
import { nonEmptyText } from './non-empty-text.ts';

/** The failure's text, or the success's value as JSON text. */
export function programResultText(result: ToolResult): string {
  if (!result.isError) return nonEmptyText(JSON.stringify(result.value ?? null));
  return nonEmptyText(
    result.content
      .map((b) => (b.type === 'text' ? b.text : `[image ${b.mimeType}]`))
      .filter((t) => t !== '')
      .join('\n'),
  );
}
