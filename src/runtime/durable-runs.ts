// `rt.runs()` and `rt.resume()`: the operator's side of durable runs. A resume claims the
// run (one process at a time, durably in the store), checks the decisions against the
// run's pending calls, binds each to the call's name and arguments as the journal's pause
// showed them, journals them (run/resumed, a record only) and runs the program again as
// the same run_code call: what completed before is answered from the journal, approved
// calls run (only if the program makes exactly the call that was shown), denied ones fail
// with DENIED in the program, and the in-flight call of an interrupted run runs again with
// the same idempotency key. Decisions live in this resume alone: a later resume, another
// run or a journal row never sees them.
import { randomUUID } from 'node:crypto';
import { RUN_RESUME_ERROR_CODES, RunResumeError } from '../errors/run-resume-error.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { ExecuteRequest } from '../pipeline/execute-request.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import { callDigest } from '../json/canonical-json.ts';
import type { BoundDecision, DurableRunsConfig } from '../ptc/durable-run.ts';
import { foldRuns, undecidedCalls, type DurableRunState } from '../journal/durable-run-state.ts';
import { isClaimLive, newClaim } from '../journal/run-claims.ts';
import { runCallTree, type RunCall } from './run-call-tree.ts';
import type { RunDecision } from '../journal/run-journal-events.ts';

/** `paused`: waits for decisions; `interrupted`: its host died mid-run (no live claim). */
export type DurableRunStatus = 'paused' | 'interrupted';

/** One entry of `rt.runs()`. */
export interface DurableRunSummary {
  readonly runId: string;
  readonly status: DurableRunStatus;
  /** The run_code call's own callId (the model's tool call that is still open). */
  readonly callId: string;
  readonly agent: string | undefined;
  /** Who the application said the run is for (`rt.execute({ principal })`), if it said. */
  readonly principal?: string;
  /** run_code's `description`. */
  readonly description: string;
  /** First start and latest event, in ms since the epoch. */
  readonly startedAt: number;
  readonly updatedAt: number;
  /** The calls awaiting a decision (paused), or those of the last pause not decided yet. */
  readonly pending: readonly {
    readonly callId: string;
    readonly name: string;
    readonly arguments: JsonValue;
    readonly title: string;
  }[];
  /** Paused runs: when they expire. */
  readonly expiresAt?: number;
  /** With `withCalls`: the calls its program made so far, newest first (see `rt.runCalls`). */
  readonly calls?: readonly RunCall[];
}

/**
 * Whose runs an operator may see and resume. A run outside the scope does not exist for
 * that caller: `runs` leaves it out and `resume` answers UNKNOWN_RUN, as for a run id
 * that was never started (no oracle).
 */
export interface RunsScope {
  /** Only runs of this agent (or of one of these); runs of the global scope are then left out. An empty list: none. */
  readonly agent?: string | readonly string[];
  /** Only runs started with this principal (`rt.execute({ principal })`). */
  readonly principal?: string;
}

export interface RunsFilter extends RunsScope {
  /** Only runs in this status (or these). Default: both. */
  readonly status?: DurableRunStatus | readonly DurableRunStatus[];
  /** Also give each run's calls so far (`calls`, as `rt.runCalls` has them), from the same read of the journal. */
  readonly withCalls?: boolean;
}

/** Where a run_code call's durable run is now (`rt.runOfCall`). */
export interface RunOfCall {
  readonly runId: string;
  /**
   * `running`: a process holds it; `paused`: it waits for decisions; `interrupted`: its
   * host died mid-run; the others: it ended so (`expired` also for a pause past its expiry).
   */
  readonly status: 'running' | 'paused' | 'interrupted' | 'completed' | 'failed' | 'expired' | 'cancelled';
  readonly agent: string | undefined;
  readonly principal?: string;
  /** Paused: the calls awaiting a decision. */
  readonly pending: DurableRunSummary['pending'];
  /** Paused: when it expires. */
  readonly expiresAt?: number;
  readonly startedAt: number;
  readonly updatedAt: number;
  /** The run_code call's latest result as the journal has it (the final one once the run ended). */
  readonly result?: ToolResult;
}

export interface DurableRunsApi {
  runs(filter?: RunsFilter): Promise<DurableRunSummary[]>;
  resume(runId: string, decisions?: Readonly<Record<string, RunDecision>>, scope?: RunsScope): Promise<ToolResult>;
  runCalls(runId: string, scope?: RunsScope): Promise<RunCall[]>;
  runOfCall(callId: string, scope?: RunsScope): Promise<RunOfCall | undefined>;
  cancel(runId: string, scope?: RunsScope): Promise<void>;
}

/** The durable-run methods of a runtime (`rt.runs`, `rt.resume`, …): they need a journal. */
export interface ToolRuntimeRuns {
  /**
   * Durable runs (a runtime with a journal): the run_code runs that are paused (waiting
   * for approval decisions) or interrupted (their host died mid-run), from the journal.
   */
  runs(filter?: RunsFilter): Promise<DurableRunSummary[]>;
  /**
   * Continues a paused or interrupted run — in any process with the same tools on the
   * same journal — and resolves with its next run_code result (final, or paused again).
   * `decisions` maps pending callIds to 'approve' or 'deny'. Calls that completed are
   * answered from the journal, approved ones run, denied ones fail with DENIED in the
   * program. Throws RunResumeError (unknown, expired, finished or busy run; a decision
   * for a call that is not pending).
   */
  resume(runId: string, decisions?: Readonly<Record<string, RunDecision>>, scope?: RunsScope): Promise<ToolResult>;
  /**
   * The calls a durable run's program made so far, from the journal: arguments and
   * committed results, nested calls under their caller, newest first (what an operator
   * reads before deciding). A run outside `scope` is UNKNOWN_RUN, like one that never existed.
   */
  runCalls(runId: string, scope?: RunsScope): Promise<RunCall[]>;
  /**
   * The durable run a run_code call (by its callId) started, if the journal has one in
   * `scope`: its status and the call's latest result (the final one once it ended).
   */
  runOfCall(callId: string, scope?: RunsScope): Promise<RunOfCall | undefined>;
  /**
   * Ends a paused or interrupted run as cancelled (journaled `run/end`, status
   * `cancelled`): nothing more of it runs. Throws RunResumeError: UNKNOWN_RUN, RUN_FINISHED,
   * or RUN_BUSY while a process runs it (cancel its call there instead).
   */
  cancelRun(runId: string, scope?: RunsScope): Promise<void>;
  /** How long a paused run stays resumable (`pausedRunTtlMs`); undefined without a journal. */
  readonly pausedRunTtlMs: number | undefined;
}

/** Checks a scope given from outside; a TypeError names what was wrong. */
function checkScope(where: string, scope: RunsScope): void {
  if (typeof scope !== 'object' || scope === null) throw new TypeError(`${where}: the scope must be an object`);
  const agents = scope.agent === undefined ? [] : ([] as unknown[]).concat(scope.agent);
  for (const a of agents)
    if (typeof a !== 'string' || a === '')
      throw new TypeError(`${where}: agent must be a non-empty string or a list of them, got ${JSON.stringify(a)}`);
  if (scope.principal !== undefined && (typeof scope.principal !== 'string' || scope.principal === ''))
    throw new TypeError(`${where}: principal must be a non-empty string, got ${JSON.stringify(scope.principal)}`);
}

/** Whether a run belongs to the scope. */
export function inRunsScope(run: DurableRunState, scope: RunsScope): boolean {
  if (scope.agent !== undefined) {
    const agents = ([] as string[]).concat(scope.agent);
    if (run.start.agent === null || !agents.includes(run.start.agent)) return false;
  }
  return scope.principal === undefined || run.start.principal === scope.principal;
}

const STATUSES: readonly DurableRunStatus[] = ['paused', 'interrupted'];

/**
 * The decisions checked against the run's undecided calls and bound to each call's place
 * in the run and to the name and canonical arguments the pause showed.
 */
function bindDecisions(
  run: DurableRunState,
  decisions: Readonly<Record<string, RunDecision>>,
): ReadonlyMap<number, BoundDecision> {
  const runId = run.start.runId;
  const pending = undecidedCalls(run);
  const prefix = `${run.start.callId}:ptc:`;
  const bound = new Map<number, BoundDecision>();
  for (const [callId, decision] of Object.entries(decisions)) {
    const shown = pending.find((p) => p.callId === callId);
    const seq = Number(callId.slice(prefix.length));
    if (shown === undefined || !callId.startsWith(prefix) || !Number.isSafeInteger(seq) || seq < 1)
      throw new RunResumeError(
        RUN_RESUME_ERROR_CODES.NOT_PENDING,
        `call ${JSON.stringify(callId)} is not pending in run ${runId}; pending: ${pending.map((p) => p.callId).join(', ') || 'none'}`,
      );
    bound.set(seq, {
      decision,
      name: shown.name,
      arguments: shown.arguments,
      digest: callDigest(shown.name, shown.arguments),
    });
  }
  return bound;
}

/** The refusal for a run with a row that failed its integrity check. */
/** `decisions` as a caller passed it: an object of 'approve' / 'deny' (anything else is refused, naming it). */
function checkDecisions(decisions: unknown): void {
  if (typeof decisions !== 'object' || decisions === null || Array.isArray(decisions))
    throw new RunResumeError(
      RUN_RESUME_ERROR_CODES.INVALID_DECISION,
      "resume: decisions must be an object mapping pending callIds to 'approve' or 'deny'",
    );
  for (const [callId, d] of Object.entries(decisions)) {
    if (d !== 'approve' && d !== 'deny')
      throw new RunResumeError(
        RUN_RESUME_ERROR_CODES.INVALID_DECISION,
        `resume: the decision for ${callId} must be 'approve' or 'deny', got ${JSON.stringify(d)}`,
      );
  }
}

/** A paused run past its pausedRunTtlMs ends as expired (journaled) and cannot be resumed. */
async function endIfExpired(journal: DurableRunsConfig['journal'], run: DurableRunState, now: number): Promise<void> {
  if (run.pause === undefined || run.pause.expiresAt > now) return;
  const runId = run.start.runId;
  await journal.append([
    { type: 'run/end', callId: run.start.callId, name: run.start.name, runId, status: 'expired', at: now },
  ]);
  throw new RunResumeError(
    RUN_RESUME_ERROR_CODES.RUN_EXPIRED,
    `run ${runId} paused at ${new Date(run.pause.at).toISOString()} and expired at ${new Date(run.pause.expiresAt).toISOString()} (pausedRunTtlMs); it can no longer be resumed`,
  );
}

function tampered(runId: string, why: string): RunResumeError {
  return new RunResumeError(
    RUN_RESUME_ERROR_CODES.RUN_TAMPERED,
    `run ${runId} cannot be resumed: ${why}. Nothing of it ran; the journal's other runs are not affected.`,
  );
}

/** The refusal for a resume on a runtime without some of the run's tools. */
function toolMissing(runId: string, missing: readonly string[]): RunResumeError {
  const names = missing
    .slice(0, 20)
    .map((n) => `"${n.slice(0, 100)}"`)
    .join(', ');
  return new RunResumeError(
    RUN_RESUME_ERROR_CODES.TOOL_MISSING,
    `run ${runId} uses tool${missing.length === 1 ? '' : 's'} ${names} that this runtime does not have; the run was left as it was ` +
      "(not resumed, not ended). Resume it on a runtime with the host's tools (ptc runs: --tools, --mcp or --mcp-url).",
    { missing: [...missing] },
  );
}

/** The warning for a run left out of a listing: its run/start row and why. */
function skippedRunWarning(run: DurableRunState, error: unknown): string {
  const why = error instanceof Error ? error.message : String(error);
  return (
    `journal event ${run.startRow} (run/start of run ${JSON.stringify(run.start.runId.slice(0, 100))}, call ` +
    `${JSON.stringify(run.start.callId.slice(0, 100))}): this run was skipped: ${why.slice(0, 300)}`
  );
}

/** The names among `names` that the runtime has no tool for, for the run's agent. */
export type MissingTools = (names: readonly string[], agent: string | undefined) => string[];

export function createDurableRunsApi(
  config: DurableRunsConfig | undefined,
  execute: (request: ExecuteRequest) => Promise<ToolResult>,
  missingTools: MissingTools,
  warn: (message: string) => void = (message) => process.emitWarning(message, 'JournalWarning'),
): DurableRunsApi {
  const resuming = new Set<string>();
  /** The program again, under the resume's claim, with its decisions (and a Python run's saved state). */
  const rerun = async (
    resumed: DurableRunsConfig,
    run: DurableRunState,
    owner: string,
    decisions: ReadonlyMap<number, BoundDecision>,
  ): Promise<ToolResult> => {
    // The resume's own signal identifies its run_code call: no other caller holds it.
    const ticket = new AbortController().signal;
    const saved = run.lastPause?.guestState;
    const guestState = saved === undefined ? {} : { guestState: { state: saved.python, seq: saved.seq } };
    resumed.resumes.set(ticket, { start: run.start, owner, calls: run.calls, decisions, ...guestState });
    try {
      return await execute({
        callId: run.start.callId,
        name: run.start.name,
        arguments: { description: run.start.description, code: run.start.code },
        ...(run.start.agent === null ? {} : { agent: run.start.agent }),
        signal: ticket,
      });
    } finally {
      resumed.resumes.delete(ticket);
    }
  };
  const noJournal = (): RunResumeError =>
    new RunResumeError(
      RUN_RESUME_ERROR_CODES.NO_JOURNAL,
      'runs are durable (listed, paused, resumed) only on a runtime with a journal: createToolRuntime({ journal: path or store })',
    );

  const statusOf = async (
    run: DurableRunState,
    now: number,
  ): Promise<DurableRunStatus | 'expired' | 'ended' | 'running'> => {
    if (run.end !== undefined) return 'ended';
    if (run.pause !== undefined && run.pause.expiresAt <= now) return 'expired';
    // A resume holds the claim from before it journals anything until the run pauses or ends.
    const claim = await config?.journal.claims?.runClaim(run.start.runId);
    if (claim !== undefined && isClaimLive(claim)) return 'running';
    return run.pause !== undefined ? 'paused' : 'interrupted';
  };

  const summaryOf = async (run: DurableRunState, now: number): Promise<DurableRunSummary | undefined> => {
    if (run.tampered !== undefined) throw new Error(run.tampered);
    const status = await statusOf(run, now);
    if (status !== 'paused' && status !== 'interrupted') return undefined;
    return {
      runId: run.start.runId,
      status,
      callId: run.start.callId,
      agent: run.start.agent ?? undefined,
      ...(run.start.principal === undefined ? {} : { principal: run.start.principal }),
      description: run.start.description,
      startedAt: run.start.at,
      updatedAt: run.updatedAt,
      pending: status === 'paused' ? (run.pause?.pending ?? []) : undecidedCalls(run),
      ...(status === 'paused' && run.pause !== undefined ? { expiresAt: run.pause.expiresAt } : {}),
    };
  };

  return {
    async runs(filter = {}) {
      if (config === undefined) throw noJournal();
      checkScope('runs', filter);
      const wanted = filter.status === undefined ? STATUSES : ([] as DurableRunStatus[]).concat(filter.status);
      for (const s of wanted)
        if (!STATUSES.includes(s))
          throw new TypeError(`runs: status must be 'paused' or 'interrupted', got ${JSON.stringify(s)}`);
      const { events } = await config.journal.read();
      const now = Date.now();
      const out: DurableRunSummary[] = [];
      for (const run of foldRuns(events).values()) {
        if (!inRunsScope(run, filter)) continue;
        // One malformed run (e.g. an id its store's claims refuse) is skipped, never the listing.
        let summary: DurableRunSummary | undefined;
        try {
          summary = await summaryOf(run, now);
        } catch (error) {
          warn(skippedRunWarning(run, error));
          continue;
        }
        if (summary !== undefined && wanted.includes(summary.status))
          out.push(filter.withCalls === true ? { ...summary, calls: runCallTree(events, run.start) } : summary);
      }
      return out;
    },

    async runCalls(runId, scope = {}) {
      if (config === undefined) throw noJournal();
      checkScope('runCalls', scope);
      const { events } = await config.journal.read();
      const run = foldRuns(events).get(runId);
      if (run === undefined || !inRunsScope(run, scope))
        throw new RunResumeError(RUN_RESUME_ERROR_CODES.UNKNOWN_RUN, `no run ${JSON.stringify(runId)} in the journal`);
      return runCallTree(events, run.start);
    },

    async runOfCall(callId, scope = {}) {
      if (config === undefined) throw noJournal();
      checkScope('runOfCall', scope);
      const { events } = await config.journal.read();
      let run: DurableRunState | undefined;
      for (const candidate of foldRuns(events).values()) if (candidate.start.callId === callId) run = candidate;
      if (run === undefined || !inRunsScope(run, scope) || run.tampered !== undefined) return undefined;
      // The call's own result rows (not its nested calls'): the last one is the latest answer.
      let result: ToolResult | undefined;
      for (const event of events)
        if (event.type === 'tool/result' && event.callId === callId && event.runId === undefined) result = event.result;
      const status = await statusOf(run, Date.now());
      const pending = status === 'paused' ? (run.pause?.pending ?? []) : [];
      return {
        runId: run.start.runId,
        status: status === 'ended' ? run.end!.status : status,
        agent: run.start.agent ?? undefined,
        ...(run.start.principal === undefined ? {} : { principal: run.start.principal }),
        pending,
        ...(status === 'paused' && run.pause !== undefined ? { expiresAt: run.pause.expiresAt } : {}),
        startedAt: run.start.at,
        updatedAt: run.updatedAt,
        ...(result === undefined ? {} : { result }),
      };
    },

    async cancel(runId, scope = {}) {
      if (config === undefined) throw noJournal();
      checkScope('cancelRun', scope);
      if (resuming.has(runId))
        throw new RunResumeError(RUN_RESUME_ERROR_CODES.RUN_BUSY, `run ${runId} is being resumed in this process`);
      const owner = randomUUID();
      const holder = await config.journal.claims?.claimRun(newClaim(runId, owner));
      if (holder !== undefined)
        throw new RunResumeError(
          RUN_RESUME_ERROR_CODES.RUN_BUSY,
          `run ${runId} is running in another process (pid ${holder.pid} on ${holder.host}); cancel it where it runs, or when it has paused`,
          { holder },
        );
      try {
        const run = foldRuns((await config.journal.read()).events).get(runId);
        if (run === undefined || !inRunsScope(run, scope))
          throw new RunResumeError(
            RUN_RESUME_ERROR_CODES.UNKNOWN_RUN,
            `no run ${JSON.stringify(runId)} in the journal`,
          );
        if (run.end !== undefined)
          throw new RunResumeError(
            RUN_RESUME_ERROR_CODES.RUN_FINISHED,
            `run ${runId} has already ended (${run.end.status}); there is nothing to cancel`,
          );
        await config.journal.append([
          {
            type: 'run/end',
            callId: run.start.callId,
            name: run.start.name,
            runId,
            status: 'cancelled',
            at: Date.now(),
          },
        ]);
      } finally {
        await config.journal.claims?.releaseRun(runId, owner).catch(() => {});
      }
    },

    async resume(runId, decisions = {}, scope = {}) {
      if (config === undefined) throw noJournal();
      checkScope('resume', scope);
      if (typeof runId !== 'string' || runId.length === 0)
        throw new TypeError('resume: runId must be a non-empty string');
      checkDecisions(decisions);
      if (resuming.has(runId))
        throw new RunResumeError(
          RUN_RESUME_ERROR_CODES.RUN_BUSY,
          `run ${runId} is already being resumed in this process`,
        );
      resuming.add(runId);
      const owner = randomUUID();
      let claimed = false;
      try {
        const before = foldRuns((await config.journal.read()).events).get(runId);
        if (before === undefined || !inRunsScope(before, scope))
          throw new RunResumeError(
            RUN_RESUME_ERROR_CODES.UNKNOWN_RUN,
            `no run ${JSON.stringify(runId)} in the journal`,
          );
        if (before.tampered !== undefined) throw tampered(runId, before.tampered);
        const holder = await config.journal.claims?.claimRun(newClaim(runId, owner));
        if (holder !== undefined)
          throw new RunResumeError(
            RUN_RESUME_ERROR_CODES.RUN_BUSY,
            `run ${runId} is being continued by another process (pid ${holder.pid} on ${holder.host}, since ${new Date(holder.at).toISOString()}); try again when it has paused or ended`,
            { holder },
          );
        claimed = true;
        // Read again under the claim: another resume may have finished in between.
        const run = foldRuns((await config.journal.read()).events).get(runId)!;
        if (run.tampered !== undefined) throw tampered(runId, run.tampered);
        const now = Date.now();
        if (run.end !== undefined)
          throw new RunResumeError(
            RUN_RESUME_ERROR_CODES.RUN_FINISHED,
            `run ${runId} has already ended (${run.end.status}); there is nothing to resume`,
          );
        await endIfExpired(config.journal, run, now);
        const bound = bindDecisions(run, decisions);
        // Without the host's tools the re-run would fail on the first call of a tool this
        // runtime lacks and end the run: refuse before anything is journaled.
        const used = [
          ...new Set([...[...run.calls.values()].map((c) => c.call.name), ...undecidedCalls(run).map((p) => p.name)]),
        ];
        const missing = missingTools(used, run.start.agent ?? undefined);
        if (missing.length > 0) throw toolMissing(runId, missing);
        await config.journal.append([
          {
            type: 'run/resumed',
            callId: run.start.callId,
            name: run.start.name,
            runId,
            decisions: { ...decisions },
            at: now,
          },
        ]);
        const result = await rerun(config, run, owner, bound);
        // The program called a tool this runtime lacks: the run was left as it was, not ended.
        const absent = result.error?.info?.['missingTool'];
        if (result.error?.info?.['kind'] === 'tool-missing' && typeof absent === 'string')
          throw toolMissing(runId, [absent]);
        return result;
      } finally {
        resuming.delete(runId);
        // The run releases its claim when it pauses or ends; this covers a resume that never reached it.
        if (claimed) await config.journal.claims?.releaseRun(runId, owner).catch(() => {});
      }
    },
  };
}
