// Whole-plan approval: with `planApproval`, every previewed plan waits for an operator.
// `rt.plans()` lists the plans waiting (their writes with titles and arguments, and the
// program), `rt.decidePlan()` approves or rejects one as a whole. The decision is kept in
// the plan store (the journal's, so any process on it sees it; the first decision stands)
// and names the plan's digest: an approval unlocks the commit of exactly that plan's
// token, a rejection makes the token unusable (plan-runs.ts checks both before a commit).
import { PLAN_ERROR_CODES, PlanError } from '../errors/plan-error.ts';
import { planDigest, plannedWrites, type PlannedWrite, type PlanRecord } from './plan-record.ts';
import type { PlanStore } from './plan-store.ts';
import type { UndoScope } from './undo-journal.ts';

/** What an operator decides on. */
export type PlanDecisionKind = 'approve' | 'reject';

/** A plan waiting for an operator's approval (`rt.plans()`). */
export interface PlanAwaitingApproval {
  readonly planId: string;
  /** The agent and principal it was previewed for (its commit must be for them too). */
  readonly agent?: string;
  readonly principal?: string;
  /** run_code's description and code: the program whose writes these are. */
  readonly description: string;
  readonly code: string;
  /** The writes the commit will make, in program order, with their titles. */
  readonly writes: readonly PlannedWrite[];
  /** Reads that ran live in the preview. */
  readonly reads: number;
  /** The preview stopped at a pivot write: the commit ends after it. */
  readonly partial?: true;
  readonly createdAt: number;
  /** After this the plan cannot be committed, approved or not. */
  readonly expiresAt: number;
}

/** Whose plans an operator sees and decides (as for durable runs). */
export type PlansScope = UndoScope;

function inScope(record: PlanRecord, scope: PlansScope): boolean {
  if (scope.agent !== undefined) {
    const agents = ([] as string[]).concat(scope.agent);
    if (record.agent === null || !agents.includes(record.agent)) return false;
  }
  return scope.principal === undefined || record.principal === scope.principal;
}

const awaiting = (record: PlanRecord): PlanAwaitingApproval => ({
  planId: record.planId,
  ...(record.agent === null ? {} : { agent: record.agent }),
  ...(record.principal === null ? {} : { principal: record.principal }),
  description: record.description,
  code: record.code,
  writes: plannedWrites(record),
  reads: record.calls.filter((c) => c.kind === 'read').length,
  ...(record.partial ? { partial: true as const } : {}),
  createdAt: record.createdAt,
  expiresAt: record.expiresAt,
});

/** The plans in scope waiting for a decision, oldest first. */
export async function plansAwaitingApproval(store: PlanStore, scope: PlansScope): Promise<PlanAwaitingApproval[]> {
  return (await store.open())
    .filter((p) => p.record.approval === true && p.decision === undefined && inScope(p.record, scope))
    .map((p) => awaiting(p.record));
}

/** Approves or rejects a waiting plan as a whole; the same decision again is a no-op, the other one PLAN_DECIDED. */
export async function decidePlan(
  store: PlanStore,
  planId: string,
  decision: PlanDecisionKind,
  scope: PlansScope,
): Promise<{ readonly planId: string; readonly decision: PlanDecisionKind }> {
  if (typeof planId !== 'string' || planId === '') throw new TypeError('decidePlan: planId must be a non-empty string');
  if (decision !== 'approve' && decision !== 'reject')
    throw new TypeError(`decidePlan: the decision must be 'approve' or 'reject', got ${JSON.stringify(decision)}`);
  const record = await store.load(planId);
  const shownId = JSON.stringify(planId.slice(0, 100));
  if (record === 'used')
    throw new PlanError(
      PLAN_ERROR_CODES.PLAN_USED,
      `plan ${shownId} was already committed: there is nothing to decide`,
    );
  if (record === undefined || record.approval !== true || !inScope(record, scope))
    throw new PlanError(PLAN_ERROR_CODES.PLAN_INVALID, `no plan ${shownId} waits for approval here`);
  if (record.expiresAt <= Date.now())
    throw new PlanError(
      PLAN_ERROR_CODES.PLAN_EXPIRED,
      `plan ${shownId} expired at ${new Date(record.expiresAt).toISOString()}: it can no longer be committed`,
    );
  const first = await store.decide(planId, { decision, digest: planDigest(record), at: Date.now() });
  if (first.decision !== decision)
    throw new PlanError(
      PLAN_ERROR_CODES.PLAN_DECIDED,
      `plan ${shownId} was already ${first.decision === 'approve' ? 'approved' : 'rejected'} at ${new Date(first.at).toISOString()}; the first decision stands`,
    );
  return { planId, decision };
}
