// `ptc check --guest python`: a Python program checked against the agent's Python stubs by
// Monty's type checker, in a Python process (Monty is loaded there, never in the CLI).
import type { PythonDiagnostic } from '../../sandbox/python/python-type-check.ts';
import { pythonTypeCheckPrefix } from '../../sdk-gen/index.ts';

/** The program's findings against the stubs `sdkText`, or why it could not be checked (a syntax error). */
export async function checkPython(sdkText: string, code: string): Promise<readonly PythonDiagnostic[] | string> {
  const { PythonSandbox } = await import('../../sandbox/python/python-sandbox.ts');
  const sandbox = await PythonSandbox.create(undefined, { warmProcesses: 0 });
  try {
    const checked = await sandbox.typeCheck(code, pythonTypeCheckPrefix(sdkText));
    return checked.ok ? checked.diagnostics : checked.reason;
  } finally {
    await sandbox.close();
  }
}
