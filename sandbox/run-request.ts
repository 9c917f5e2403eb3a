// Checks a RunRequest from the caller: a bad request is a bug in the caller, reported
// as a TypeError that says which field is wrong, never as a run outcome.
import { COMPILE_TIME_LIMIT_MS, compileProgram, type CompiledProgram } from './compile-program.ts';
import { resolveLimits } from './limits.ts';
import { LogBuffer } from './log-buffer.ts';
import { randomUUID } from 'node:crypto';
import type { ProgramState, RunDeterminism, RunOutcome, RunRequest, SandboxLimits } from './types.ts';

export interface CheckedRequest {
  readonly code: string;
  /** Deduplicated, in first-seen order. */
  readonly toolNames: string[];
  /** The request's own, or a fresh seed and the current time. */
  readonly determinism: RunDeterminism;
  readonly state: ProgramState | undefined;
}

export function checkRunRequest(request: RunRequest): CheckedRequest {
  if (typeof request !== 'object' || request === null) {
    throw new TypeError('sandbox.run(request): request must be an object { code, toolNames, hostCall }');
  }
  if (typeof request.code !== 'string') {
    throw new TypeError(`sandbox.run(request): request.code must be a string, got ${describe(request.code)}`);
  }
  if (!Array.isArray(request.toolNames)) {
    throw new TypeError(
      `sandbox.run(request): request.toolNames must be an array of strings, got ${describe(request.toolNames)}`,
    );
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
  if (request.onLog !== undefined && typeof request.onLog !== 'function') {
    throw new TypeError(
      `sandbox.run(request): request.onLog must be a function when given, got ${describe(request.onLog)}`,
    );
  }
  if (request.signal !== undefined && !(request.signal instanceof AbortSignal)) {
    throw new TypeError('sandbox.run(request): request.signal must be an AbortSignal when given');
  }
  return {
    code: request.code,
    toolNames: [...names],
    determinism: checkDeterminism(request.determinism),
    state: checkState(request.state),
  };
}

function checkState(given: RunRequest['state']): ProgramState | undefined {
  if (given === undefined) return undefined;
  if (
    typeof given !== 'object' ||
    given === null ||
    typeof given.saved !== 'string' ||
    !Number.isSafeInteger(given.maxBytes) ||
    given.maxBytes < 2
  ) {
    throw new TypeError(
      "sandbox.run(request): request.state must be { saved: string ('' for a new state), maxBytes: integer of at least 2 }",
    );
  }
  return { saved: given.saved, maxBytes: given.maxBytes };
}

function checkDeterminism(given: RunRequest['determinism']): RunDeterminism {
  if (given === undefined) return { seed: randomUUID(), clockStartMs: Date.now() };
  if (
    typeof given !== 'object' ||
    given === null ||
    typeof given.seed !== 'string' ||
    given.seed.length === 0 ||
    given.seed.length > 1024 ||
    typeof given.clockStartMs !== 'number' ||
    !Number.isFinite(given.clockStartMs)
  ) {
    throw new TypeError(
      'sandbox.run(request): request.determinism must be { seed: non-empty string (at most 1024 characters), clockStartMs: finite number }',
    );
  }
  return { seed: given.seed, clockStartMs: given.clockStartMs };
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

export const ABORT_MESSAGE = 'The run was cancelled.';

/** A checked, compiled request ready to run — or the outcome it already has (compile error, abort). */
export type PreparedRun =
  | { readonly outcome: RunOutcome }
  | {
      readonly outcome?: undefined;
      readonly toolNames: string[];
      readonly limits: SandboxLimits;
      readonly logs: LogBuffer;
      readonly program: CompiledProgram;
      readonly determinism: RunDeterminism;
      readonly state: ProgramState | undefined;
    };

/** The steps every sandbox takes before a program runs, in one place. */
export async function prepareRun(request: RunRequest, defaults: SandboxLimits): Promise<PreparedRun> {
  const { code, toolNames, determinism, state } = checkRunRequest(request);
  const limits = resolveLimits(defaults, request.limits);
  const aborted = { outcome: { ok: false, kind: 'abort', message: ABORT_MESSAGE, logs: [] } } as const;
  if (request.signal?.aborted) return aborted;
  const compiled = await compileProgram(code, { deadlineMs: Math.min(limits.wallTimeMs, COMPILE_TIME_LIMIT_MS) });
  if (!compiled.ok) {
    return {
      outcome:
        compiled.location === undefined
          ? { ok: false, kind: 'compile', message: compiled.message, logs: [] }
          : { ok: false, kind: 'compile', message: compiled.message, location: compiled.location, logs: [] },
    };
  }
  if (request.signal?.aborted) return aborted;
  return {
    toolNames,
    limits,
    logs: new LogBuffer({ maxBytes: limits.maxLogBytes, maxLines: limits.maxLogLines }, liveLogListener(request.onLog)),
    program: compiled.program,
    determinism,
    state,
  };
}

/** The caller's onLog, made unable to disturb the run: whatever it throws is dropped. */
function liveLogListener(onLog: RunRequest['onLog']): ((line: string) => void) | undefined {
  if (onLog === undefined) return undefined;
  return (line) => {
    try {
      onLog(line);
    } catch {
      // a listener's failure is its own; the run and its final logs are unaffected
    }
  };
}
