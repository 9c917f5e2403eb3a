// The public face: one runtime object composing the registry, the hooks, the
// execution pipeline, the turn scheduler and the PTC layer (modes, run_code, SDK).
import { DEFAULT_LIMITS, resolveLimits } from '../../sandbox/limits.ts';
import { checkSandboxOptions } from '../../sandbox/sandbox-options.ts';
import type { Sandbox, SandboxLimits, SandboxOptions } from '../../sandbox/types.ts';
import { generateSdk } from '../../sdk-gen/generate-sdk.ts';
import type { ToolSchema } from '../../sdk-gen/tool-schema.ts';
import type { Tool } from '../definition/define-tool.ts';
import { ToolRuntimeError } from '../errors/tool-runtime-error.ts';
import { checkMaxCallDepth } from '../pipeline/call-depth.ts';
import { executeTool } from '../pipeline/execute-tool.ts';
import type { ExecuteRequest } from '../pipeline/execute-request.ts';
import type { ApprovalService, PipelineDeps } from '../pipeline/pipeline-deps.ts';
import { Hooks, type HookMap, type HookName } from '../pipeline/hooks.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import { DEFAULT_GRACE_MS, type UnsettledBodyReporter } from '../pipeline/unsettled-body.ts';
import { checkMode, ModeDeclarations, type ToolMode } from '../ptc/mode-declarations.ts';
import { directCallRefusal, PTC_ONLY_INSTRUCTION, sdkSection, type PromptSection } from '../ptc/ptc-prompt.ts';
import { DEFAULT_MAX_VISIBLE_CHARS } from '../ptc/run-code-output.ts';
import type { OpenNestedCalls } from '../pipeline/nested-call-submitter.ts';
import { createDeferredBuiltins } from '../ptc/deferred-builtins.ts';
import { createProgramTypeChecker } from '../ptc/program-type-checker.ts';
import { createRunCodeTool } from '../ptc/run-code-tool.ts';
import { checkGuest, GuestDeclarations, type ProgramGuest } from '../ptc/program-guest.ts';
import { createPythonGuest, pythonRunCodeSchema, requireMonty } from '../ptc/python-guest.ts';
import { defaultMemoryBudgetBytes, RunAdmission, type AdmissionOptions } from '../ptc/run-admission.ts';
import { isRunEventName, RUN_EVENT_NAMES, RunEvents, type RunEventMap } from '../ptc/run-events.ts';
import { checkMaxRetainedBytes } from '../ptc/retention-budget.ts';
import {
  ToolRegistry,
  RUN_CODE,
  type Agent,
  type AgentRef,
  type Dispose,
  type Guard,
  type Restriction,
} from '../registry/tool-registry.ts';
import { createCallSequencer } from '../scheduler/call-sequencer.ts';
import { executeJournaled } from '../scheduler/execute-journaled.ts';
import { createTimeoutPolicy, type TimeoutPolicyOptions } from '../scheduler/timeout-policy.ts';
import { checkHoldAfterGiveUpMs } from '../scheduler/given-up-hold.ts';
import { createContextInbox, type ContextInbox, type ContextInboxOptions } from './context-inbox.ts';
import { createOtelExecutionTracer } from '../telemetry/otel-execution-tracer.ts';
import { createResourceLocks, sharedLocksOf } from '../pipeline/resource-locks.ts';
import {
  createTurnExecutor,
  type TurnCall,
  type TurnExecutorOptions,
  type TurnOptions,
  type TurnResult,
} from '../scheduler/execute-turn.ts';
import { resolveOwnedJournal } from '../journal/resolve-journal.ts';
import { createLazySandbox } from './lazy-sandbox.ts';
import { createHostedConversation, type HostedConversation } from '../hosted/hosted-conversation.ts';
import type { HostedLimits } from '../hosted/hosted-limits.ts';
import { hostedDirectCallRefusal, projectHostedSchema } from '../hosted/hosted-schemas.ts';
import { RunPauseGates } from '../pipeline/pause-gates.ts';
import { DEFAULT_MAX_PAUSED_RUN_BYTES, DEFAULT_PAUSED_RUN_TTL_MS, type DurableRunsConfig } from '../ptc/durable-run.ts';
import { createDurableRunsApi, type ToolRuntimeRuns } from './durable-runs.ts';
import {
  createRuntimeSessions,
  sessionsOff,
  type SessionsApi,
  type SessionsOptions,
} from '../sessions/runtime-sessions.ts';
import { toolSessionOf } from '../sessions/tool-session-handle.ts';
import type { ToolSession } from '../pipeline/tool-session.ts';
import { projectSchema, type ToolSchemaProjection } from '../definition/tool-schema-projection.ts';
import { createPlansApi, type PlansApi } from '../preview/plan-api.ts';
import { checkPrincipal } from './check-principal.ts';
import { createPlansConfig, type PlanOptions } from '../preview/plans-config.ts';
import { previewRefusal } from '../pipeline/preview-policy.ts';

export type { ToolSchemaProjection } from '../definition/tool-schema-projection.ts';

/** `concurrency` (pool size of a turn, default 8) and `journal` (a Journal, a file path or a postgres:// URL) come from the scheduler. */
export interface ToolRuntimeOptions extends TurnExecutorOptions, PlanOptions {
  /** The approval seam for `ask()` decisions. Without it, `ask` is refused (never auto-approved). */
  readonly approval?: ApprovalService;
  /** Default tool mode for every agent without its own declaration. @default 'native' */
  readonly mode?: ToolMode;
  /**
   * The language of run_code programs for every agent without its own declaration
   * (`rt.setGuest`): `'python'` runs them in Monty (the optional peer `@pydantic/monty`)
   * with a Python SDK; see docs/python.md. @default 'typescript'
   */
  readonly guest?: ProgramGuest;
  /**
   * The sandbox run_code uses: a ready Sandbox, options for the built-in one (created
   * lazily, process isolation by default), or `false` for none — then ptc/both fail
   * with PTC_NOT_CONFIGURED.
   */
  readonly sandbox?: Sandbox | SandboxOptions | false;
  /** Limits of every run_code program (SandboxLimits; defaults in DEFAULT_LIMITS). */
  readonly limits?: Partial<SandboxLimits>;
  /**
   * Where the model finds the SDK in ptc and both modes. `true` (the default): inside
   * run_code's description (with the "only run_code is callable directly" instruction
   * in ptc mode), so a plain `rt.schemas()` tool list — and every adapter — gives the
   * model everything with no extra step, and `rt.prompt()` is empty. `false`: the
   * description stays short and `rt.prompt()` carries the instruction and the SDK as
   * system-prompt sections; send both (the adapters' request builders do).
   * @default true
   */
  readonly embedSdkInDescription?: boolean;
  /**
   * Enforces each tool's `timeoutMs` (an around-dispatch deadline; a late call fails
   * with TOOL_TIMEOUT once its body settled, see installTimeoutPolicy). On by default;
   * options such as `graceMs` go here; `false` turns it off (then `timeoutMs` is only
   * a declaration, and you may install your own policy).
   * @default {}
   */
  readonly timeoutPolicy?: TimeoutPolicyOptions | false;
  /** Model-visible text of a run_code result, in characters. @default 65536 */
  readonly maxVisibleChars?: number;
  /**
   * Type feedback for run_code programs, checked against the SDK the model was shown
   * (a warm TypeScript checker in a worker thread, started on the first run).
   * `'error'`: a program with type errors does not run — CODE_RUN_FAILED, `info.kind`
   * `'compile'`, `line:column message` lines in the text and `info.diagnostics`.
   * `'warn'`: it runs, and the errors follow its output (`value.typeErrors`).
   * `'off'`: esbuild only strips types. Off by default because the check costs more than
   * the run: the first one loads TypeScript (about 1 s), each later one adds tens of
   * milliseconds (see docs/modes-and-sdk.md) and the worker holds ~100 MB.
   * A check that takes longer than 10 s is stopped and the program runs unchecked, with a note.
   * @default 'off'
   */
  readonly typecheck?: 'off' | 'warn' | 'error';
  /**
   * How deep nested calls may go (run_code's SDK calls and composite tools'
   * `exec.callTool`, top level = 0); a deeper call is refused with NESTING_TOO_DEEP.
   * @default 8
   */
  readonly maxCallDepth?: number;
  /**
   * OpenTelemetry spans (`execute_tool <name>`) for every execution, when the optional
   * peer `@opentelemetry/api` is installed and a tracer provider is registered; `false`
   * turns them off. @default true
   */
  readonly telemetry?: boolean;
  /**
   * What one run_code run may hold on the host at once, in bytes of JSON text: nested
   * calls' arguments until they commit, a result on its way to the program, ferried
   * contexts until the run ends. A call that does not fit is refused in the program
   * (`RETENTION_LIMIT`); contexts that do not fit stop the run (kind `output-limit`).
   * @default 67108864 (64 MiB)
   */
  readonly maxRetainedBytes?: number;
  /**
   * An optional hard cap on run_code runs in flight at once on this runtime (type check,
   * waiting, running). One more fails at once — CODE_RUN_FAILED, `info.kind` `'busy'`,
   * "retry later". Without it runs are admitted by resources (`admission`).
   * @default no cap
   */
  readonly maxActiveRuns?: number;
  /**
   * How run_code runs are admitted: CPU slots for runs that execute (runs awaiting tools
   * hold none), a memory budget, a queue with a time limit. A run refused fails with
   * CODE_RUN_FAILED, `info.kind` `'busy'`, `info.reason` `'memory'` or `'queue-time'` and
   * `info.retryAfterMs`. See docs/deployment.md.
   * @default 4 CPU slots per core, half of the machine's memory, 10 s in the queue
   */
  readonly admission?: AdmissionOptions;
  /**
   * Once a call's caller aborted (a cancelled turn, a run_code run that ended by its
   * wall limit or its caller), how long its body may take to settle before the call is
   * given up on: it fails with ABORTED (`info.bodySettled: false`) and is reported to
   * `onUnsettled`, so a body that ignores its signal cannot hold a run open.
   * @default 1000
   */
  readonly abortGraceMs?: number;
  /**
   * Bodies given up on: after an abort (`reason: 'aborted'`), and after their deadline
   * (`reason: 'timeout'`) unless `timeoutPolicy.onUnsettled` is given. Default: a process warning.
   */
  readonly onUnsettled?: UnsettledBodyReporter;
  /**
   * A call given up on (TOOL_TIMEOUT or ABORTED with `info.bodySettled: false`) keeps its
   * slot in its turn or run until its body settles: no later exclusive call (and no call
   * after an exclusive one) starts beside it. Past this many ms the sequence stops
   * instead: the calls not started get SCHEDULER_FAILURE (not run).
   * @default 30000
   */
  readonly holdAfterGiveUpMs?: number;
  /**
   * Durable runs (with a journal): how long a paused run can be resumed, in ms; after
   * that `resume` refuses it (RUN_EXPIRED). @default 604800000 (7 days)
   */
  readonly pausedRunTtlMs?: number;
  /**
   * Durable runs: bytes of nested-call arguments and results a run may have recorded and
   * still pause; past it the pause fails (CODE_RUN_FAILED, `info.kind: 'pause-limit'`)
   * and the gated calls do not run. @default 16777216 (16 MiB)
   */
  readonly maxPausedRunBytes?: number;
  /**
   * Sessions (`true` or options): run_code takes an optional `session`, programs see a
   * global `state` that what they leave there fills for the next program of that
   * session, and the result's `value.session` says `{ id, expiresAt, bytes }`. Stored in
   * the journal's store when there is a journal (shared by every host of a PostgreSQL
   * journal), else in memory. See docs/sessions.md. @default off
   */
  readonly sessions?: SessionsOptions | boolean;
}

/** Everything `rt.on` accepts: the pipeline hooks and observers, and the live run events. */
export type RuntimeEventMap = HookMap & RunEventMap;
export type RuntimeEventName = keyof RuntimeEventMap;

/** One runtime: tools, modes, execution, durable runs, sessions, previews and commits (createToolRuntime). */
export interface ToolRuntime extends PlansApi, ToolRuntimeRuns {
  register(tool: Tool, options?: { readonly agent?: AgentRef }): Dispose;
  createAgent(id: string, options?: { readonly parent?: AgentRef }): Agent;
  restrict(agent: AgentRef, restriction: Restriction): Dispose;
  guard(guard: Guard, options?: { readonly agent?: AgentRef }): Dispose;
  /**
   * A pipeline hook (`tools/pre-execute`, `tools/execute`, `tools/post-execute`), a result
   * observer (`tools/result`), or a live run event (`run/log`, `run/call-start`,
   * `run/call-end`: console lines and nested calls of run_code programs as they happen).
   */
  on<K extends RuntimeEventName>(name: K, handler: RuntimeEventMap[K]): Dispose;
  /** Declares the tool mode of one agent scope (nearest scope wins); dispose restores the parent's. */
  setMode(mode: ToolMode, options: { readonly agent: AgentRef }): Dispose;
  /** The mode in force for the agent. */
  mode(options?: { readonly agent?: AgentRef }): ToolMode;
  /** Declares the run_code language of one agent scope (nearest scope wins); dispose restores the parent's. */
  setGuest(guest: ProgramGuest, options: { readonly agent: AgentRef }): Dispose;
  /** The run_code language in force for the agent. */
  guest(options?: { readonly agent?: AgentRef }): ProgramGuest;
  /** What a provider should receive, per the agent's mode. */
  schemas(options?: { readonly agent?: AgentRef }): ToolSchemaProjection[];
  /**
   * Ordered system-prompt sections for the agent's mode: what `schemas()` does not
   * carry. Empty in native mode and when the SDK is embedded in run_code's description
   * (the default); with `embedSdkInDescription: false`, the ptc-only instruction (ptc
   * mode) and the SDK.
   */
  prompt(options?: { readonly agent?: AgentRef }): PromptSection[];
  /** The typed SDK of the agent's visible tools (Python stubs when its guest is Python). */
  sdk(options?: { readonly agent?: AgentRef }): string;
  /** The tool a name resolves to for the agent (after scope and restrictions), if visible. */
  tool(name: string, options?: { readonly agent?: AgentRef }): Tool | undefined;
  /**
   * Runs one top-level call through the whole pipeline. With a journal it is journaled
   * like a call of a turn (write-ahead, commit) and a journal failure gives a
   * SCHEDULER_FAILURE result.
   */
  execute(request: ExecuteRequest): Promise<ToolResult>;
  /** Runs the tool calls of one model message: results and contexts in model order. */
  executeTurn(calls: readonly TurnCall[], options?: TurnOptions): Promise<TurnResult>;
  /**
   * Hosted mode: the state of one conversation (programs the provider ran, its
   * container). Pass it to the adapters and to `executeTurn(calls, { conversation })`,
   * so program-made calls nest under their program — and forged ones are refused.
   */
  hostedConversation(options?: {
    readonly agent?: AgentRef;
    /** Bounds on programs per response and per conversation, their code and their calls (DEFAULT_HOSTED_LIMITS). */
    readonly limits?: Partial<HostedLimits>;
  }): HostedConversation;
  /**
   * One conversation's inbox of contexts: pass it to `executeTurn(calls, { inbox })`,
   * and call `inbox.admit()` just before each next model request — the contexts waiting
   * are then journaled as `user/message` events (durable first) and returned to send.
   * After a restart, `inbox.recover(lastTurnCallIds)` queues the ones never admitted.
   */
  contextInbox(options?: ContextInboxOptions): ContextInbox;
  /** Sessions (operators): list, show and delete every agent's sessions. Throws a TypeError when sessions are off. */
  readonly sessions: SessionsApi;
  /** Stops the sandbox (its child process and pooled isolates). */
  close(): Promise<void>;
}

/** A positive integer option (ms or bytes), or its default; a TypeError names the option. */
function positiveMs(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw new TypeError(`createToolRuntime: ${name} must be a positive integer, got ${String(value)}`);
  return value;
}

const toSdkSchema = (tool: Tool): ToolSchema => ({
  name: tool.name,
  description: tool.description,
  parameters: tool.parameters,
  outputSchema: tool.outputSchema,
  deferLoading: tool.deferLoading,
  ...(tool.schemaWarnings === undefined || tool.schemaWarnings.length === 0 ? {} : { notes: tool.schemaWarnings }),
});

function isSandbox(value: unknown): value is Sandbox {
  return typeof value === 'object' && value !== null && typeof (value as Sandbox).run === 'function';
}

/**
 * A public call is always a top-level call: `parent` and `rootCallId` belong to nested
 * calls (run_code) and are not taken from outside. `arguments` stays a lazy read, so
 * the pipeline still captures the definition's finalizers before touching it.
 */
/** The request with another signal; its arguments are read only when the pipeline reads them. */
function withSignal(request: ExecuteRequest, signal: AbortSignal): ExecuteRequest {
  return publicRequest(request, signal);
}

function publicRequest(request: ExecuteRequest, replaced?: AbortSignal, toolSession?: ToolSession): ExecuteRequest {
  if (typeof request !== 'object' || request === null) return request;
  const { callId, name, agent } = request;
  const signal = replaced ?? request.signal;
  const copy = {
    callId,
    name,
    ...(agent === undefined ? {} : { agent }),
    ...(signal === undefined ? {} : { signal }),
    ...(toolSession === undefined ? {} : { toolSession }),
  };
  return Object.defineProperty(copy, 'arguments', { enumerable: true, get: () => request.arguments }) as ExecuteRequest;
}

// Long: the composition root. It reads each option once, in one place, and wires the
// registry, pipeline, sandbox, journal and the APIs built on them (each in a file of its own).
export function createToolRuntime(options: ToolRuntimeOptions = {}): ToolRuntime {
  const registry = new ToolRegistry();
  const hooks = new Hooks();
  const runEvents = new RunEvents();
  const modes = new ModeDeclarations(checkMode(options.mode ?? 'native', 'createToolRuntime'));
  const guests = new GuestDeclarations(checkGuest(options.guest ?? 'typescript', 'createToolRuntime'));
  if (guests.anyPython) requireMonty();
  const sandboxOption = options.sandbox;
  const ptcConfigured = sandboxOption !== false;
  const requirePtc = (mode: ToolMode, where: string): void => {
    if (mode !== 'native' && mode !== 'hosted' && !ptcConfigured) {
      throw new ToolRuntimeError(
        'PTC_NOT_CONFIGURED',
        `${where}: mode "${mode}" needs a sandbox, but the runtime was created with sandbox: false`,
      );
    }
  };
  requirePtc(modes.defaultMode, 'createToolRuntime');
  // Bad settings fail here, not later as a run_code error that the model reads on every run.
  if (options.limits !== undefined) {
    try {
      resolveLimits(options.limits);
    } catch (error) {
      throw new TypeError(`createToolRuntime: limits: ${(error as Error).message}`);
    }
  }
  // The built-in sandbox is made on the first run: its options are checked now.
  if (sandboxOption !== undefined && sandboxOption !== false && !isSandbox(sandboxOption)) {
    if (typeof sandboxOption !== 'object' || sandboxOption === null) {
      throw new TypeError(
        `createToolRuntime: sandbox must be a Sandbox, options for the built-in one (e.g. { isolation: 'in-process' }) or false, got ${sandboxOption === null ? 'null' : typeof sandboxOption}`,
      );
    }
    try {
      checkSandboxOptions(sandboxOption);
    } catch (error) {
      throw new TypeError(`createToolRuntime: sandbox: ${(error as Error).message.replace(/^createSandbox: /, '')}`);
    }
  }
  const timeoutPolicy = options.timeoutPolicy ?? {};
  if (timeoutPolicy !== false && (typeof timeoutPolicy !== 'object' || timeoutPolicy === null)) {
    throw new TypeError(
      `createToolRuntime: timeoutPolicy must be false or an options object such as { graceMs: 1000 }, got ${String(timeoutPolicy)}`,
    );
  }
  const maxVisibleChars = options.maxVisibleChars ?? DEFAULT_MAX_VISIBLE_CHARS;
  if (!Number.isSafeInteger(maxVisibleChars) || maxVisibleChars < 1) {
    throw new TypeError(
      `createToolRuntime: maxVisibleChars must be a positive integer (characters), got ${String(maxVisibleChars)}`,
    );
  }

  const maxRetainedBytes = checkMaxRetainedBytes(options.maxRetainedBytes, 'createToolRuntime');
  const maxActiveRuns = options.maxActiveRuns;
  if (maxActiveRuns !== undefined && (!Number.isSafeInteger(maxActiveRuns) || maxActiveRuns < 1)) {
    throw new TypeError(
      `createToolRuntime: maxActiveRuns must be a positive integer (run_code runs in flight), got ${String(options.maxActiveRuns)}`,
    );
  }
  const typecheck = options.typecheck ?? 'off';
  if (typecheck !== 'off' && typecheck !== 'warn' && typecheck !== 'error') {
    throw new TypeError(
      `createToolRuntime: typecheck must be 'off', 'warn' or 'error', got ${JSON.stringify(typecheck)}`,
    );
  }
  const typeChecker = typecheck === 'off' ? undefined : createProgramTypeChecker();
  const abortGraceMs = options.abortGraceMs ?? DEFAULT_GRACE_MS;
  if (
    typeof abortGraceMs !== 'number' ||
    !Number.isFinite(abortGraceMs) ||
    abortGraceMs < 0 ||
    abortGraceMs > 2 ** 31 - 1
  ) {
    throw new TypeError(
      `createToolRuntime: abortGraceMs must be a finite number of milliseconds >= 0, got ${String(abortGraceMs)}`,
    );
  }
  const holdAfterGiveUpMs = checkHoldAfterGiveUpMs(options.holdAfterGiveUpMs, 'createToolRuntime');
  if (options.onUnsettled !== undefined && typeof options.onUnsettled !== 'function') {
    throw new TypeError('createToolRuntime: onUnsettled must be a function (report) => void');
  }

  let sandbox: Sandbox | undefined = isSandbox(sandboxOption) ? sandboxOption : undefined;
  const ownsSandbox = sandbox === undefined;
  const getSandbox = (): Sandbox => {
    if (!ptcConfigured)
      throw new ToolRuntimeError(
        'PTC_NOT_CONFIGURED',
        'run_code needs a sandbox, but the runtime was created with sandbox: false',
      );
    // The pool of ready isolates fills within the memory budget runs are admitted against.
    const sandboxOptions = isSandbox(sandboxOption) || sandboxOption === undefined ? {} : sandboxOption;
    sandbox ??= createLazySandbox({
      memoryBudgetBytes: options.admission?.memoryBudgetBytes ?? defaultMemoryBudgetBytes(),
      ...sandboxOptions,
    });
    return sandbox;
  };

  const maxCallDepth = checkMaxCallDepth(options.maxCallDepth, 'createToolRuntime');
  // One store for every call of the runtime: turns, direct calls and nested calls.
  // A store opened from a string (a path or a postgres:// URL) is the runtime's: close() releases it.
  const ownedJournal = resolveOwnedJournal(options.journal, options);
  const journal = ownedJournal?.journal;
  const pauseGates = new RunPauseGates(journal !== undefined);
  const sessions = createRuntimeSessions(options.sessions, journal?.sessions);
  // The principal of each top-level call in flight that named one, by callId: durable runs record it, sessions are scoped by it.
  const principals = new Map<AbortSignal, string>();
  const plans = createPlansConfig(
    options,
    journal,
    principals,
    (name, agent) => deps.resolveTool(name, agent),
    (request) => previewRefusal(deps, request),
  );
  const durableRuns: DurableRunsConfig | undefined =
    journal === undefined
      ? undefined
      : {
          journal,
          gates: pauseGates,
          pausedRunTtlMs: positiveMs(options.pausedRunTtlMs, DEFAULT_PAUSED_RUN_TTL_MS, 'pausedRunTtlMs'),
          maxPausedRunBytes: positiveMs(options.maxPausedRunBytes, DEFAULT_MAX_PAUSED_RUN_BYTES, 'maxPausedRunBytes'),
          resumes: new Map(),
          principals,
        };

  // Nested calls (run_code's and composite tools') follow the same rules as a model
  // turn; the pool is as wide as the sandbox lets calls be in flight.
  const nestedConcurrency = options.limits?.maxConcurrentCalls ?? DEFAULT_LIMITS.maxConcurrentCalls;
  const openNestedCalls: OpenNestedCalls = (o) =>
    createCallSequencer(deps, {
      ...(o.agent === undefined ? {} : { agent: o.agent }),
      signal: o.signal,
      ...(o.callIdsUnique === true ? { callIdsUnique: true } : {}),
      concurrency: nestedConcurrency,
      ...(journal === undefined ? {} : { journal }),
    });

  const modeOf = (agent: string | undefined): ToolMode => modes.resolve(registry.chain(agent));
  // The modes whose programs run here, in run_code (hosted programs run at the provider).
  const runsCode = (mode: ToolMode): boolean => mode === 'ptc' || mode === 'both';
  const deferredBuiltins = createDeferredBuiltins({ visible: (agent) => registry.visible(agent) });
  const deps: PipelineDeps = {
    registry,
    hooks,
    approval: options.approval,
    resolveTool(name, agent) {
      if (name === RUN_CODE) return runsCode(modeOf(agent)) ? runCode : undefined;
      // $describe / $search exist for programs, in the modes that run programs.
      const builtin = deferredBuiltins.get(name);
      if (builtin !== undefined) return runsCode(modeOf(agent)) ? builtin : undefined;
      return registry.resolve(name, agent);
    },
    directCallRefusal(name, agent) {
      const mode = modeOf(agent);
      if (mode === 'hosted') return hostedDirectCallRefusal(registry.resolve(name, agent));
      if (mode !== 'native' && deferredBuiltins.has(name)) return directCallRefusal(name);
      return mode === 'ptc' && name !== RUN_CODE && registry.resolve(name, agent) !== undefined
        ? directCallRefusal(name)
        : undefined;
    },
    abortGraceMs,
    holdAfterGiveUpMs,
    ...(options.onUnsettled === undefined ? {} : { onUnsettled: options.onUnsettled }),
    openNestedCalls,
    maxCallDepth,
    pauseGates,
    ...(options.telemetry === false ? {} : { tracer: createOtelExecutionTracer() }),
    resourceLocks: createResourceLocks(sharedLocksOf(journal)),
    onResourceWait: (exec, wait) => {
      if (!runEvents.has('run/lock-wait')) return;
      const { callId, name, agent, rootCallId, parentCallId } = exec;
      runEvents.emit('run/lock-wait', { runCallId: parentCallId ?? callId, rootCallId, agent, callId, name, ...wait });
    },
  };

  // SDK text per agent, rebuilt only when the registry changes.
  const sdkCache = new Map<string, string>();
  let sdkVersion = -1;
  const sdkFor = (agent: string | undefined): string => {
    if (registry.version !== sdkVersion) {
      sdkCache.clear();
      sdkVersion = registry.version;
    }
    if (guestOf(agent) === 'python') return python.sdk(agent).text;
    const key = agent ?? '';
    let text = sdkCache.get(key);
    if (text === undefined) {
      text = generateSdk(registry.visible(agent).map(toSdkSchema), sessions === undefined ? {} : { sessions: true });
      sdkCache.set(key, text);
    }
    return text;
  };

  const guestOf = (agent: string | undefined): ProgramGuest => guests.resolve(registry.chain(agent));
  const python = createPythonGuest({
    visible: (agent) => registry.visible(agent).map(toSdkSchema),
    version: () => registry.version,
    limits: options.limits ?? {},
  });
  const runCode = createRunCodeTool({
    sandbox: getSandbox,
    python: (agent) => (guestOf(agent) === 'python' ? python : undefined),
    toolNames(agent) {
      const visible = registry.visible(agent);
      const names = visible.map((t) => t.name);
      // The SDK declares the built-ins exactly when some visible tool is deferred.
      return visible.some((t) => t.deferLoading) ? [...names, ...deferredBuiltins.keys()] : names;
    },
    sequencer: openNestedCalls,
    limits: options.limits ?? {},
    maxVisibleChars,
    events: runEvents,
    maxRetainedBytes,
    ...(maxActiveRuns === undefined ? {} : { maxActiveRuns }),
    admission: new RunAdmission({
      measureMemory: () => sandbox?.memoryInUse?.(),
      ...options.admission,
    }),
    ...(durableRuns === undefined ? {} : { durable: durableRuns }),
    // Sessions are scoped by it; admission shares memory by it (principals are known with a journal or sessions).
    principalOf: (exec) => (exec.parent === undefined ? principals.get(exec.callerSignal) : undefined),
    ...(sessions === undefined ? {} : { sessions }),
    plans,
    ...(typeChecker === undefined || typecheck === 'off'
      ? {}
      : {
          typeCheck: {
            mode: typecheck,
            check: (agent, code, checkOptions) =>
              guestOf(agent) === 'python'
                ? python.check(agent, code)
                : typeChecker.check(sdkFor(agent), code, checkOptions),
          },
        }),
  });
  const embedSdk = options.embedSdkInDescription ?? true;
  if (typeof embedSdk !== 'boolean') {
    throw new TypeError(`createToolRuntime: embedSdkInDescription must be a boolean, got ${JSON.stringify(embedSdk)}`);
  }
  const runCodeSchema = (agent: string | undefined, mode: ToolMode): ToolSchemaProjection => {
    const base = guestOf(agent) === 'python' ? pythonRunCodeSchema(projectSchema(runCode)) : projectSchema(runCode);
    if (!embedSdk) return base;
    const instruction = mode === 'ptc' ? `\n\n${PTC_ONLY_INSTRUCTION}` : '';
    return Object.freeze({ ...base, description: `${base.description}${instruction}\n\n${sdkFor(agent)}` });
  };

  const executeUnscoped = (request: ExecuteRequest, session?: ToolSession): Promise<ToolResult> => {
    const internal = publicRequest(request, undefined, session);
    return journal === undefined ? executeTool(deps, internal) : executeJournaled(deps, internal, journal);
  };
  const execute: ToolRuntime['execute'] = async (request) => {
    const principal = checkPrincipal(request);
    const session = toolSessionOf(request, sessions, principal, (ref) => registry.agentId(ref));
    if (principal === undefined || (durableRuns === undefined && sessions === undefined))
      return executeUnscoped(request, session);
    // The run_code call's durable run and its session read it at its start (durable-run.ts,
    // run-code-tool.ts), by a signal made for this call alone: another call with the same
    // callId never sees it.
    const ticket = request.signal === undefined ? new AbortController().signal : AbortSignal.any([request.signal]);
    principals.set(ticket, principal);
    try {
      return await executeUnscoped(withSignal(request, ticket), session);
    } finally {
      principals.delete(ticket);
    }
  };
  const plansApi = createPlansApi(plans, principals, (r, ticket) => executeUnscoped(withSignal(r, ticket)));
  const durableApi = createDurableRunsApi(durableRuns, execute, (names, agent) =>
    names.filter((name) => {
      try {
        return deps.resolveTool(name, agent) === undefined;
      } catch {
        return true;
      }
    }),
  );

  const runtime: ToolRuntime = {
    register: (tool, o) => registry.register(tool, o),
    createAgent: (id, o) => registry.createAgent(id, o),
    restrict: (agent, r) => registry.restrict(agent, r),
    guard: (g, o) => registry.guard(g, o),
    on(name, handler) {
      if (isRunEventName(name)) return runEvents.on(name, handler as RunEventMap[typeof name]);
      try {
        return hooks.on(name as HookName, handler as HookMap[HookName]);
      } catch (error) {
        if (error instanceof TypeError && /unknown hook/.test(error.message)) {
          throw new TypeError(`${error.message.replace(/\)$/, '')}, ${RUN_EVENT_NAMES.join(', ')})`);
        }
        throw error;
      }
    },
    setMode(mode, o) {
      const checked = checkMode(mode, 'setMode');
      requirePtc(checked, 'setMode');
      const agent = registry.agentId(o?.agent);
      if (agent === undefined)
        throw new TypeError('setMode: give { agent }; the runtime default is createToolRuntime({ mode })');
      return modes.declare(agent, checked);
    },
    mode: (o = {}) => modeOf(registry.agentId(o.agent)),
    setGuest(guest, o) {
      const checked = checkGuest(guest, 'setGuest');
      if (checked === 'python') requireMonty();
      const agent = registry.agentId(o?.agent);
      if (agent === undefined)
        throw new TypeError('setGuest: give { agent }; the runtime default is createToolRuntime({ guest })');
      return guests.declare(agent, checked);
    },
    guest: (o = {}) => guestOf(registry.agentId(o.agent)),
    schemas(o = {}) {
      const agent = registry.agentId(o.agent);
      const mode = modeOf(agent);
      const native = registry.visible(agent).map(projectSchema);
      if (mode === 'native') return native;
      if (mode === 'hosted') return registry.visible(agent).map(projectHostedSchema);
      if (mode === 'ptc') return [runCodeSchema(agent, mode)];
      return [...native, runCodeSchema(agent, mode)];
    },
    prompt(o = {}) {
      const agent = registry.agentId(o.agent);
      const mode = modeOf(agent);
      // Only what the schemas do not already carry: the SDK is never sent twice.
      if (!runsCode(mode) || embedSdk) return [];
      const sections: PromptSection[] = [];
      if (mode === 'ptc') sections.push({ id: 'ptc-instructions', text: PTC_ONLY_INSTRUCTION });
      sections.push(sdkSection(sdkFor(agent), guestOf(agent)));
      return sections;
    },
    sdk: (o = {}) => sdkFor(registry.agentId(o.agent)),
    tool: (name, o = {}) => deps.resolveTool(name, registry.agentId(o.agent)),
    contextInbox: (o) => createContextInbox(journal, o),
    hostedConversation: (o = {}) =>
      createHostedConversation({ deps, journal, agent: registry.agentId(o.agent), modeOf, limits: o.limits }),
    execute,
    runs: (filter) => durableApi.runs(filter),
    resume: (runId, decisions, scope) => durableApi.resume(runId, decisions, scope),
    runCalls: (runId, scope) => durableApi.runCalls(runId, scope),
    ...plansApi,
    runOfCall: (callId, scope) => durableApi.runOfCall(callId, scope),
    cancelRun: (runId, scope) => durableApi.cancel(runId, scope),
    pausedRunTtlMs: durableRuns?.pausedRunTtlMs,
    sessions: sessions?.api() ?? sessionsOff(),
    executeTurn: createTurnExecutor(deps, {
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      ...(journal === undefined ? {} : { journal }),
    }),
    async close() {
      await typeChecker?.close();
      await python.close();
      if (sandbox !== undefined && ownsSandbox) await sandbox.close();
      sandbox = ownsSandbox ? undefined : sandbox;
      await ownedJournal?.close();
    },
  };
  if (timeoutPolicy !== false) {
    // One reporter for bodies given up on, whether their deadline fired or their caller aborted.
    const policy = createTimeoutPolicy(runtime, {
      ...(options.onUnsettled === undefined ? {} : { onUnsettled: options.onUnsettled }),
      ...timeoutPolicy,
    });
    // The outermost tools/execute wrapper, left out of the chain of a call whose tool has no timeoutMs.
    hooks.on('tools/execute', policy.handler, policy.applies);
  }
  return runtime;
}
