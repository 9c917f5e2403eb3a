// run_code: the one tool a model sees in ptc mode. Its body compiles and runs the
// model's program in the sandbox; every SDK call the program makes comes back here
// and becomes a nested registry execution through the whole pipeline, ordered by the
// same call sequencer that schedules a model turn.
import { refuseBeforeCompile } from '../../sandbox/refuse-before-compile.ts';
import { DEFAULT_LIMITS, MAX_ARGS_BYTES } from '../../sandbox/limits.ts';
import type {
  HostCall,
  HostCallOutcome,
  HostCallRequest,
  ProgramState,
  RunRequest,
  Sandbox,
  SandboxLimits,
  StateOutcome,
} from '../../sandbox/types.ts';
import { defineTool, type Tool } from '../definition/define-tool.ts';
import { ERROR_CODES } from '../errors/error-codes.ts';
import { ToolArgsError } from '../errors/tool-args-error.ts';
import { ToolRuntimeError } from '../errors/tool-runtime-error.ts';
import { freezeParsedJson, type JsonValue } from '../json/json-value.ts';
import type { OpenNestedCalls } from '../pipeline/nested-call-submitter.ts';
import { orderedFerry } from '../pipeline/ordered-ferry.ts';
import type { NestedExecuteRequest } from '../pipeline/execute-request.ts';
import type { ToolExecution } from '../pipeline/tool-execution.ts';
import { snapshotRequest } from '../pipeline/snapshot-request.ts';
import { markSelfBounded } from '../pipeline/unsettled-body.ts';
import { markJournalWallBound, runJournalWait, type JournalWait } from '../journal/journal-wait.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import { RUN_CODE } from '../registry/tool-registry.ts';
import type { JsonValueType } from '../definition/schema-node.ts';
import { failureHint, missingToolName } from './failure-hints.ts';
import { admissionTenant, AdmissionRefusal, type AdmissionTicket, type RunAdmission } from './run-admission.ts';
import { guestValueJson } from './guest-value-json.ts';
import { RETENTION_LIMIT, RetentionBudget } from './retention-budget.ts';
import type { RunEvents } from './run-events.ts';
import { liveEvents, thrownOutcome } from './live-run-events.ts';
import type { TypeCheckOptions, TypeCheckOutcome } from './program-type-checker.ts';
import { typeErrorLines } from './type-error-lines.ts';
import type { PythonGuest } from './python-guest.ts';
import { runFailureText, truncateVisible } from './run-code-output.ts';
import { DurableRun, type DurableRunsConfig } from './durable-run.ts';
import { PauseDetector } from './pause-detector.ts';
import type { PausedRun } from './paused-run-text.ts';
import { journaledAt } from '../scheduler/journal-gates.ts';
import { renderProgramValue, type ProgramValue } from './program-value.ts';
import type { PlanHook, PlanStop } from '../preview/plan-hook.ts';
import { openPlanRun, type PlanRun, type PlansConfig } from '../preview/plan-runs.ts';
import { planArgumentParameters } from '../preview/plan-text.ts';
import type { OpenSession, RunSessionValue, RuntimeSessions } from '../sessions/runtime-sessions.ts';
import { SESSION_PARAMETER } from '../sessions/session-parameter.ts';

export interface RunCodeDeps {
  /** The sandbox; throws PTC_NOT_CONFIGURED when there is none. */
  sandbox(): Sandbox;
  /** Names the program may call: the agent's visible tools. */
  toolNames(agent: string | undefined): string[];
  /** A fresh sequencer for one run, bound to the run's agent and signal (orders nested calls as a model turn is ordered). */
  readonly sequencer: OpenNestedCalls;
  readonly limits: Partial<SandboxLimits>;
  readonly maxVisibleChars: number;
  /** Where live log lines and nested call starts/ends go while a program runs. */
  readonly events?: RunEvents;
  /** What one run may hold on the host at once (RetentionBudget), in bytes of JSON text. */
  readonly maxRetainedBytes: number;
  /** Type feedback before the program runs; absent when `typecheck` is 'off'. */
  readonly typeCheck?: RunTypeCheck;
  /** Admission by CPU slots and memory (run-admission.ts); a run it refuses fails with kind `busy`. */
  readonly admission: RunAdmission;
  /** An optional hard cap on runs in flight (type check, queue, run); one more fails at once, kind `busy`. */
  readonly maxActiveRuns?: number;
  /** With a journal: runs are durable (they can pause, be resumed and recovered). */
  readonly durable?: DurableRunsConfig;
  /** With sessions: run_code takes `session`, programs see `state`, and what they leave there is saved. */
  readonly sessions?: RuntimeSessions;
  /** The agent's Python guest when its programs are Python (`guest: 'python'`); else undefined. */
  readonly python?: (agent: string | undefined) => PythonGuest | undefined;
  /** The principal a top-level run_code call was made for (`rt.execute({ principal })`): its session belongs to it too. */
  readonly principalOf?: (exec: ToolExecution) => string | undefined;
  /** Previews and commits (`rt.preview`, `rt.commit`, and with `planArguments` run_code's `preview` / `commit`). */
  readonly plans?: PlansConfig;
}

/** The runtime's `typecheck` setting bound to its checker and the agent's SDK. */
export interface RunTypeCheck {
  /** 'error': a program with type errors does not run; 'warn': it runs and the errors follow its output. */
  readonly mode: 'warn' | 'error';
  check(agent: string | undefined, code: string, options?: TypeCheckOptions): Promise<TypeCheckOutcome>;
}

export const RUN_CODE_DESCRIPTION =
  // `code`'s own description says it is the body of an async function: said once, not twice.
  'Run TypeScript: await `tools` calls and return the answer (or console.log it). Only that comes back.';

/** A failed run: code CODE_RUN_FAILED, `info.kind` says how, the text carries the captured output. */
class CodeRunError extends ToolRuntimeError {
  readonly info: { readonly [key: string]: JsonValue };
  constructor(
    message: string,
    info: { readonly [key: string]: JsonValue },
    code: string = ERROR_CODES.CODE_RUN_FAILED,
  ) {
    super(code, message);
    this.info = info;
  }
}

export function createRunCodeTool(deps: RunCodeDeps): Tool {
  let active = 0;
  const tool = defineTool({
    name: RUN_CODE,
    description: RUN_CODE_DESCRIPTION,
    parameters: {
      description: {
        type: 'string',
        required: true,
        minLength: 1,
        description: 'A short label for the UI, e.g. "Sum late orders per region".',
      },
      code: { type: 'string', required: true, description: 'The body of an async function.' },
      ...(deps.sessions === undefined ? {} : { session: SESSION_PARAMETER }),
      ...(deps.plans?.modelArguments === true ? planArgumentParameters : {}),
    },
    output: {
      schema: {
        type: 'object',
        properties: {
          logs: { type: 'array', items: { type: 'string' }, required: true },
          result: { type: 'json' },
          typeErrors: { type: 'array', items: { type: 'string' } },
          paused: { type: 'json' },
          session: { type: 'json' },
          plan: { type: 'json' },
          commit: { type: 'json' },
        },
        additionalProperties: false,
      },
      render: (_args, value) => [
        { type: 'text', text: renderProgramValue(value as ProgramValue, deps.maxVisibleChars) },
      ],
    },
    execute: async (args, exec) => {
      // Runs wait for a free isolate without limit otherwise: a flood of CPU-bound programs
      // would leave every later request queued behind them.
      if (deps.maxActiveRuns !== undefined && active >= deps.maxActiveRuns) {
        const message =
          `${active} runs are already in flight on this runtime (maxActiveRuns: ${deps.maxActiveRuns}); ` +
          'this program did not run. Retry it once one of them has finished.';
        throw new CodeRunError(truncateVisible(runFailureText('busy', message, []), deps.maxVisibleChars), {
          kind: 'busy',
          maxActiveRuns: deps.maxActiveRuns,
          logs: [],
        });
      }
      active += 1;
      const journalWait = runJournalWait(exec.signal, deps.limits.wallTimeMs ?? DEFAULT_LIMITS.wallTimeMs);
      let session: OpenSession | undefined;
      try {
        session = await openSession(deps, typeof args.session === 'string' ? args.session : undefined, exec);
        const plan = deps.plans === undefined ? undefined : await openPlanRun(deps.plans, args, exec);
        const ticket = await admit(deps, exec);
        try {
          return await runProgram(deps, args.description, args.code, exec, ticket, session, journalWait, plan);
        } finally {
          ticket.release();
        }
      } finally {
        active -= 1;
        await session?.release();
      }
    },
  });
  markSelfBounded(tool);
  // The run's journal waits (its write-ahead record, run/start, run/end, its result) end at its wall deadline.
  markJournalWallBound(tool, deps.limits.wallTimeMs ?? DEFAULT_LIMITS.wallTimeMs);
  return tool;
}

/** The session the program runs on: the one a resumed run started with, the named one, or a new one. */
async function openSession(
  deps: RunCodeDeps,
  id: string | undefined,
  exec: ToolExecution,
): Promise<OpenSession | undefined> {
  if (deps.sessions === undefined) return undefined;
  // Held for the program's whole run, its wait for admission and its type check included.
  const holdMs = (deps.limits.wallTimeMs ?? DEFAULT_LIMITS.wallTimeMs) + 60_000;
  const recorded = deps.durable?.resumes.get(exec.callerSignal)?.start.session;
  const owner = { agent: exec.agent ?? null, principal: deps.principalOf?.(exec) ?? null };
  if (recorded !== undefined) return deps.sessions.reopen(recorded, owner, holdMs);
  return deps.sessions.open(id, owner, holdMs);
}

/** Waits for admission; a refusal becomes the run's failure (kind `busy`, with the reason and when to retry). */
async function admit(deps: RunCodeDeps, exec: ToolExecution): Promise<AdmissionTicket> {
  const heapBytes = (deps.limits.memoryMb ?? DEFAULT_LIMITS.memoryMb) * 1_048_576;
  try {
    return await deps.admission.admit(heapBytes, exec.signal, admissionTenant(deps.principalOf?.(exec), exec.agent));
  } catch (error) {
    if (!(error instanceof AdmissionRefusal)) throw error;
    const message = `the runtime did not admit this run (${error.budget}): ${error.message}`;
    throw new CodeRunError(truncateVisible(runFailureText('busy', message, []), deps.maxVisibleChars), {
      kind: 'busy',
      reason: error.reason,
      retryAfterMs: error.retryAfterMs,
      logs: [],
    });
  }
}

/**
 * The program checked against the SDK (when the runtime type-checks): the type errors to
 * report beside its result, or a compile failure when typecheck is 'error'.
 */
async function typeCheckProgram(deps: RunCodeDeps, code: string, exec: ToolExecution): Promise<string[] | undefined> {
  // A program over the size limit is refused by the compiler without being read: TypeScript must not read it first.
  // A program the compiler refuses before compiling (size, a long regex literal, deep nesting) is not type-checked either.
  if (deps.typeCheck === undefined || refuseBeforeCompile(code) !== undefined) return undefined;
  const checked = await deps.typeCheck.check(exec.agent, code, {
    signal: exec.signal,
    timeoutMs: deps.limits.wallTimeMs ?? DEFAULT_LIMITS.wallTimeMs,
  });
  const lines = typeErrorLines(checked);
  if (checked.ok && checked.diagnostics.length > 0 && deps.typeCheck.mode === 'error') {
    const first = checked.diagnostics[0]!;
    const message = `the program does not type-check against the SDK (typecheck: 'error'); it did not run:\n${lines.join('\n')}`;
    throw new CodeRunError(truncateVisible(runFailureText('compile', message, []), deps.maxVisibleChars), {
      kind: 'compile',
      line: first.line,
      column: first.column,
      diagnostics: lines,
      logs: [],
    });
  }
  return !checked.ok || checked.diagnostics.length > 0 ? lines : undefined;
}

async function runProgram(
  deps: RunCodeDeps,
  description: string,
  code: string,
  exec: ToolExecution,
  ticket: AdmissionTicket,
  session: OpenSession | undefined,
  journalWait: JournalWait,
  plan: PlanRun | undefined,
): Promise<ProgramValue> {
  if (description.trim() === '') {
    throw new ToolArgsError(RUN_CODE, [
      { path: '/description', message: 'must not be blank: give a short label such as "Count open orders"' },
    ]);
  }
  const typeErrors = await typeCheckProgram(deps, code, exec);
  const sandbox = deps.sandbox();
  const state =
    session === undefined ? undefined : { saved: session.recorded.state, maxBytes: deps.sessions!.maxBytes };
  if (plan !== undefined) {
    // A plan's runs are not durable runs: the plan is their record, and a resume must not run a commit's writes unchecked.
    try {
      const value = await runSandboxed(deps, sandbox, code, exec, typeErrors, undefined, ticket, state, plan.hook);
      const planned = await plan.finish();
      // A preview changes nothing: not even its session's state.
      return {
        ...(await saveState(value, plan.kind === 'preview' ? undefined : session)),
        ...planned,
      } as unknown as ProgramValue;
    } catch (error) {
      throw await plan.fail(error);
    }
  }
  if (deps.durable === undefined) {
    const value = await runSandboxed(deps, sandbox, code, exec, typeErrors, undefined, ticket, state);
    return saveState(value, session);
  }
  const durable = await DurableRun.open(deps.durable, exec, description, code, session?.recorded, journalWait);
  let value: ProgramValue;
  try {
    value = await saveState(await runSandboxed(deps, sandbox, code, exec, typeErrors, durable, ticket, state), session);
  } catch (error) {
    if (durable.claimLost() !== undefined) throw await stoppedByLostClaim(deps, durable);
    // A resume on a runtime without one of the run's tools must not end the run: it stays
    // resumable where the host's tools are.
    const missing = durable.resumed ? missingToolOf(error) : undefined;
    if (missing !== undefined) {
      await durable.release();
      const message = `the re-run of run ${durable.runId} called tools.${missing}, which this runtime does not have; the run was not ended: resume it on a runtime with the host's tools`;
      throw new CodeRunError(truncateVisible(runFailureText('tool-missing', message, []), deps.maxVisibleChars), {
        kind: 'tool-missing',
        missingTool: missing,
        logs: [],
      });
    }
    // A run its caller cancelled says so in the journal (an MCP task's cancel, an aborted request).
    await durable.end(exec.callerSignal.aborted ? 'cancelled' : 'failed');
    throw error;
  }
  if (durable.claimLost() !== undefined) throw await stoppedByLostClaim(deps, durable);
  if (value.paused === undefined) await durable.end('completed');
  return value;
}

/**
 * A run whose claim was lost stops here and is not ended: its rows are refused from then
 * on, and the process that claims it next resumes it (the call in flight runs again there,
 * with the same idempotency key).
 */
async function stoppedByLostClaim(deps: RunCodeDeps, durable: DurableRun): Promise<CodeRunError> {
  const lost = durable.claimLost()!;
  await durable.release();
  const message = `${lost.message}. The run was stopped here and not ended: another process may resume it`;
  return new CodeRunError(truncateVisible(runFailureText('abort', message, []), deps.maxVisibleChars), {
    kind: 'abort',
    fenceLost: lost.held,
    fencingToken: lost.token,
    logs: [],
  });
}

/** A finished program's state goes into its session (a paused one saves when its resume finishes). */
async function saveState(
  value: ProgramValue & { state?: StateOutcome },
  session: OpenSession | undefined,
): Promise<ProgramValue> {
  const { state, ...rest } = value;
  if (session === undefined || rest.paused !== undefined) return rest;
  rest.session = (await session.save(state)) as RunSessionValue & JsonValueType;
  return rest;
}

/** The tool a failed run's exception says the program lacks. */
function missingToolOf(error: unknown): string | undefined {
  if (!(error instanceof CodeRunError) || error.info.kind !== 'exception') return undefined;
  return missingToolName(error.message);
}

// Long: one run's shared state (retention budget, ferry, sequencer, stop and divergence,
// pause detector) is closed over by the call handlers declared inside it, each short.
async function runSandboxed(
  deps: RunCodeDeps,
  sandbox: Sandbox,
  code: string,
  exec: ToolExecution,
  typeErrors: string[] | undefined,
  durable: DurableRun | undefined,
  ticket: AdmissionTicket,
  state: ProgramState | undefined,
  plan?: PlanHook,
): Promise<ProgramValue & { state?: StateOutcome }> {
  // A run whose claim is fenced stops when the claim is lost (its nested calls abort too).
  const signal = durable?.fence === undefined ? exec.signal : AbortSignal.any([exec.signal, durable.fence.signal]);
  // The sequencer links nested calls to the run's signal with listeners it removes on close.
  // Its calls are numbered here (`<run>:ptc:<n>`): each callId is new.
  const sequencer = deps.sequencer({ agent: exec.agent, signal, callIdsUnique: true });
  const budget = new RetentionBudget(deps.maxRetainedBytes);
  // Ferried contexts stay until the run ends; past the budget the run stops (output-limit).
  const overBudget = new AbortController();
  let overBudgetMessage: string | undefined;
  const ferry = orderedFerry(exec, (bytes, toolName) => {
    if (budget.tryHold(bytes)) return true;
    overBudgetMessage ??=
      `The contexts handed up by nested calls (the last one by tools.${toolName}: ${bytes} bytes as JSON) exceed what one run may hold ` +
      `(maxRetainedBytes: ${budget.limit} bytes).`;
    overBudget.abort(new Error(overBudgetMessage));
    return false;
  });
  const live = liveEvents(deps.events, { runCallId: exec.callId, rootCallId: exec.rootCallId, agent: exec.agent });
  // A durable run pauses once nothing but calls awaiting approval is left; a re-run that
  // asks for other calls than the journal has is stopped.
  const stop = new AbortController();
  let divergence:
    | { readonly kind: 'diverged' | 'approval-mismatch'; readonly message: string; readonly code?: string }
    | PlanStop
    | undefined;
  /** A plan's hook stops the program at a call (before it runs) or after it settles. */
  const planStop = (seq: number | undefined, stopAt: PlanStop): void => {
    if (seq !== undefined) ferry.skip(seq);
    divergence ??= stopAt;
    stop.abort(new Error(stopAt.kind));
  };
  const detector = durable === undefined ? undefined : new PauseDetector(() => stop.abort(new Error('paused')));
  let submitted = 0;
  // While a nested call is out the run awaits tools and needs no CPU slot (admission).
  let callsOut = 0;
  // One async frame per call: the refusals before dispatch and the outcome after it are synchronous.
  const hostCall: HostCall = async (request): Promise<HostCallOutcome> => {
    const seq = ++submitted;
    if (callsOut++ === 0) ticket.waiting();
    const callId = `${exec.callId}:ptc:${seq}`;
    detector?.enter();
    live.callStart(callId, seq, request.toolName);
    const argBytes = request.argsJson.length;
    let outcome = holdArguments(request, seq, argBytes);
    if (outcome !== undefined) refusedInPlan(seq, request.toolName, outcome);
    if (outcome === undefined) {
      try {
        const started = dispatchNested(request, seq, callId);
        if ('args' in started) {
          let result: ToolResult | undefined;
          let refused: NestedOutcome | undefined;
          try {
            result = await started.result;
          } catch (error) {
            refused = submitFailed(request, seq, callId, error);
          }
          const settled =
            refused === undefined
              ? plan?.settled(seq, request.toolName, started.args as JsonValue, result!)
              : undefined;
          outcome =
            refused ??
            nestedOutcome(
              request,
              seq,
              callId,
              started.args,
              result!,
              settled?.at ?? (started.recorded ? started.at : journaledAt(result!)),
            );
          if (settled?.stop !== undefined) planStop(undefined, settled.stop);
        } else {
          outcome = started;
        }
      } finally {
        budget.release(argBytes);
        if (--callsOut === 0) ticket.active();
      }
    } else if (--callsOut === 0) {
      ticket.active();
    }
    if (outcome.held !== undefined) return outcome.held;
    detector?.leave();
    live.callEnd(callId, seq, request.toolName, outcome);
    return outcome.outcome;
  };
  /** A call refused before its plan saw it: a commit whose plan holds a call at its place stops. */
  const refusedInPlan = (seq: number, name: string, refused: NestedOutcome): void => {
    const code = refused.outcome.ok ? 'REFUSED' : refused.outcome.code;
    const stopAt = plan?.refused?.(seq, name, code);
    // Its place in the ferry was given up with the refusal.
    if (stopAt !== undefined) planStop(undefined, stopAt);
  };
  /** Holds the call's argument bytes until it commits, or refuses it (nothing held). */
  const holdArguments = (request: HostCallRequest, seq: number, argBytes: number): NestedOutcome | undefined => {
    const name = request.toolName;
    // Bounded before anything parses or validates them (the guest checks the same limit).
    if (argBytes > MAX_ARGS_BYTES) {
      ferry.skip(seq);
      return {
        outcome: {
          ok: false,
          code: 'ARGS_TOO_LARGE',
          message: `tools.${name} arguments are larger than ${MAX_ARGS_BYTES} bytes as JSON: not dispatched`,
        },
      };
    }
    if (!budget.tryHold(argBytes)) {
      ferry.skip(seq);
      const message =
        `tools.${name} was not dispatched: its arguments (${argBytes} bytes as JSON) would take the data this run holds past ` +
        `${budget.limit} bytes (maxRetainedBytes; ${budget.used} held by calls in flight and ferried contexts). Await earlier calls or send less.`;
      return { outcome: { ok: false, code: RETENTION_LIMIT, message } };
    }
    return undefined;
  };
  /** Parses and submits the call: a refusal, or its arguments and its result (recorded) or the promise of it. */
  const dispatchNested = (request: HostCallRequest, seq: number, callId: string): NestedOutcome | NestedStart => {
    let args: unknown;
    try {
      args = JSON.parse(request.argsJson);
    } catch {
      ferry.skip(seq);
      const refused: NestedOutcome = {
        outcome: { ok: false, code: ERROR_CODES.INVALID_ARGS, message: 'tool arguments were not JSON' },
      };
      refusedInPlan(seq, request.toolName, refused);
      return refused;
    }
    const routed = plan?.route(seq, request.toolName, args as JsonValue, request.signal);
    if (routed?.kind === 'stop') {
      planStop(seq, routed.stop);
      return { outcome: { ok: false, code: routed.stop.code, message: routed.stop.message } };
    }
    if (routed?.kind === 'answer') return { args, result: routed.result, recorded: true, at: undefined };
    // A re-run of a durable run: what completed before is answered from the journal.
    const recorded = durable?.answer(seq, request.toolName, request.argsJson);
    if (recorded?.kind === 'diverged') {
      ferry.skip(seq);
      divergence ??= recorded;
      stop.abort(new Error('diverged'));
      return { outcome: { ok: false, code: 'RUN_DIVERGED', message: recorded.message } };
    }
    if (recorded !== undefined) return { args, result: recorded.result, recorded: true, at: recorded.at };
    // A decision of the resume reaches the pipeline only for the very call the approver was shown.
    const mismatch = durable?.bindDecision(seq, request.toolName, args);
    if (mismatch !== undefined) {
      ferry.skip(seq);
      divergence ??= mismatch;
      stop.abort(new Error('approval-mismatch'));
      return { outcome: { ok: false, code: 'APPROVAL_MISMATCH', message: mismatch.message } };
    }
    // Built without spreading a temporary object per optional field, in the key order the
    // sequencer's own requests have: a frozen one it can then take as it is.
    const nested: { -readonly [K in keyof NestedExecuteRequest]: NestedExecuteRequest[K] } = {
      callId,
      name: request.toolName,
      arguments: args,
      signal: request.signal, // the sequencer adds the run's signal
    };
    if (exec.agent !== undefined) nested.agent = exec.agent;
    nested.parent = exec.token;
    nested.rootCallId = exec.rootCallId;
    if (durable !== undefined) {
      nested.idempotencyKey = durable.idempotencyKey(seq);
      nested.runId = durable.runId;
      if (durable.fence !== undefined) nested.fencingToken = durable.fence.token;
    }
    if (routed?.idempotencyKey !== undefined) nested.idempotencyKey = routed.idempotencyKey;
    // Nobody else holds the parsed value: frozen in place, it is the call's snapshot (no
    // copy in the sequencer). What a snapshot refuses goes the general way and fails there.
    const frozen = freezeParsedJson(args) !== undefined;
    return {
      args,
      result: sequencer.submit(frozen ? snapshotRequest(nested) : nested),
      recorded: false,
      at: undefined,
    };
  };
  /** The sequencer refused the call (it rejected instead of giving a result). */
  const submitFailed = (request: HostCallRequest, seq: number, callId: string, error: unknown): NestedOutcome => {
    ferry.skip(seq);
    // NOT_DISPATCHED (a call after the program ended) reaches the program with its own code.
    if (error instanceof ToolRuntimeError) return { outcome: { ok: false, code: error.code, message: error.message } };
    // The sandbox turns the rejection into a ToolCallError; the end event still reports it.
    live.callEnd(callId, seq, request.toolName, { outcome: thrownOutcome(error) });
    throw error;
  };
  /** What the program gets for a call's final result. */
  const nestedOutcome = (
    request: HostCallRequest,
    seq: number,
    callId: string,
    args: unknown,
    result: ToolResult,
    at: number | undefined,
  ): NestedOutcome => {
    ferry.commit(seq, result);
    const time = at === undefined ? {} : { at };
    if (result.isError) {
      if (result.error?.code === ERROR_CODES.PAUSED && detector !== undefined) {
        const title = result.error.info?.['title'];
        return {
          outcome: { ok: false, code: ERROR_CODES.PAUSED, message: result.error.message },
          held: detector.hold({
            callId,
            name: request.toolName,
            arguments: (args ?? null) as JsonValue,
            title: typeof title === 'string' ? title : `Allow tool "${request.toolName}" to run?`,
          }),
        };
      }
      durable?.count(request.argsJson.length + (result.error?.message.length ?? 0));
      return {
        outcome: {
          ok: false,
          code: result.error?.code ?? ERROR_CODES.TOOL_ERROR,
          message: result.error?.message ?? 'tool call failed',
          ...time,
        },
        result,
      };
    }
    // The program receives the canonical value, never the content.
    const valueJson = guestValueJson(result.value ?? null);
    durable?.count(request.argsJson.length + valueJson.length);
    if (valueJson.length > budget.limit - budget.used) {
      const message =
        `tools.${request.toolName} succeeded, but its result (${valueJson.length} bytes as JSON) is more than this run may still hold ` +
        `(maxRetainedBytes: ${budget.limit} bytes, ${budget.used} in use): it was not handed to the program. Ask the tool for less.`;
      return { outcome: { ok: false, code: RETENTION_LIMIT, message, ...time }, result };
    }
    return { outcome: { ok: true, valueJson, ...time }, result };
  };
  const toolNames = deps.toolNames(exec.agent);
  const python = deps.python?.(exec.agent);
  let outcome;
  try {
    const request: RunRequest = {
      code,
      toolNames,
      hostCall,
      limits: deps.limits,
      signal: AbortSignal.any([signal, overBudget.signal, stop.signal]),
      ...(live.onLog === undefined ? {} : { onLog: live.onLog }),
      ...(durable === undefined ? {} : { determinism: durable.determinism }),
      ...(plan === undefined ? {} : { determinism: plan.determinism }),
      ...(state === undefined ? {} : { state }),
    };
    // A paused Python run continues from its saved state, at its pending call: nothing before it runs again.
    const resumeFrom = python === undefined ? undefined : durable?.guestState;
    if (resumeFrom !== undefined) submitted = resumeFrom.seq - 1;
    outcome = await (python === undefined ? sandbox.run(request) : python.run(exec.agent, request, resumeFrom));
  } finally {
    detector?.dispose();
    // The run is over: nothing it started may still commit after run_code returns.
    await sequencer.close().catch(() => {});
  }
  // A pivot ends the program where its plan ends: not a failure.
  if (divergence?.kind === 'pivot' && !signal.aborted) return { logs: [...outcome.logs] };
  if (divergence !== undefined && !signal.aborted) {
    const logs = [...outcome.logs];
    throw new CodeRunError(
      truncateVisible(runFailureText(divergence.kind, divergence.message, logs), deps.maxVisibleChars),
      { kind: divergence.kind, logs },
      divergence.code,
    );
  }
  if (
    detector?.paused === true &&
    durable !== undefined &&
    !outcome.ok &&
    !signal.aborted &&
    overBudgetMessage === undefined
  ) {
    const logs = [...outcome.logs];
    const pending = detector.pending;
    const suspended = python === undefined || outcome.ok ? undefined : (outcome.suspended ?? null);
    const refusal = durable.pauseRefusal(pending, suspended);
    if (refusal !== undefined) {
      throw new CodeRunError(truncateVisible(runFailureText('pause-limit', refusal, logs), deps.maxVisibleChars), {
        kind: 'pause-limit',
        logs,
      });
    }
    const expiresAt = await durable.pause(pending, suspended ?? undefined);
    const paused: PausedRun = {
      runId: durable.runId,
      pending: pending.map((p) => ({ callId: p.callId, name: p.name, arguments: p.arguments, title: p.title })),
      expiresAt,
      ...(deps.durable?.journal.durable === false ? { survivesRestart: false } : {}),
    };
    return { logs, paused: paused as PausedRun & JsonValueType };
  }
  if (overBudgetMessage !== undefined && !signal.aborted) {
    const logs = [...outcome.logs];
    throw new CodeRunError(
      truncateVisible(runFailureText('output-limit', overBudgetMessage, logs), deps.maxVisibleChars),
      { kind: 'output-limit', logs },
    );
  }
  if (!outcome.ok) {
    const logs = [...outcome.logs];
    const info: { [key: string]: JsonValue } = { kind: outcome.kind, logs };
    if (outcome.location !== undefined) {
      info.line = outcome.location.line;
      info.column = outcome.location.column;
    }
    // The hints speak of TypeScript programs.
    const hint = python === undefined ? failureHint(outcome.kind, outcome.message, code, toolNames) : undefined;
    let message = hint === undefined ? outcome.message : `${outcome.message}\n${hint}`;
    if (typeErrors !== undefined) {
      message += `\nType errors:\n${typeErrors.join('\n')}`;
      info.typeErrors = typeErrors;
    }
    const text = truncateVisible(runFailureText(outcome.kind, message, logs), deps.maxVisibleChars);
    throw new CodeRunError(text, info);
  }
  const value: ProgramValue & { state?: StateOutcome } =
    outcome.result === undefined ? { logs: [...outcome.logs] } : { logs: [...outcome.logs], result: outcome.result };
  if (typeErrors !== undefined) value.typeErrors = typeErrors;
  if (outcome.state !== undefined) value.state = outcome.state;
  return value;
}

/** A call that went to the sequencer (or was answered from the journal of a re-run). */
interface NestedStart {
  readonly args: unknown;
  readonly result: ToolResult | Promise<ToolResult>;
  /** Answered from the journal of a re-run, made at `at`. */
  readonly recorded: boolean;
  readonly at: number | undefined;
}

interface NestedOutcome {
  readonly outcome: HostCallOutcome;
  readonly result?: ToolResult;
  /** A call awaiting approval: the program's answer comes only if the run does not pause. */
  readonly held?: Promise<HostCallOutcome>;
}
