import { docComment } from './doc-comment.ts';
import { oneLine } from './one-line.ts';
import { propertyKey } from './property-key.ts';
import type { ToolSchema } from './tool-schema.ts';

/** Characters (as JSON text, the way a provider request carries them) the deferred listing may take. */
export const DEFAULT_DEFERRED_BUDGET = 88_000;
/** A summary never grows past this; with many tools it shrinks to fit the budget. */
export const MAX_SUMMARY_LENGTH = 120;
// Below this a summary says too little to be worth its characters: names only.
const MIN_SUMMARY_LENGTH = 12;

/**
 * The loose type of a deferred tool, declared once. Its result is `any`: the real type
 * is in the text `$describe` returns, which the model reads, and a program written from
 * it (`r.total`) must not fail a type check for want of a declaration; the host still
 * validates the arguments and the value.
 */
export const DEFERRED_TYPE = 'type Deferred = Tool<{ [key: string]: JsonValue }, any>;';

/** What a line costs inside a JSON string: its escaped length plus the `\n` after it. */
const cost = (line: string): number => JSON.stringify(line).length;

export function summary(description: string, length = MAX_SUMMARY_LENGTH): string {
  const line = oneLine(description);
  return line.length > length ? `${line.slice(0, length - 1).trimEnd()}…` : line;
}

/**
 * The members of `tools` for deferred tools, one line each (`/** summary *\/ name:
 * Deferred;`), within `budget` characters: summaries shrink (from 120 characters)
 * as the tools multiply, then go; if even the names do not fit, the first ones that
 * fit are listed and `unlisted` counts the rest (reachable through `tools.$search`).
 * Deterministic: a function of the tools and the budget only.
 */
export function deferredListing(tools: readonly ToolSchema[], budget: number): { lines: string[]; unlisted: number } {
  const bare = tools.map((tool) => `  ${propertyKey(tool.name)}: Deferred;`);
  const namesCost = bare.reduce((sum, line) => sum + cost(line), 0);
  if (namesCost > budget) {
    const lines: string[] = [];
    let used = 0;
    for (const line of bare) {
      if (used + cost(line) > budget) break;
      used += cost(line);
      lines.push(line);
    }
    return { lines, unlisted: tools.length - lines.length };
  }
  let length = Math.min(MAX_SUMMARY_LENGTH, Math.floor((budget - namesCost) / Math.max(tools.length, 1)) - 10);
  // Escapes (quotes, `*\/`) can make a line longer than its characters: shrink until it fits.
  while (length >= MIN_SUMMARY_LENGTH) {
    const lines = tools.map((tool, i) => `  ${docComment(summary(tool.description, length))}${bare[i]!.slice(2)}`);
    if (lines.reduce((sum, line) => sum + cost(line), 0) <= budget) return { lines, unlisted: 0 };
    length = Math.floor(length * 0.9);
  }
  return { lines: bare, unlisted: 0 };
}
