// One bounded line from a list of validation issues. Hostile input can fail a schema
// in many places at once, and an error message joining every issue grows with the
// input (a 2 MB array once gave a message of ~170 MB): at most MAX_LISTED issues, each
// message cut, then a count of the rest.
import type { ArgIssue } from './arg-issue.ts';

/** Issues listed in a message (the rest are counted). */
export const MAX_LISTED_ISSUES = 10;
/** Characters kept of one issue's path and of its message. */
const MAX_PART_CHARS = 200;

const cut = (text: string): string => (text.length <= MAX_PART_CHARS ? text : `${text.slice(0, MAX_PART_CHARS)}…`);

export function summarizeIssues(issues: readonly ArgIssue[]): string {
  const listed = issues
    .slice(0, MAX_LISTED_ISSUES)
    .map((i) => `${i.path === '' ? '(root)' : cut(i.path)} ${cut(i.message)}`);
  const rest = issues.length - listed.length;
  return rest > 0 ? `${listed.join('; ')}; and ${rest} more` : listed.join('; ');
}
