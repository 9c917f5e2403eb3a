// Checks a RunRequest from the caller: a bad request is a bug in the caller, reported
// as a TypeError that says which field is wrong, never as a run outcome.
import type { RunRequest } from './types.ts';

export interface CheckedRequest {
  readonly code: string;
  /** Deduplicated, in first-seen order. */
  readonly toolNames: string[];
}

export function checkRunRequest(request: RunRequest): CheckedRequest {
  if (typeof request !== 'object' || request === null) {
    throw new TypeError('sandbox.run(request): request must be an object { code, toolNames, hostCall }');
  }
  if (typeof request.code !== 'string') {
    throw new TypeError(`sandbox.run(request): request.code must be a string, got ${describe(request.code)}`);
  }
  if (!Array.isArray(request.toolNames)) {
    throw new TypeError(`sandbox.run(request): request.toolNames must be an array of strings, got ${describe(request.toolNames)}`);
  }
  const names = new Set<string>();
  request.toolNames.forEach((name: unknown, index) => {
    if (typeof name !== 'string') {
      throw new TypeError(`sandbox.run(request): request.toolNames[${index}] must be a string, got ${describe(name)}`);
    }
    names.add(name);
  });
  if (typeof request.hostCall !== 'function') {
    throw new TypeError(`sandbox.run(request): request.hostCall must be a function, got ${describe(request.hostCall)}`);
  }
  if (request.signal !== undefined && !(request.signal instanceof AbortSignal)) {
    throw new TypeError('sandbox.run(request): request.signal must be an AbortSignal when given');
  }
  return { code: request.code, toolNames: [...names] };
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

export const ABORT_MESSAGE = 'The run was cancelled.';
