import type { ArgIssue } from './arg-issue.ts';
import { summarizeIssues } from './summarize-issues.ts';
import { ToolRuntimeError } from './tool-runtime-error.ts';

export type { ArgIssue } from './arg-issue.ts';

/** Arguments failed the parameter schema; the body was not called. Code `INVALID_ARGS`. */
export class ToolArgsError extends ToolRuntimeError {
  readonly toolName: string;
  readonly issues: readonly ArgIssue[];
  constructor(toolName: string, issues: readonly ArgIssue[]) {
    const summary = summarizeIssues(issues);
    super('INVALID_ARGS', `invalid arguments for tool "${toolName}": ${summary}`, { issues });
    this.toolName = toolName;
    this.issues = issues;
  }
}
