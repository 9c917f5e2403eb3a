// A scenario is one task done two ways: a scripted native model that sends tool calls
// message by message and reads every result, and one run_code program. Used by
// `ptc demo`, the tests and the benchmarks; no API key, no network.
import type { JsonValue } from '../json/json-value.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';

export interface ScriptedCall {
  readonly name: string;
  readonly arguments: { readonly [key: string]: JsonValue };
}

export interface Scenario {
  readonly name: string;
  readonly question: string;
  /**
   * The scripted native model: each `yield` is one model message of tool calls; the
   * driver answers with their results (model order); the return value is the answer.
   */
  native(): Generator<readonly ScriptedCall[], JsonValue, readonly ToolResult[]>;
  /** The same task as one run_code program (TypeScript, the body of an async function). */
  readonly program: string;
}

/** What a native model reads back: the JSON text of a result's content. */
export function readJson<T>(result: ToolResult): T {
  if (result.isError) throw new Error(`scripted model: ${result.name} failed: ${result.error?.message ?? ''}`);
  const block = result.content[0];
  if (block === undefined || block.type !== 'text') throw new Error(`scripted model: ${result.name} returned no text`);
  return JSON.parse(block.text) as T;
}
