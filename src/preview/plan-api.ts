// `rt.preview(call)` and `rt.commit(token)`: the application's side of plans. A preview is
// the run_code call it is given, run as a preview; a commit runs the plan's own program
// (from the store) as a commit of that token, for the agent and principal the caller
// names — a token of another agent or principal is refused.
import { RUN_CODE } from '../registry/tool-registry.ts';
import { checkPrincipal } from '../runtime/check-principal.ts';
import { PLAN_ERROR_CODES, PlanError } from '../errors/plan-error.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { ExecuteRequest } from '../pipeline/execute-request.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import type { AgentRef } from '../registry/tool-registry.ts';
import type { Plan, PlanRequest, PlansConfig } from './plan-runs.ts';
import { openPlanToken } from './plan-token.ts';
import type { CommitOutcome } from './undo.ts';
import {
  decidePlan,
  plansAwaitingApproval,
  type PlanAwaitingApproval,
  type PlanDecisionKind,
  type PlansScope,
} from './plan-approval.ts';
import { interruptedUndos, resumeUndo, type InterruptedUndo, type UndoScope } from './undo-journal.ts';

/** What `rt.preview` resolves with. */
export interface PreviewResult {
  /** The writes the program would make, and the token that commits exactly them. */
  readonly plan: Plan;
  /** What the program returned in the preview (writes answered with stand-ins). */
  readonly result: JsonValue | undefined;
  readonly logs: readonly string[];
}

/** What `rt.commit` resolves with. */
export interface CommitResult {
  /** What the program returned in the commit. */
  readonly result: JsonValue | undefined;
  readonly logs: readonly string[];
  /** The writes applied (all of the plan's). */
  readonly commit: CommitOutcome;
}

/** How `rt.commit` runs: revalidation, and who the commit is for. */
export interface CommitOptions {
  /** Run every read of the preview again first and compare: a changed answer is PLAN_STALE before any write. @default false */
  readonly revalidate?: boolean;
  /** The agent the commit is for: it must be the one the plan was previewed for. */
  readonly agent?: AgentRef;
  /** The principal the commit is for: it must be the one the plan was previewed for. */
  readonly principal?: string;
  /** The commit's run_code callId. @default `commit:<planId>` */
  readonly callId?: string;
  readonly signal?: AbortSignal;
}

/** The runtime's previews and commits (part of ToolRuntime). */
export interface PlansApi {
  /**
   * Runs a run_code call as a preview: reads run, writes do not (each answers with its
   * tool's `preview()` stand-in, or a value marked `$preview`) and join the plan.
   * Resolves with the plan (its writes and a sealed, single-use token) and what the
   * program returned. Throws PlanError (with the run's own code) when the run failed.
   */
  preview(call: ExecuteRequest): Promise<PreviewResult>;
  /**
   * Runs the previewed program again as the commit of its plan: reads answered from the
   * preview (or run again and compared, `revalidate: true`: PLAN_STALE before any write),
   * exactly the planned writes run, anything else stops before it runs (PLAN_MISMATCH);
   * a failed commit undoes its applied writes last-first (`revert`). Throws PlanError:
   * PLAN_MISMATCH, PLAN_STALE, PLAN_USED, PLAN_EXPIRED, PLAN_INVALID, COMMIT_FAILED.
   */
  commit(token: string, options?: CommitOptions): Promise<CommitResult>;
  /**
   * The plans waiting for an operator's approval (a runtime with `planApproval`), oldest
   * first: each with its writes (titles, arguments) and program. With a journal, the plans
   * of every process on it.
   */
  plans(scope?: PlansScope): Promise<PlanAwaitingApproval[]>;
  /**
   * Approves or rejects a waiting plan as a whole. An approval lets the commit of exactly
   * that plan's token run; a rejection makes the token unusable (PLAN_REJECTED). The first
   * decision stands: the other one later is PLAN_DECIDED. Throws PlanError: PLAN_INVALID
   * (no such plan waits in scope), PLAN_USED, PLAN_EXPIRED, PLAN_DECIDED.
   */
  decidePlan(
    planId: string,
    decision: PlanDecisionKind,
    scope?: PlansScope,
  ): Promise<{ readonly planId: string; readonly decision: PlanDecisionKind }>;
  /**
   * The undos of failed commits that a crash interrupted (their process died during the
   * reverts), from the journal: on any runtime of the same journal. Empty without a journal.
   */
  undos(scope?: UndoScope): Promise<InterruptedUndo[]>;
  /**
   * Finishes an interrupted undo: the reverts recorded as done do not run again, the others
   * run, last first (one whose process died in it runs again, with the same
   * `exec.idempotencyKey`). Resolves with what the commit applied, undid and did not undo;
   * for an undo already finished, with its recorded outcome. Throws PlanError:
   * UNDO_UNKNOWN, UNDO_BUSY (a live process runs it), UNDO_TOOL_MISSING.
   */
  resumeUndo(planId: string, scope?: UndoScope): Promise<CommitOutcome>;
}

/** Runs one top-level request with the signal given (the runtime's executor, without its own principal handling). */
export type ExecuteWithTicket = (request: ExecuteRequest, ticket: AbortSignal) => Promise<ToolResult>;

const failure = (result: ToolResult): PlanError =>
  new PlanError(
    result.error?.code ?? 'TOOL_ERROR',
    result.error?.message ?? 'the run failed',
    result.error?.info ?? {},
  );

export function createPlansApi(
  config: PlansConfig,
  principals: Map<AbortSignal, string>,
  execute: ExecuteWithTicket,
): PlansApi {
  /** The run_code call finds its plan request (and principal) by a signal made for it alone. */
  const run = async (request: ExecuteRequest, planRequest: PlanRequest): Promise<ToolResult> => {
    const principal = checkPrincipal(request);
    const ticket = request.signal === undefined ? new AbortController().signal : AbortSignal.any([request.signal]);
    if (principal !== undefined) principals.set(ticket, principal);
    config.requests.set(ticket, planRequest);
    try {
      return await execute(request, ticket);
    } finally {
      principals.delete(ticket);
      config.requests.delete(ticket);
    }
  };
  const noJournal = () =>
    new PlanError(PLAN_ERROR_CODES.UNDO_UNKNOWN, 'undos are journaled only on a runtime with a journal: none here');
  return {
    plans: (scope = {}) => plansAwaitingApproval(config.store, scope),
    decidePlan: (planId, decision, scope = {}) => decidePlan(config.store, planId, decision, scope),
    async undos(scope = {}) {
      return config.journal === undefined ? [] : interruptedUndos(config.journal, scope);
    },
    async resumeUndo(planId, scope = {}) {
      if (config.journal === undefined) throw noJournal();
      return resumeUndo(config.journal, planId, scope, config.lookup);
    },
    async preview(call) {
      if (typeof call !== 'object' || call === null || call.name !== RUN_CODE)
        throw new TypeError(
          `preview: give a run_code call ({ callId, name: '${RUN_CODE}', arguments: { description, code } })`,
        );
      const result = await run(call, { kind: 'preview' });
      if (result.isError) throw failure(result);
      const value = result.value as unknown as { plan: Plan; result?: JsonValue; logs: string[] };
      return { plan: value.plan, result: value.result, logs: value.logs };
    },
    async commit(token, options = {}) {
      const payload = openPlanToken(config.envKey ?? (await config.store.key()), token);
      const record = await config.store.load(payload.planId);
      if (record === 'used')
        throw new PlanError(
          PLAN_ERROR_CODES.PLAN_USED,
          `plan ${payload.planId} was already committed (a plan token is good for one commit); preview the program again`,
        );
      if (record === undefined)
        throw new PlanError(
          PLAN_ERROR_CODES.PLAN_INVALID,
          `the plan token was refused: plan ${payload.planId} is not known here (it expired, or was previewed by a runtime that does not share this one's journal).`,
        );
      const { agent, principal, signal } = options;
      const result = await run(
        {
          callId: options.callId ?? `commit:${payload.planId}`,
          name: RUN_CODE,
          arguments: { description: record.description, code: record.code },
          ...(agent === undefined ? {} : { agent }),
          ...(principal === undefined ? {} : { principal }),
          ...(signal === undefined ? {} : { signal }),
        },
        { kind: 'commit', token, revalidate: options.revalidate === true },
      );
      if (result.isError) throw failure(result);
      const value = result.value as unknown as { result?: JsonValue; logs: string[]; commit: CommitOutcome };
      return { result: value.result, logs: value.logs, commit: value.commit };
    },
  };
}
