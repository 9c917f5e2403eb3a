// The undo of a failed commit, kept in the journal so a crash during it does not lose it.
// The undoing process claims `undo-<planId>` (the store's run claims: one process at a
// time, a dead holder's claim is stale), writes `plan/undo` (what is to be undone) before
// its first revert, `plan/revert` start/outcome around each revert, and `plan/undone`
// at the end. An undo with no `plan/undone` and no live claim was interrupted: any process
// on the journal lists it (`rt.undos()`) and finishes it (`rt.resumeUndo(planId)`): the
// reverts recorded as done or failed do not run again, the others run, still last first.
// A revert whose start was recorded but not its outcome runs again: its process died in it.
import { randomUUID } from 'node:crypto';
import type { Tool } from '../definition/tool.ts';
import { PLAN_ERROR_CODES, PlanError } from '../errors/plan-error.ts';
import type { Journal, JournalEvent } from '../journal/journal.ts';
import type { PlanUndoEvent, PlanUndoneEvent } from '../journal/plan-journal-events.ts';
import { isClaimLive, newClaim } from '../journal/run-claims.ts';
import { isUnsealed } from '../journal/sealed-journal.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { AppliedWrite } from './commit-run.ts';
import {
  runReverts,
  shownWrite,
  type CommitOutcome,
  type CommitWrite,
  type UndoPlan,
  type UndoProgress,
} from './undo.ts';

const NAME = 'run_code';

/** Whose undos an operator may see and resume (as for durable runs). */
export interface UndoScope {
  /** Only undos of commits for this agent (or one of these). */
  readonly agent?: string | readonly string[];
  /** Only undos of commits for this principal. */
  readonly principal?: string;
}

/** An undo a crash interrupted (`rt.undos()`): no process is finishing it. */
export interface InterruptedUndo {
  readonly planId: string;
  readonly agent?: string;
  readonly principal?: string;
  /** When the undo started, in ms since the epoch. */
  readonly startedAt: number;
  /** Every write the commit applied, in plan order. */
  readonly applied: readonly CommitWrite[];
  /** Reverted before the crash, last first. */
  readonly undone: readonly CommitWrite[];
  /** Still to revert, last first (a revert that was running when the process died is among them). */
  readonly pending: readonly CommitWrite[];
}

interface UndoState {
  readonly start: PlanUndoEvent;
  /** Reverts that ended: absent failure means done. */
  readonly settled: Map<number, { failure?: string }>;
  done?: PlanUndoneEvent;
}

const claimId = (planId: string): string => `undo-${planId}`;

/** The undos in the journal, by plan (the first `plan/undo` of a plan counts). */
function foldUndos(events: readonly JournalEvent[]): Map<string, UndoState> {
  const undos = new Map<string, UndoState>();
  for (const event of events) {
    if (!event.type.startsWith('plan/') || isUnsealed(event)) continue;
    if (event.type === 'plan/undo') {
      if (!undos.has(event.planId)) undos.set(event.planId, { start: event, settled: new Map() });
      continue;
    }
    const undo = event.type === 'plan/revert' || event.type === 'plan/undone' ? undos.get(event.planId) : undefined;
    if (undo === undefined) continue;
    if (event.type === 'plan/undone') undo.done ??= event;
    else if (event.type === 'plan/revert' && event.phase !== 'start' && !undo.settled.has(event.seq))
      undo.settled.set(event.seq, event.phase === 'done' ? {} : { failure: event.reason ?? 'revert failed' });
  }
  return undos;
}

function inScope(start: PlanUndoEvent, scope: UndoScope): boolean {
  if (scope.agent !== undefined) {
    const agents = ([] as string[]).concat(scope.agent);
    if (start.agent === null || !agents.includes(start.agent)) return false;
  }
  return scope.principal === undefined || start.principal === scope.principal;
}

const undoPlanOf = (start: PlanUndoEvent): UndoPlan => ({
  applied: start.applied,
  toRevert: start.toRevert as readonly AppliedWrite[],
  notUndone: start.notUndone,
});

/** Journals an undo's progress; a journal that fails does not stop the undo (it must not be refused). */
function journalProgress(journal: Journal, planId: string): UndoProgress {
  const row = (seq: number, phase: 'start' | 'done' | 'failed', reason?: string) =>
    journal
      .append([
        {
          type: 'plan/revert',
          callId: `plan:${planId}`,
          name: NAME,
          planId,
          seq,
          phase,
          ...(reason === undefined ? {} : { reason }),
          at: Date.now(),
        },
      ])
      .catch(() => {});
  return {
    reverting: (seq) => row(seq, 'start'),
    reverted: (seq, failure) => row(seq, failure === undefined ? 'done' : 'failed', failure),
  };
}

const finished = (journal: Journal, planId: string, outcome: CommitOutcome) =>
  journal
    .append([
      {
        type: 'plan/undone',
        callId: `plan:${planId}`,
        name: NAME,
        planId,
        outcome: outcome as unknown as JsonValue,
        at: Date.now(),
      },
    ])
    .catch(() => {});

/** A commit's undo, journaled (without a journal: only run). Never throws. */
export async function journaledUndo(
  journal: Journal | undefined,
  planId: string,
  who: { readonly agent: string | null; readonly principal: string | null },
  plan: UndoPlan,
  lookup: (name: string) => Tool | undefined,
): Promise<CommitOutcome> {
  // Nothing to revert: nothing a crash could interrupt.
  if (journal === undefined || plan.toRevert.length === 0) {
    const quiet: UndoProgress = { reverting: async () => {}, reverted: async () => {} };
    return {
      planId,
      applied: plan.applied,
      ...(await runReverts(planId, plan, who.agent ?? undefined, lookup, quiet)),
    };
  }
  const owner = randomUUID();
  // The commit took its plan once: nobody else holds this claim but a resume after our death.
  await journal.claims?.claimRun(newClaim(claimId(planId), owner)).catch(() => undefined);
  try {
    await journal
      .append([
        {
          type: 'plan/undo',
          callId: `plan:${planId}`,
          name: NAME,
          planId,
          agent: who.agent,
          principal: who.principal,
          applied: plan.applied,
          toRevert: plan.toRevert,
          notUndone: plan.notUndone,
          at: Date.now(),
        },
      ])
      .catch(() => {});
    const progress = journalProgress(journal, planId);
    const outcome = {
      planId,
      applied: plan.applied,
      ...(await runReverts(planId, plan, who.agent ?? undefined, lookup, progress)),
    };
    await finished(journal, planId, outcome);
    return outcome;
  } finally {
    await journal.claims?.releaseRun(claimId(planId), owner).catch(() => {});
  }
}

/** The undos a crash interrupted: started, not finished, and no live process holds them. */
export async function interruptedUndos(journal: Journal, scope: UndoScope): Promise<InterruptedUndo[]> {
  const out: InterruptedUndo[] = [];
  for (const [planId, undo] of foldUndos((await journal.read()).events)) {
    if (undo.done !== undefined || !inScope(undo.start, scope)) continue;
    // A row whose plan id the store's claims refuse (a hostile or damaged journal) is skipped, never the listing.
    const claim = await journal.claims?.runClaim(claimId(planId)).catch(() => 'refused' as const);
    if (claim === 'refused' || (claim !== undefined && isClaimLive(claim))) continue;
    out.push(summaryOf(undo));
  }
  return out;
}

function summaryOf(undo: UndoState): InterruptedUndo {
  const { start, settled } = undo;
  return {
    planId: start.planId,
    ...(start.agent === null ? {} : { agent: start.agent }),
    ...(start.principal === null ? {} : { principal: start.principal }),
    startedAt: start.at,
    applied: start.applied.map(shownWrite),
    undone: start.toRevert
      .filter((w) => settled.get(w.seq)?.failure === undefined && settled.has(w.seq))
      .map(shownWrite),
    pending: start.toRevert.filter((w) => !settled.has(w.seq)).map(shownWrite),
  };
}

/**
 * Finishes an undo a crash interrupted, under its claim: reverts not recorded as ended run
 * (last first), then the outcome is journaled and returned. A finished undo answers its
 * recorded outcome and runs nothing.
 */
export async function resumeUndo(
  journal: Journal,
  planId: string,
  scope: UndoScope,
  lookup: (name: string, agent: string | undefined) => Tool | undefined,
): Promise<CommitOutcome> {
  if (typeof planId !== 'string' || planId === '') throw new TypeError('resumeUndo: planId must be a non-empty string');
  const unknown = () =>
    new PlanError(
      PLAN_ERROR_CODES.UNDO_UNKNOWN,
      `no undo of plan ${JSON.stringify(planId.slice(0, 100))} in the journal`,
    );
  const before = foldUndos((await journal.read()).events).get(planId);
  if (before === undefined || !inScope(before.start, scope)) throw unknown();
  if (before.done !== undefined) return before.done.outcome as unknown as CommitOutcome;
  const agent = before.start.agent ?? undefined;
  const missing = [...new Set(before.start.toRevert.map((w) => w.name))].filter((n) => lookup(n, agent) === undefined);
  if (missing.length > 0)
    throw new PlanError(
      PLAN_ERROR_CODES.UNDO_TOOL_MISSING,
      `the undo of plan ${planId} reverts through tools this runtime does not have (${missing.map((n) => `tools.${n}`).join(', ')}); it was left as it was. Resume it on a runtime with the commit's tools.`,
      { missing },
    );
  const owner = randomUUID();
  const holder = await journal.claims?.claimRun(newClaim(claimId(planId), owner));
  if (holder !== undefined)
    throw new PlanError(
      PLAN_ERROR_CODES.UNDO_BUSY,
      `the undo of plan ${planId} is running in another process (pid ${holder.pid} on ${holder.host}); wait for it to end`,
    );
  try {
    // Read again under the claim: another resume may have finished it in between.
    const undo = foldUndos((await journal.read()).events).get(planId)!;
    if (undo.done !== undefined) return undo.done.outcome as unknown as CommitOutcome;
    const plan = undoPlanOf(undo.start);
    const reverts = await runReverts(
      planId,
      plan,
      agent,
      (name) => lookup(name, agent),
      journalProgress(journal, planId),
      undo.settled,
    );
    const outcome: CommitOutcome = { planId, applied: plan.applied, ...reverts };
    await finished(journal, planId, outcome);
    return outcome;
  } finally {
    await journal.claims?.releaseRun(claimId(planId), owner).catch(() => {});
  }
}
