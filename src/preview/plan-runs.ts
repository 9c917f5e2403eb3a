// How a run_code call becomes a preview or a commit: `rt.preview` / `rt.commit` hand the
// request over by the signal they give the call (no other caller holds it); with
// `planArguments` the model may ask the same with run_code's `preview` / `commit`. A
// commit's token is checked (seal, expiry, agent and principal, program text), the plan
// is taken once from the store (PLAN_USED after), and with `revalidate` every recorded
// read runs again first: a changed answer is PLAN_STALE before any write.
import { randomUUID } from 'node:crypto';
import type { Tool } from '../definition/tool.ts';
import { PLAN_ERROR_CODES, PlanError } from '../errors/plan-error.ts';
import { canonicalJson } from '../json/canonical-json.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { ToolExecution } from '../pipeline/tool-execution.ts';
import type { NestedExecuteRequest } from '../pipeline/execute-request.ts';
import type { ToolErrorInfo } from '../pipeline/tool-result.ts';
import { CommitRunner } from './commit-run.ts';
import { outcomeOf, type PlanHook } from './plan-hook.ts';
import {
  planDigest,
  plannedWrites,
  programDigest,
  shownCall,
  type PlanRecord,
  type PlannedWrite,
} from './plan-record.ts';
import type { PlanStore } from './plan-store.ts';
import { openPlanToken, sealPlanToken } from './plan-token.ts';
import { PreviewRecorder } from './preview-run.ts';
import { planUndo, type CommitOutcome } from './undo.ts';
import { journaledUndo } from './undo-journal.ts';
import type { Journal } from '../journal/journal.ts';

/** How long a plan can be committed, in ms. @default 900000 (15 minutes) */
export const DEFAULT_PLAN_TTL_MS = 15 * 60_000;
/** Bytes of a preview's record (calls, arguments, answers) a plan may hold. @default 16777216 (16 MiB) */
export const DEFAULT_MAX_PLAN_BYTES = 16 * 1_048_576;

/** What `rt.preview` resolves with as `plan`, and what a previewing run_code result carries. */
export interface Plan {
  /** The plan's id: what an operator approves (`rt.decidePlan`) and an undo is resumed by (`rt.resumeUndo`). */
  readonly planId: string;
  /** Sealed, single use: give it to `rt.commit` (or run_code's `commit`). */
  readonly token: string;
  /** After this time (ms since the epoch) the token is refused (PLAN_EXPIRED). */
  readonly expiresAt: number;
  /** The writes the commit will make, in program order. */
  readonly writes: readonly PlannedWrite[];
  /** How many reads ran live in the preview. */
  readonly reads: number;
  /** The preview stopped at a pivot write (the last of `writes`): the commit ends after it. */
  readonly partial?: true;
  /** The plan waits for an operator's approval (`planApproval`): its commit is refused until then. */
  readonly awaitsApproval?: true;
}

/** A preview or commit asked by the application for one run_code call. */
export type PlanRequest =
  | { readonly kind: 'preview' }
  | { readonly kind: 'commit'; readonly token: string; readonly revalidate: boolean };

export interface PlansConfig {
  readonly store: PlanStore;
  /** Where a failed commit's undo is recorded, so a crash during it can be resumed. */
  readonly journal: Journal | undefined;
  /** PTC_PLAN_KEY, when set; else the store's key. */
  readonly envKey: string | undefined;
  readonly ttlMs: number;
  readonly maxPlanBytes: number;
  /** run_code takes `preview` and `commit` from the model. */
  readonly modelArguments: boolean;
  /** Every plan waits for an operator's approval before its commit. */
  readonly approval: boolean;
  readonly requests: Map<AbortSignal, PlanRequest>;
  lookup(name: string, agent: string | undefined): Tool | undefined;
  principalOf(exec: ToolExecution): string | undefined;
  /** The error a write's policy (pre-execute handlers, guards) would refuse it with; nothing runs. */
  refusalOf(request: NestedExecuteRequest): Promise<ToolErrorInfo | undefined>;
}

/** A run_code call that previews or commits. */
export interface PlanRun {
  readonly kind: 'preview' | 'commit';
  readonly hook: PlanHook;
  /** The finished program's plan (preview) or what the commit did; throws when a commit ends short of its plan. */
  finish(): Promise<{ plan: Plan } | { commit: CommitOutcome }>;
  /** The error to throw for a failed run (a commit's applied writes undone first). */
  fail(error: unknown): Promise<unknown>;
}

/** A commit that stopped: the run's code and text, with what was applied and undone. */
class CommitStopped extends PlanError {}

/** The plan request of this call, if it is one. */
function requestOf(config: PlansConfig, args: Record<string, unknown>, exec: ToolExecution): PlanRequest | undefined {
  const asked = config.requests.get(exec.callerSignal);
  if (asked !== undefined || !config.modelArguments) return asked;
  if (args.preview === true && args.commit !== undefined)
    throw new PlanError('INVALID_ARGS', 'run_code: give preview: true or commit: "<token>", not both');
  if (args.preview === true) return { kind: 'preview' };
  if (typeof args.commit === 'string') return { kind: 'commit', token: args.commit, revalidate: false };
  return undefined;
}

export async function openPlanRun(
  config: PlansConfig,
  args: Record<string, unknown>,
  exec: ToolExecution,
): Promise<PlanRun | undefined> {
  const request = requestOf(config, args, exec);
  if (request === undefined) return undefined;
  const description = String(args.description);
  const code = String(args.code);
  const lookup = (name: string): Tool | undefined => config.lookup(name, exec.agent);
  if (request.kind === 'preview') return previewRun(config, exec, description, code, lookup);
  const record = await takePlan(config, exec, request.token, description, code);
  if (request.revalidate) await revalidate(record, exec);
  const runner = new CommitRunner(record, exec.callId);
  // Undone once, whichever way the commit stops (a stop found at its end is also thrown
  // through fail()): a revert must never run twice for one write.
  let undoing: Promise<CommitOutcome> | undefined;
  const outcome = (): Promise<CommitOutcome> =>
    (undoing ??= (() => {
      // Sent but not settled when the commit stopped: they may still apply, and nothing undoes them.
      const unknown = runner.unsettled.map((w) => ({
        seq: w.seq,
        name: w.name,
        arguments: w.arguments,
        reason: 'its outcome is unknown: it was still running when the commit stopped (check it; it may have applied)',
      }));
      const who = { agent: record.agent, principal: record.principal };
      return journaledUndo(config.journal, record.planId, who, planUndo(runner.applied, unknown, lookup), lookup);
    })());
  return {
    kind: 'commit',
    hook: runner,
    async finish() {
      const missing = runner.missingWrite();
      if (missing === undefined)
        return {
          commit: {
            planId: record.planId,
            applied: runner.applied.map(({ result: _, ...w }) => w),
            undone: [],
            notUndone: [],
          },
        };
      const done = await outcome();
      throw new CommitStopped(
        PLAN_ERROR_CODES.PLAN_MISMATCH,
        `the program ended without making planned write #${missing.seq} ${shownCall(missing.name, missing.arguments)}.${undoText(done)}`,
        { commit: done as unknown as JsonValue },
      );
    },
    async fail(error) {
      if (error instanceof CommitStopped) return error;
      const done = await outcome();
      const failed = error as { code?: unknown; message?: unknown; info?: unknown };
      const info =
        typeof failed.info === 'object' && failed.info !== null ? (failed.info as Record<string, JsonValue>) : {};
      return new CommitStopped(
        typeof failed.code === 'string' ? failed.code : PLAN_ERROR_CODES.COMMIT_FAILED,
        `${typeof failed.message === 'string' ? failed.message : String(error)}${undoText(done)}`,
        { ...info, commit: done as unknown as JsonValue },
      );
    },
  };
}

function previewRun(
  config: PlansConfig,
  exec: ToolExecution,
  description: string,
  code: string,
  lookup: (name: string) => Tool | undefined,
): PlanRun {
  const planId = randomUUID();
  // A write is shown to its policy as the commit's nested call would be: same caller, same agent.
  const refusalOf = (seq: number, name: string, args: JsonValue) =>
    config.refusalOf({
      callId: `${exec.callId}:ptc:${seq}`,
      name,
      arguments: args,
      ...(exec.agent === undefined ? {} : { agent: exec.agent }),
      parent: exec.token,
      rootCallId: exec.rootCallId,
    });
  const recorder = new PreviewRecorder({ callId: exec.callId, agent: exec.agent, planId, lookup, refusalOf });
  return {
    kind: 'preview',
    hook: recorder,
    async finish() {
      const createdAt = Date.now();
      const record: PlanRecord = {
        planId,
        agent: exec.agent ?? null,
        principal: config.principalOf(exec) ?? null,
        description,
        code,
        seed: recorder.determinism.seed,
        clockStartMs: recorder.determinism.clockStartMs,
        calls: recorder.calls,
        partial: recorder.partial,
        createdAt,
        expiresAt: createdAt + config.ttlMs,
        ...(config.approval ? { approval: true as const } : {}),
      };
      const bytes = JSON.stringify(record).length;
      if (bytes > config.maxPlanBytes)
        throw new PlanError(
          PLAN_ERROR_CODES.PLAN_TOO_LARGE,
          `the preview's record (${bytes} bytes of calls, arguments and answers) is larger than maxPlanBytes (${config.maxPlanBytes}): no plan was made. Read less in the program, or raise the bound.`,
        );
      await config.store.save(record);
      const token = sealPlanToken(config.envKey ?? (await config.store.key()), {
        planId,
        agent: record.agent,
        principal: record.principal,
        program: programDigest(description, code),
        plan: planDigest(record),
        expiresAt: record.expiresAt,
      });
      const reads = record.calls.filter((c) => c.kind === 'read').length;
      const plan: Plan = {
        planId,
        token,
        expiresAt: record.expiresAt,
        writes: plannedWrites(record),
        reads,
        ...(record.partial ? { partial: true } : {}),
        ...(record.approval === true ? { awaitsApproval: true } : {}),
      };
      return { plan };
    },
    fail: async (error) => error,
  };
}

/** The plan a token names, taken for this commit: every check before anything runs. */
async function takePlan(
  config: PlansConfig,
  exec: ToolExecution,
  token: string,
  description: string,
  code: string,
): Promise<PlanRecord> {
  const payload = openPlanToken(config.envKey ?? (await config.store.key()), token);
  const invalid = (why: string) => new PlanError(PLAN_ERROR_CODES.PLAN_INVALID, `the plan token was refused: ${why}.`);
  if (payload.agent !== (exec.agent ?? null) || payload.principal !== (config.principalOf(exec) ?? null))
    throw invalid('it was not issued to this agent and principal');
  if (payload.expiresAt <= Date.now())
    throw new PlanError(
      PLAN_ERROR_CODES.PLAN_EXPIRED,
      `the plan expired at ${new Date(payload.expiresAt).toISOString()} (planTtlMs); preview the program again`,
    );
  if (programDigest(description, code) !== payload.program)
    throw new PlanError(
      PLAN_ERROR_CODES.PLAN_MISMATCH,
      'the program differs from the one previewed for this plan (its description or code changed): nothing ran. Commit the previewed program, or preview the new one.',
    );
  await checkApproval(config, payload.planId, payload.plan);
  const taken = await config.store.take(payload.planId);
  if (taken === 'used')
    throw new PlanError(
      PLAN_ERROR_CODES.PLAN_USED,
      `plan ${payload.planId} was already committed (a plan token is good for one commit); preview the program again`,
    );
  if (taken === undefined)
    throw invalid(
      `plan ${payload.planId} is not known here (it expired, or was previewed by a runtime that does not share this one's journal)`,
    );
  if (planDigest(taken) !== payload.plan)
    throw invalid('the stored plan does not match the one the token was issued for');
  return taken;
}

/**
 * A plan that waits for approval is committed only once an operator approved exactly it
 * (the approval names its digest); a rejected one never. Checked before the plan is taken:
 * a plan not decided yet stays committable once approved.
 */
async function checkApproval(config: PlansConfig, planId: string, digest: string): Promise<void> {
  const record = await config.store.load(planId);
  if (typeof record !== 'object' || record.approval !== true) return;
  const decided = await config.store.decision(planId);
  if (decided === undefined)
    throw new PlanError(
      PLAN_ERROR_CODES.PLAN_NOT_APPROVED,
      `plan ${planId} waits for an operator's approval: nothing ran. Commit it again once it is approved.`,
    );
  if (decided.decision === 'reject')
    throw new PlanError(
      PLAN_ERROR_CODES.PLAN_REJECTED,
      `plan ${planId} was rejected by an operator at ${new Date(decided.at).toISOString()}: nothing ran, and it can no longer be committed. Preview the program again.`,
    );
  if (decided.digest !== digest)
    throw new PlanError(
      PLAN_ERROR_CODES.PLAN_INVALID,
      `the approval of plan ${planId} is for another plan than this token's`,
    );
}

/** Runs every recorded read again (through the whole pipeline) and compares: PLAN_STALE at the first changed answer. */
async function revalidate(record: PlanRecord, exec: ToolExecution): Promise<void> {
  for (const call of record.calls) {
    if (call.kind !== 'read') continue;
    const now = outcomeOf(await exec.callTool(call.name, call.arguments));
    if (canonicalJson(now) === canonicalJson(call.outcome)) continue;
    const text = (v: unknown) => {
      const t = canonicalJson(v);
      return t.length > 200 ? `${t.slice(0, 200)}…` : t;
    };
    throw new PlanError(
      PLAN_ERROR_CODES.PLAN_STALE,
      `read #${call.seq} ${shownCall(call.name, call.arguments)} answers differently than in the preview (then ${text(call.outcome)}, now ${text(now)}): no write ran. Preview the program again.`,
      { seq: call.seq },
    );
  }
}

function undoText(done: CommitOutcome): string {
  if (done.applied.length === 0) return ' No write had been applied.';
  const list = (ws: readonly { seq: number; name: string }[]) => ws.map((w) => `#${w.seq} tools.${w.name}`).join(', ');
  let text = ` Applied: ${list(done.applied)}.`;
  if (done.undone.length > 0) text += ` Undone (last first): ${list(done.undone)}.`;
  if (done.notUndone.length > 0)
    text += ` NOT undone: ${done.notUndone.map((w) => `#${w.seq} tools.${w.name} (${w.reason})`).join(', ')}.`;
  return text;
}
