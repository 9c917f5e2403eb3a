// The journal events of plans (previews waiting for their commit), so a commit works in
// any process on the same journal: `plan/key` (the sealing key when PTC_PLAN_KEY is not
// set: the first row wins), `plan/saved` (a preview's record), `plan/used` (a commit took
// the plan: the first row for a plan wins). Filed under the preview's run_code call.
// The undo of a failed commit is journaled too, so a crash during it does not lose it:
// `plan/undo` (what is to be undone), `plan/revert` (each revert's start and outcome),
// `plan/undone` (the undo finished, with what it did). `plan/decided` is an operator's
// approval or rejection of a plan that waits for one (the first row wins).
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

/** An operator approved or rejected a plan that waits for approval: the first row of a plan wins. */
export interface PlanDecidedEvent extends PlanEventBase {
  readonly type: 'plan/decided';
  readonly planId: string;
  readonly decision: 'approve' | 'reject';
  /** The digest of the plan decided on: an approval is of exactly that plan. */
  readonly digest: string;
}

/** A write of a commit as the undo's rows name it. */
export interface UndoWriteRow {
  readonly seq: number;
  readonly name: string;
  readonly arguments: JsonValue;
}

/** The undo of a commit starts: written before its first revert runs. */
export interface PlanUndoEvent extends PlanEventBase {
  readonly type: 'plan/undo';
  readonly planId: string;
  /** The agent and principal the commit ran for (a resume is scoped by them). */
  readonly agent: string | null;
  readonly principal: string | null;
  /** Every write the commit applied, in plan order. */
  readonly applied: readonly UndoWriteRow[];
  /** The writes to revert, last first, each with the result its revert is given. */
  readonly toRevert: readonly (UndoWriteRow & { readonly result: JsonValue })[];
  /** Writes that cannot be reverted (no revert, or an unknown outcome), with why. */
  readonly notUndone: readonly (UndoWriteRow & { readonly reason: string })[];
}

/** One revert of an undo: `start` before it runs, then `done` or `failed`. */
export interface PlanRevertEvent extends PlanEventBase {
  readonly type: 'plan/revert';
  readonly planId: string;
  readonly seq: number;
  readonly phase: 'start' | 'done' | 'failed';
  /** `failed`: why. */
  readonly reason?: string;
}

/** The undo finished: what the commit applied, undid and did not undo. */
export interface PlanUndoneEvent extends PlanEventBase {
  readonly type: 'plan/undone';
  readonly planId: string;
  readonly outcome: JsonValue;
}

/** Every plan event. */
export type PlanJournalEvent =
  | PlanKeyEvent
  | PlanSavedEvent
  | PlanUsedEvent
  | PlanDecidedEvent
  | PlanUndoEvent
  | PlanRevertEvent
  | PlanUndoneEvent;

const isWriteRow = (value: unknown): boolean => {
  if (typeof value !== 'object' || value === null) return false;
  const w = value as Record<string, unknown>;
  return Number.isSafeInteger(w.seq) && typeof w.name === 'string' && 'arguments' in w;
};
const rows = (value: unknown, extra: (w: Record<string, unknown>) => boolean = () => true): boolean =>
  Array.isArray(value) && value.every((w) => isWriteRow(w) && extra(w as Record<string, unknown>));
const nullableString = (value: unknown): boolean => value === null || typeof value === 'string';

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
    case 'plan/decided':
      return (
        typeof value.planId === 'string' &&
        (value.decision === 'approve' || value.decision === 'reject') &&
        typeof value.digest === 'string'
      );
    case 'plan/undo':
      return (
        typeof value.planId === 'string' &&
        nullableString(value.agent) &&
        nullableString(value.principal) &&
        rows(value.applied) &&
        rows(value.toRevert, (w) => 'result' in w) &&
        rows(value.notUndone, (w) => typeof w.reason === 'string')
      );
    case 'plan/revert':
      return (
        typeof value.planId === 'string' &&
        Number.isSafeInteger(value.seq) &&
        (value.phase === 'start' || value.phase === 'done' || value.phase === 'failed') &&
        (value.reason === undefined || typeof value.reason === 'string')
      );
    case 'plan/undone':
      return typeof value.planId === 'string' && typeof value.outcome === 'object' && value.outcome !== null;
    default:
      return false;
  }
}
