// A worker thread that keeps a warm checkProgram (TypeScript loaded once, lib files
// and the last SDKs parsed once) for hosts that must not block their event loop on a
// type check, and that must be able to stop one that runs too long (terminate the
// worker). Messages: { id, program, sdk? } in — `sdk` only when it changed since the
// last message — and { id, diagnostics } or { id, error } out. First of all it sends
// { ready: true } once TypeScript is loaded and its lib files parsed: that start can take
// seconds on a loaded machine and is no check's doing, so the host counts no check's
// deadline for it.
import { parentPort } from 'node:worker_threads';
import { checkProgram, type ProgramDiagnostic } from './check-program.ts';

export interface CheckRequest {
  readonly id: number;
  readonly program: string;
  readonly sdk?: string;
}
export type CheckResponse =
  | { readonly id: number; readonly diagnostics: readonly ProgramDiagnostic[] }
  | { readonly id: number; readonly error: string };
/** The first message of a worker: TypeScript is loaded, checks are answered from now on. */
export interface CheckerReady {
  readonly ready: true;
}

let sdk = '';
parentPort?.on('message', (request: CheckRequest) => {
  if (request.sdk !== undefined) sdk = request.sdk;
  let response: CheckResponse;
  try {
    response = { id: request.id, diagnostics: checkProgram(sdk, request.program) };
  } catch (error) {
    response = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(response);
});

try {
  checkProgram('', '');
} catch {
  // Nothing to report here: the first real check meets the same failure and answers it.
}
parentPort?.postMessage({ ready: true } satisfies CheckerReady);
