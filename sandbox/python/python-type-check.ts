// Monty's type check of a Python program against the stubs (the SDK's prefix), run in a
// Python process: its findings as `line:column message` in the program's own lines.
import type { MontyModule } from './load-monty.ts';

/** The file name Python tracebacks give the program. */
export const PYTHON_SCRIPT_NAME = 'program.py';

/** A type check's outcome, as the TypeScript checker gives it. */
export type PythonTypeCheck =
  | { readonly ok: true; readonly diagnostics: readonly PythonDiagnostic[] }
  | { readonly ok: false; readonly reason: string };

export interface PythonDiagnostic {
  readonly line: number;
  readonly column: number;
  readonly message: string;
  /** Always 0: Monty's checker names its rules in the message (`invalid-key`). */
  readonly code: number;
}

/** Checks `code` against `prefix` (the stubs) with Monty's checker. */
export function typeCheckProgram(m: MontyModule, code: string, prefix: string): PythonTypeCheck {
  let program: InstanceType<MontyModule['Monty']>;
  try {
    program = new m.Monty(code, { scriptName: PYTHON_SCRIPT_NAME });
  } catch (error) {
    // A syntax error: the run reports it as its compile failure.
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
  try {
    program.typeCheck(prefix);
    return { ok: true, diagnostics: [] };
  } catch (error) {
    if (!(error instanceof m.MontyTypingError)) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
    return { ok: true, diagnostics: programDiagnostics(error.displayDiagnostics('concise'), prefix) };
  }
}

/** `program.py:86:5: error[rule] text` lines, moved from the checked text's lines to the program's. */
function programDiagnostics(concise: string, prefix: string): PythonDiagnostic[] {
  // Monty checks the prefix, a line break, then the program.
  const prefixLines = prefix.split('\n').length;
  const diagnostics: PythonDiagnostic[] = [];
  for (const line of concise.split('\n')) {
    const match = /^.*?:(\d+):(\d+): (.*)$/.exec(line);
    if (match === null) continue;
    const at = Number(match[1]) - prefixLines;
    // A finding inside the stubs is not the program's; Monty runs a top-level return.
    if (at < 1 || /`return` statement outside of a function/.test(match[3]!)) continue;
    diagnostics.push({ line: at, column: Number(match[2]), message: match[3]!, code: 0 });
  }
  return diagnostics;
}
