// A worker thread that keeps a warm checkProgram (TypeScript loaded once, lib files
// and the last SDKs parsed once) for hosts that must not block their event loop on a
// type check, and that must be able to stop one that runs too long (terminate the
// worker). Messages: { id, program, sdk? } in — `sdk` only when it changed since the
// last message — and { id, diagnostics } or { id, error } out.
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
