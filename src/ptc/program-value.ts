// The value of a run_code result (logs, returned value, and what a pause, a session or a
// plan adds) and the text a model reads of it.
import type { JsonValueType } from '../definition/schema-node.ts';
import { planRunText } from '../preview/plan-text.ts';
import { sessionLine, type RunSessionValue } from '../sessions/runtime-sessions.ts';
import { pausedRunText, type PausedRun } from './paused-run-text.ts';
import { renderRunCodeText, type RunCodeValue } from './run-code-output.ts';

/** run_code's canonical value. */
export type ProgramValue = {
  logs: string[];
  result?: JsonValueType;
  typeErrors?: string[];
  paused?: PausedRun & JsonValueType;
  session?: RunSessionValue & JsonValueType;
  plan?: JsonValueType;
  commit?: JsonValueType;
};

/** The model-visible text of a run_code value, at most `maxChars`. */
export function renderProgramValue(value: ProgramValue, maxChars: number): string {
  const planText = planRunText(value);
  if (planText !== undefined) {
    const rest = { logs: value.logs, ...(value.result === undefined ? {} : { result: value.result }) };
    return `${renderRunCodeText(rest, Math.max(0, maxChars - planText.length - 1))}\n${planText}`;
  }
  if (value.paused !== undefined) return pausedRunText(value as ProgramValue & { paused: PausedRun }, maxChars);
  if (value.session === undefined) return renderRunCodeText(value as RunCodeValue, maxChars);
  const line = sessionLine(value.session as RunSessionValue);
  return `${renderRunCodeText(value as RunCodeValue, Math.max(0, maxChars - line.length - 1))}\n${line}`;
}
