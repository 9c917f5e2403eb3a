// What a model reads of a type check of its program: one `line:column message` line per
// diagnostic, at most a screenful.
import type { TypeCheckOutcome } from './program-type-checker.ts';

// Enough for the model to fix the program; a flood of cascading errors says no more.
const MAX_TYPE_ERRORS = 20;
const MAX_TYPE_ERROR_LENGTH = 300;

/** `line:column message` lines (TypeScript's chained messages on one line), or a note when the check did not complete. */
export function typeErrorLines(outcome: TypeCheckOutcome): string[] {
  if (!outcome.ok) return [`(type check skipped: ${outcome.reason})`];
  const lines = outcome.diagnostics.slice(0, MAX_TYPE_ERRORS).map((d) => {
    const line = `${d.line}:${d.column} ${d.message.replace(/\s*\n\s*/g, ' ')}`;
    return line.length > MAX_TYPE_ERROR_LENGTH ? `${line.slice(0, MAX_TYPE_ERROR_LENGTH - 1)}…` : line;
  });
  if (outcome.diagnostics.length > MAX_TYPE_ERRORS)
    lines.push(`… and ${outcome.diagnostics.length - MAX_TYPE_ERRORS} more`);
  return lines;
}
