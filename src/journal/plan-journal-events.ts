// The journal events of plans (previews waiting for their commit), so a commit works in
// any process on the same journal: `plan/key` (the sealing key when PTC_PLAN_KEY is not
// set: the first row wins), `plan/saved` (a preview's record), `plan/used` (a commit took
// the plan: the first row for a plan wins). Filed under the preview's run_code call.
import type { JsonValue } from '../json/json-value.ts';

/** Fields every plan event has. */
export interface PlanEventBase {
  /** The preview's run_code callId (`plan/key`: `plan-key`). */
  readonly callId: string;
  /** Always `run_code`. */
  readonly name: string;
  readonly at: number;
}

/** The plan sealing key a runtime with a journal made (without PTC_PLAN_KEY). */
export interface PlanKeyEvent extends PlanEventBase {
  readonly type: 'plan/key';
  /** Stops tokens forged by clients; anyone who can read the journal can read it too. */
  readonly key: string;
}

/** A preview's plan, waiting for its commit. */
export interface PlanSavedEvent extends PlanEventBase {
  readonly type: 'plan/saved';
  readonly planId: string;
  /** The preview's record (calls, answers, program). */
  readonly record: JsonValue;
}

/** A commit took the plan. */
export interface PlanUsedEvent extends PlanEventBase {
  readonly type: 'plan/used';
  readonly planId: string;
  /** Who took it (a fresh id per commit): the first row of a plan names the one commit that runs. */
  readonly owner: string;
}

/** Every plan event. */
export type PlanJournalEvent = PlanKeyEvent | PlanSavedEvent | PlanUsedEvent;

/** Whether `value` (already known to have a string callId and name) is a well-formed plan event. */
export function isPlanJournalEvent(value: Record<string, unknown>): boolean {
  if (typeof value.at !== 'number' || !Number.isFinite(value.at)) return false;
  switch (value.type) {
    case 'plan/key':
      return typeof value.key === 'string' && value.key.length >= 32;
    case 'plan/saved':
      return typeof value.planId === 'string' && typeof value.record === 'object' && value.record !== null;
    case 'plan/used':
      return typeof value.planId === 'string' && typeof value.owner === 'string';
    default:
      return false;
  }
}
