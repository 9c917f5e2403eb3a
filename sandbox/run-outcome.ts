// What one isolate run reports (before the host's own checks), and the final RunOutcome
// the host builds from it: result size and JSON re-checked, logs attached.
import type { LogBuffer } from './log-buffer.ts';
import type { FailureKind, JsonValue, ProgramState, RunOutcome, SandboxLimits, StateOutcome } from './types.ts';

export type RawRunOutcome =
  | { readonly ok: true; readonly resultJson?: string; readonly state?: StateOutcome }
  | {
      readonly ok: false;
      readonly kind: FailureKind;
      readonly message: string;
      readonly location?: { readonly line: number; readonly column: number };
      /** The guest's stack of an `exception` not located yet (the sandbox process has no source map; the host maps it). */
      readonly stack?: string;
    };

export function failure(kind: FailureKind, message: string): RawRunOutcome {
  return { ok: false, kind, message };
}

export function finalizeOutcome(
  raw: RawRunOutcome,
  logs: LogBuffer,
  limits: SandboxLimits,
  state?: ProgramState,
): RunOutcome {
  const lines = logs.lines();
  if (!raw.ok) {
    return raw.location === undefined
      ? { ok: false, kind: raw.kind, message: raw.message, logs: lines }
      : { ok: false, kind: raw.kind, message: raw.message, logs: lines, location: raw.location };
  }
  const saved = state === undefined ? {} : { state: checkedState(raw.state, state.maxBytes) };
  if (raw.resultJson === undefined) return { ok: true, logs: lines, ...saved };
  const bytes = Buffer.byteLength(raw.resultJson, 'utf8');
  if (bytes > limits.maxResultBytes) {
    return {
      ok: false,
      kind: 'output-limit',
      message: `The returned value is ${bytes} bytes as JSON, over the result limit of ${limits.maxResultBytes} bytes. Return less data, e.g. a summary or the first items.`,
      logs: lines,
    };
  }
  try {
    return { ok: true, logs: lines, result: JSON.parse(raw.resultJson) as JsonValue, ...saved };
  } catch {
    return { ok: false, kind: 'invalid-output', message: 'The returned value is not valid JSON.', logs: lines };
  }
}

/** The guest's report of its state, re-checked here: the bound holds whatever the guest says. */
function checkedState(reported: StateOutcome | undefined, maxBytes: number): StateOutcome {
  if (reported === undefined) return { ok: false, message: 'the sandbox did not report the state' };
  if (!reported.ok) return reported;
  const bytes = Buffer.byteLength(reported.text, 'utf8');
  if (bytes > maxBytes) {
    return {
      ok: false,
      message: `state is ${bytes} bytes serialized, over the session limit of ${maxBytes} bytes (maxBytes): keep less in it`,
    };
  }
  return { ok: true, text: reported.text, bytes };
}

function isStateOutcome(value: unknown): value is StateOutcome {
  if (typeof value !== 'object' || value === null) return false;
  const state = value as Record<string, unknown>;
  return state['ok'] === true
    ? typeof state['text'] === 'string' && typeof state['bytes'] === 'number'
    : state['ok'] === false && typeof state['message'] === 'string';
}

/** Checks that a value from another process is a RawRunOutcome. */
export function isRawRunOutcome(value: unknown): value is RawRunOutcome {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  if (record['ok'] === true)
    return (
      (record['resultJson'] === undefined || typeof record['resultJson'] === 'string') &&
      (record['state'] === undefined || isStateOutcome(record['state']))
    );
  if (record['ok'] !== false) return false;
  if (typeof record['kind'] !== 'string' || !FAILURE_KINDS.has(record['kind']) || typeof record['message'] !== 'string')
    return false;
  if (record['stack'] !== undefined && typeof record['stack'] !== 'string') return false;
  const location = record['location'];
  if (location === undefined) return true;
  if (typeof location !== 'object' || location === null) return false;
  const { line, column } = location as Record<string, unknown>;
  return Number.isInteger(line) && Number.isInteger(column);
}

/** Every failure kind a run may end with (what a message from another process is checked against). */
export const FAILURE_KINDS: ReadonlySet<string> = new Set<FailureKind>([
  'compile',
  'exception',
  'timeout',
  'cpu',
  'memory',
  'output-limit',
  'call-limit',
  'invalid-output',
  'abort',
  'crash',
]);
