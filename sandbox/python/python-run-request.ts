// What a Python run needs beyond a TypeScript one: which function calls which tool.
import type { GuestSuspension, RunRequest } from '../types.ts';

/** How one Python keyword argument reaches its tool. */
export interface PythonParameter {
  /** The argument's wire name (`from` for the Python `from_`). */
  readonly wire: string;
  /** An optional argument whose schema does not take null: `None` leaves it out. */
  readonly noneOmits: boolean;
}

/** The tool one Python function calls and how its keyword arguments map. */
export interface PythonFunction {
  readonly tool: string;
  /** Python keyword → wire argument; a keyword not listed is sent under its own name. */
  readonly parameters: Readonly<Record<string, PythonParameter>>;
}

/** A run of a Python program: `code` is Python; `toolNames` is not read (`functions` is). */
export interface PythonRunRequest extends RunRequest {
  /** Python function name → its tool (the Python SDK's `functions`). */
  readonly functions: Readonly<Record<string, PythonFunction>>;
  /**
   * Continue a paused run from its state instead of starting `code`: the program makes
   * its pending call (number `seq`) again and goes on from there; nothing before it runs again.
   */
  readonly resumeFrom?: GuestSuspension;
}
