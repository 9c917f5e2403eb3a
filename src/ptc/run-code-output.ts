// How a run_code outcome reads for the model: log lines, then the returned
// value (a string raw, anything else as indented JSON, -0 written as -0), or a fixed "no output" line.
// The whole text is capped at the model-visible limit with a marker.
import type { JsonValue } from '../json/json-value.ts';
import { guestValueJson } from './guest-value-json.ts';

export const NO_OUTPUT_TEXT = '(run_code completed with no output)';
/** Model-visible text limit. @default 65536 */
export const DEFAULT_MAX_VISIBLE_CHARS = 64 * 1024;

export interface RunCodeValue {
  readonly logs: readonly string[];
  readonly result?: JsonValue;
  /** typecheck: 'warn' — the program's type errors (`line:column message`); it ran anyway. */
  readonly typeErrors?: readonly string[];
}

export function truncateVisible(text: string, max: number): string {
  if (text.length <= max) return text;
  // The marker counts what is really hidden, which depends on the marker's own length.
  let kept = max;
  let marker = '';
  for (let i = 0; i < 3; i += 1) {
    marker = `\n… [truncated: ${text.length - kept} more characters not shown]`;
    kept = Math.max(0, max - marker.length);
  }
  // The cap holds even when it is too small for the marker.
  if (marker.length >= max) return cutWhole(text, max);
  const head = cutWhole(text, kept);
  return `${head}\n… [truncated: ${text.length - head.length} more characters not shown]`;
}

/** The first `n` UTF-16 units, without splitting a surrogate pair. */
function cutWhole(text: string, n: number): string {
  const code = text.charCodeAt(n - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}

export function renderRunCodeText(value: RunCodeValue, maxChars = DEFAULT_MAX_VISIBLE_CHARS): string {
  if (value.typeErrors === undefined || value.typeErrors.length === 0) return renderOutput(value, maxChars);
  // The type errors follow the output; they are few and short (capped), but the cap holds anyway.
  const note = truncateVisible(
    `Type errors (the program ran anyway):\n${value.typeErrors.join('\n')}`,
    Math.floor(maxChars / 2),
  );
  return `${renderOutput(value, Math.max(0, maxChars - note.length - 2))}\n\n${note}`;
}

function renderOutput(value: RunCodeValue, maxChars: number): string {
  const logs = value.logs.join('\n');
  if (value.result === undefined) return truncateVisible(value.logs.length === 0 ? NO_OUTPUT_TEXT : logs, maxChars);
  const result = typeof value.result === 'string' ? value.result : guestValueJson(value.result, 2);
  if (value.logs.length === 0) return truncateVisible(result, maxChars);
  if (logs.length + 1 + result.length <= maxChars) return `${logs}\n${result}`;
  // Too long: the returned value is the answer, so the logs give way first. They keep at
  // least a quarter of the space (when they have that much); the value gets the rest.
  const logBudget = Math.max(Math.min(logs.length, Math.floor(maxChars / 4)), maxChars - result.length - 1);
  const shownLogs = truncateVisible(logs, logBudget);
  return `${shownLogs}\n${truncateVisible(result, Math.max(0, maxChars - shownLogs.length - 1))}`;
}

/** The failure text: what went wrong, then the output the program printed before it. */
export function runFailureText(kind: string, message: string, logs: readonly string[]): string {
  const head = `run_code failed (${kind}): ${message}`;
  return logs.length === 0 ? head : `${head}\n\nCaptured output:\n${logs.join('\n')}`;
}
