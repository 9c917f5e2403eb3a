// The principal a top-level call names (`rt.execute({ principal })`): who the application
// runs the call for. Durable runs, sessions and plans are scoped by it.
import type { ExecuteRequest } from '../pipeline/execute-request.ts';

/** Longest `principal` a call may name. */
export const MAX_PRINCIPAL_LENGTH = 256;

/** The request's principal, checked (a TypeError says what was wrong). */
export function checkPrincipal(request: ExecuteRequest): string | undefined {
  if (typeof request !== 'object' || request === null) return undefined;
  const { principal } = request;
  if (principal === undefined) return undefined;
  if (typeof principal !== 'string' || principal === '' || principal.length > MAX_PRINCIPAL_LENGTH)
    throw new TypeError(
      `execute: principal must be a non-empty string of at most ${MAX_PRINCIPAL_LENGTH} characters, got ${typeof principal === 'string' ? `${principal.length} characters` : JSON.stringify(principal)}`,
    );
  return principal;
}
