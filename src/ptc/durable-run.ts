// One durable run_code run (a runtime with a journal): its identity and claim, the
// journal events around it (run/start before the program, run/paused or run/end before
// the result returns), and, for a resume, the answers the journal holds for the calls
// that completed before. The run's seed is its runId and its clock starts at its first
// start, so every attempt sees the same randomness and time. A resume's decisions are
// this run's alone: each is bound to the call's sequence in the run and to the name and
// canonical arguments the approver was shown, and is granted only to a call that matches.
import { randomUUID } from 'node:crypto';
import { callDigest } from '../json/canonical-json.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { GuestSuspension, HostCallOutcome, RunDeterminism } from '../../sandbox/types.ts';
import { ERROR_CODES } from '../errors/error-codes.ts';
import { type Fence, type FenceLostError, fenceLostReason } from '../pipeline/fence.ts';
import type { RunPauseGates } from '../pipeline/pause-gates.ts';
import type { ToolExecution } from '../pipeline/tool-execution.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import type { RecordedCall } from '../journal/durable-run-state.ts';
import type { Journal, JournalEvent } from '../journal/journal.ts';
import { awaitAppend, type JournalWait } from '../journal/journal-wait.ts';
import { newClaim } from '../journal/run-claims.ts';
import type { PendingApproval, RunDecision, RunStartEvent } from '../journal/run-journal-events.ts';
import type { RecordedSession } from '../sessions/runtime-sessions.ts';

/** How long a paused run can be resumed. @default 604800000 (7 days) */
export const DEFAULT_PAUSED_RUN_TTL_MS = 7 * 24 * 3_600_000;
/** Bytes of nested-call arguments and results a run may have recorded and still pause. @default 16777216 (16 MiB) */
export const DEFAULT_MAX_PAUSED_RUN_BYTES = 16 * 1_048_576;

/** A human's decision for one pending call, bound to what the approver was shown. */
export interface BoundDecision {
  readonly decision: RunDecision;
  readonly name: string;
  readonly arguments: JsonValue;
  /** callDigest(name, arguments). */
  readonly digest: string;
}

/** What a resume hands to the run_code call it starts (by the resume's own caller signal). */
export interface ResumeContext {
  readonly start: RunStartEvent;
  /** The resume's claim on the run (held; the run releases it). */
  readonly owner: string;
  readonly calls: ReadonlyMap<string, RecordedCall>;
  /** The decisions given to this resume, by the call's sequence in the run. */
  readonly decisions: ReadonlyMap<number, BoundDecision>;
  /** A Python run: the state its last pause left (the resume continues from it). */
  readonly guestState?: GuestSuspension;
}

export interface DurableRunsConfig {
  readonly journal: Journal;
  readonly gates: RunPauseGates;
  readonly pausedRunTtlMs: number;
  readonly maxPausedRunBytes: number;
  /**
   * Resumes waiting for their run_code call to start, by the signal the resume gave that
   * call: an object no other caller holds, so no other call (whatever its callId) takes one.
   */
  readonly resumes: Map<AbortSignal, ResumeContext>;
  /**
   * The principal of each top-level call in flight that named one (`rt.execute({ principal })`),
   * by the signal the runtime made for that call alone (not by callId, which other calls may share).
   */
  readonly principals: Map<AbortSignal, string>;
}

/** A journal answer for one call of a re-run. */
export type RecordedAnswer =
  | { readonly kind: 'answered'; readonly result: ToolResult; readonly at: number | undefined }
  | { readonly kind: 'diverged'; readonly message: string };

/** A call the program makes at a decided position whose name or arguments differ from what was approved. */
export interface ApprovalMismatch {
  readonly kind: 'approval-mismatch';
  readonly message: string;
}

export class DurableRun {
  readonly runId: string;
  readonly determinism: RunDeterminism;
  readonly #config: DurableRunsConfig;
  readonly #exec: ToolExecution;
  readonly #owner: string;
  readonly #calls: ReadonlyMap<string, RecordedCall>;
  readonly #removeGate: () => void;
  readonly #decisions: ReadonlyMap<number, BoundDecision>;
  /** Decisions whose call matched what was shown, by the nested callId: all the pipeline sees. */
  readonly #granted = new Map<string, RunDecision>();
  /** A resume's re-run (not the run's first attempt). */
  readonly resumed: boolean;
  /**
   * The fence of the run's claim, when the store fences claims (PostgreSQL): its token is
   * the nested calls' `exec.fencingToken`, and its loss stops the run here.
   */
  readonly fence: Fence | undefined;
  /** A resumed Python run: the state to continue from. */
  readonly guestState: GuestSuspension | undefined;
  /** Bytes of nested-call text recorded for this run (arguments and results). */
  recordedBytes = 0;
  #released = false;
  /** What bounds the run's waits for its own journal events (its signal and wall deadline). */
  #wait: JournalWait | undefined;

  private constructor(
    config: DurableRunsConfig,
    exec: ToolExecution,
    start: RunStartEvent,
    owner: string,
    calls: ReadonlyMap<string, RecordedCall>,
    decisions: ReadonlyMap<number, BoundDecision>,
    resumed: boolean,
    guestState?: GuestSuspension,
  ) {
    this.guestState = guestState;
    this.#config = config;
    this.#exec = exec;
    this.runId = start.runId;
    this.determinism = { seed: start.runId, clockStartMs: start.at };
    this.#owner = owner;
    this.#calls = calls;
    this.#decisions = decisions;
    this.resumed = resumed;
    this.fence = config.journal.claims?.fenceOf?.(this.runId, owner);
    this.#removeGate = config.gates.addRun(exec.token, (callId) => this.#granted.get(callId));
  }

  /** Starts a fresh run (claimed, run/start journaled), or takes over the resume waiting for this call. */
  static async open(
    config: DurableRunsConfig,
    exec: ToolExecution,
    description: string,
    code: string,
    session?: RecordedSession,
    wait?: JournalWait,
  ): Promise<DurableRun> {
    const resume = config.resumes.get(exec.callerSignal);
    if (resume !== undefined && resume.start.code === code && resume.start.description === description) {
      config.resumes.delete(exec.callerSignal);
      const run = new DurableRun(
        config,
        exec,
        resume.start,
        resume.owner,
        resume.calls,
        resume.decisions,
        true,
        resume.guestState,
      );
      run.#wait = wait;
      return run;
    }
    const runId = randomUUID();
    const owner = randomUUID();
    const principal = exec.parent === undefined ? config.principals.get(exec.callerSignal) : undefined;
    const start: RunStartEvent = {
      type: 'run/start',
      callId: exec.callId,
      name: exec.name,
      runId,
      agent: exec.agent ?? null,
      ...(principal === undefined ? {} : { principal }),
      description,
      code,
      at: Date.now(),
      ...(session === undefined ? {} : { session }),
    };
    await config.journal.claims?.claimRun(newClaim(runId, owner, start.at));
    try {
      await awaitAppend(config.journal, [start], wait);
    } catch (error) {
      await config.journal.claims?.releaseRun(runId, owner).catch(() => {});
      throw error;
    }
    const run = new DurableRun(config, exec, start, owner, new Map(), new Map(), false);
    run.#wait = wait;
    return run;
  }

  /**
   * `exec.idempotencyKey` of the run's n-th nested call: the same on every attempt. The
   * `run:` prefix keeps it apart from every other call's key (`call:<callId>`), whatever
   * callIds are used.
   */
  idempotencyKey(seq: number): string {
    return durableIdempotencyKey(this.runId, seq);
  }

  /**
   * Grants the decision a resume holds for the n-th call when the program calls what the
   * approver was shown (same name, same canonical arguments); a mismatch is returned and
   * nothing is granted (the call must not run).
   */
  bindDecision(seq: number, toolName: string, args: unknown): ApprovalMismatch | undefined {
    const bound = this.#decisions.get(seq);
    if (bound === undefined) return undefined;
    if (callDigest(toolName, args) !== bound.digest) {
      const shown = (name: string, value: unknown): string => {
        const text = JSON.stringify(value ?? null);
        return `tools.${name}(${text.length > 200 ? `${text.slice(0, 200)}…` : text})`;
      };
      return {
        kind: 'approval-mismatch',
        message:
          `The re-run of run ${this.runId} called ${shown(toolName, args)} at call #${seq}, but the decision ` +
          `(${bound.decision}) was given for ${shown(bound.name, bound.arguments)}, which is what the approver was shown. ` +
          'The call did not run and the run was stopped: an approval covers only the call that was shown.',
      };
    }
    this.#granted.set(`${this.#exec.callId}:ptc:${seq}`, bound.decision);
    return undefined;
  }

  /**
   * The journal's answer for the n-th call of a re-run: its recorded result when the
   * call completed before (a PAUSED result or a missing one is not an answer: the call
   * runs), or a divergence when the program asks for another call than the journal has.
   */
  answer(seq: number, toolName: string, argsJson: string): RecordedAnswer | undefined {
    const recorded = this.#calls.get(`${this.#exec.callId}:ptc:${seq}`);
    if (recorded === undefined) return undefined;
    let same = recorded.call.name === toolName;
    if (same) {
      try {
        same = JSON.stringify(JSON.parse(argsJson)) === JSON.stringify(recorded.call.arguments);
      } catch {
        same = false;
      }
    }
    if (!same) {
      const shown = (name: string, args: string): string =>
        `tools.${name}(${args.length > 200 ? `${args.slice(0, 200)}…` : args})`;
      return {
        kind: 'diverged',
        message:
          `The re-run of run ${this.runId} diverged from its earlier attempt at call #${seq}: the program called ` +
          `${shown(toolName, argsJson)} where the journal has ${shown(recorded.call.name, JSON.stringify(recorded.call.arguments))}. ` +
          'It was stopped so that no call runs twice (a program must make the same calls in the same order when re-run).',
      };
    }
    const result = recorded.result;
    if (result === undefined || result.result.error?.code === ERROR_CODES.PAUSED) return undefined;
    return { kind: 'answered', result: result.result, at: result.at };
  }

  /** Counts recorded text toward the pause bound. */
  count(chars: number): void {
    this.recordedBytes += chars;
  }

  /** Why the run cannot pause (its record is over the bound), or undefined. */
  pauseRefusal(pending: readonly PendingApproval[], guestState?: GuestSuspension | null): string | undefined {
    // null: a Python run whose state was not saved.
    if (guestState === null)
      return "this run cannot pause: the Python program's state could not be saved; the calls awaiting approval did not run";
    const stateBytes = guestState?.state.length ?? 0;
    const bytes = this.recordedBytes + stateBytes + pending.reduce((n, p) => n + JSON.stringify(p).length, 0);
    if (bytes <= this.#config.maxPausedRunBytes) return undefined;
    const what = stateBytes > 0 ? `, ${stateBytes} of them the Python program's state` : '';
    return (
      `this run cannot pause: its record (${bytes} bytes of nested-call arguments and results${what}) is larger than ` +
      `maxPausedRunBytes (${this.#config.maxPausedRunBytes}), so it could not be resumed. The calls awaiting approval did not run; ` +
      'make smaller calls before a gated one, or raise the bound.'
    );
  }

  /** Journals the pause (before the paused result returns) and gives the run up. Resolves with the expiry time. */
  async pause(pending: readonly PendingApproval[], guestState?: GuestSuspension): Promise<number> {
    const at = Date.now();
    const expiresAt = at + this.#config.pausedRunTtlMs;
    try {
      await this.#append({
        type: 'run/paused',
        callId: this.#exec.callId,
        name: this.#exec.name,
        runId: this.runId,
        pending,
        at,
        expiresAt,
        ...(guestState === undefined ? {} : { guestState: { python: guestState.state, seq: guestState.seq } }),
      });
    } finally {
      await this.release();
    }
    return expiresAt;
  }

  /** Journals the end of the run and gives it up. */
  async end(status: 'completed' | 'failed' | 'cancelled'): Promise<void> {
    try {
      await this.#append({
        type: 'run/end',
        callId: this.#exec.callId,
        name: this.#exec.name,
        runId: this.runId,
        status,
        at: Date.now(),
      });
    } finally {
      await this.release();
    }
  }

  /** One of the run's own events, awaited only as long as the run's wait allows. */
  #append(event: JournalEvent): Promise<void> {
    return awaitAppend(this.#config.journal, [event], this.#wait);
  }

  /** Why the run must stop here: its claim was lost while it ran (another process may resume it). */
  claimLost(): FenceLostError | undefined {
    return this.fence === undefined ? undefined : fenceLostReason(this.fence.signal);
  }

  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    this.#removeGate();
    await this.#config.journal.claims?.releaseRun(this.runId, this.#owner).catch(() => {});
  }
}

/** The outcome a program gets for a call answered from the journal. */
export function recordedOutcome(
  result: ToolResult,
  valueJson: string | undefined,
  at: number | undefined,
): HostCallOutcome {
  const time = at === undefined ? {} : { at };
  if (result.isError)
    return {
      ok: false,
      code: result.error?.code ?? ERROR_CODES.TOOL_ERROR,
      message: result.error?.message ?? 'tool call failed',
      ...time,
    };
  return { ok: true, valueJson: valueJson ?? 'null', ...time };
}

/** The idempotency key of a durable run's n-th nested call (`run:<runId>:<n>`). */
export function durableIdempotencyKey(runId: string, seq: number): string {
  return `run:${runId}:${seq}`;
}

export type { RunDecision };
