// One way a value failed its schema: where, and what was wrong.
/** One validation issue of a tool's arguments (or of its output). */
export interface ArgIssue {
  /** JSON pointer into the arguments, '' for the root. */
  readonly path: string;
  readonly message: string;
}
