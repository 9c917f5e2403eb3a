// What one isolate run reports (before the host's own checks), and the final RunOutcome
// the host builds from it: result size and JSON re-checked, logs attached.
import type { LogBuffer } from './log-buffer.ts';
import type { FailureKind, JsonValue, RunOutcome, SandboxLimits } from './types.ts';

export type RawRunOutcome =
  | { readonly ok: true; readonly resultJson?: string }
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

export function finalizeOutcome(raw: RawRunOutcome, logs: LogBuffer, limits: SandboxLimits): RunOutcome {
  const lines = logs.lines();
  if (!raw.ok) {
    return raw.location === undefined
      ? { ok: false, kind: raw.kind, message: raw.message, logs: lines }
      : { ok: false, kind: raw.kind, message: raw.message, logs: lines, location: raw.location };
  }
  if (raw.resultJson === undefined) return { ok: true, logs: lines };
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
    return { ok: true, logs: lines, result: JSON.parse(raw.resultJson) as JsonValue };
  } catch {
    return { ok: false, kind: 'invalid-output', message: 'The returned value is not valid JSON.', logs: lines };
  }
}

/** Checks that a value from another process is a RawRunOutcome. */
export function isRawRunOutcome(value: unknown): value is RawRunOutcome {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  if (record['ok'] === true) return record['resultJson'] === undefined || typeof record['resultJson'] === 'string';
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

const FAILURE_KINDS: ReadonlySet<string> = new Set<FailureKind>([
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
