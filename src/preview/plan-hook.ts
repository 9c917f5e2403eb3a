// The seam between run_code and a plan: for each nested call of a previewed or committed
// program, where it goes (live through the pipeline, answered here, or nowhere: the run
// stops before it runs), and what happens when it settles.
import type { RunDeterminism } from '../../sandbox/types.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import type { RecordedOutcome } from './plan-record.ts';

/** Why the program stops at a call. `pivot` is not a failure: the plan (or its commit) ends there. */
export interface PlanStop {
  readonly kind: 'plan-mismatch' | 'commit-failed' | 'pivot';
  readonly code: string;
  readonly message: string;
}

export type PlanRoute =
  /** Through the whole pipeline (a read in a preview, a planned write in a commit). */
  | { readonly kind: 'live'; readonly idempotencyKey?: string }
  /** Answered without running (a write's stand-in in a preview, a recorded read in a commit). */
  | { readonly kind: 'answer'; readonly result: ToolResult | Promise<ToolResult> }
  /** Not run: the program stops. */
  | { readonly kind: 'stop'; readonly stop: PlanStop };

export interface PlanHook {
  readonly determinism: RunDeterminism;
  route(seq: number, name: string, args: JsonValue, signal: AbortSignal): PlanRoute;
  /** The call's final result: the time the program sees it at, and whether the program stops after it. */
  settled(seq: number, name: string, args: JsonValue, result: ToolResult): { at: number; stop?: PlanStop };
  /**
   * A call refused before it could be routed (arguments too large, not JSON, over the run's
   * retained bytes): its place in the program is used up all the same. A commit whose plan
   * holds a call there stops, so that it never runs a later write out of its place.
   */
  refused?(seq: number, name: string, code: string): PlanStop | undefined;
}

/** A result made here (never run through the pipeline) from an outcome. */
export function answeredResult(callId: string, name: string, outcome: RecordedOutcome): ToolResult {
  return Object.freeze(
    outcome.ok
      ? { callId, name, isError: false, value: outcome.value, content: [] }
      : { callId, name, isError: true, content: [], error: { code: outcome.code, message: outcome.message } },
  );
}

/** What the program got from a result, as recorded. */
export function outcomeOf(result: ToolResult): RecordedOutcome {
  if (!result.isError) return { ok: true, value: result.value ?? null };
  return { ok: false, code: result.error?.code ?? 'TOOL_ERROR', message: result.error?.message ?? 'tool call failed' };
}
