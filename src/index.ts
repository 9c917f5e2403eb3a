// Public entry of ptc-runtime. Curated, explicit exports.
// First: on Node < 24 this throws a sentence that says so, before anything else loads.
import './runtime/require-node-24.ts';
export { defineTool, defineJsonSchemaTool } from './definition/define-tool.ts';
export type {
  Tool,
  ToolSpec,
  ToolSpecBase,
  ReturnableValue,
  JsonSchemaToolSpec,
  OutsideSchema,
  OutsideArgs,
  OutsideValue,
} from './definition/define-tool.ts';
export type { EffectExecution, ToolEffect, ToolEffectFields } from './definition/tool-effect.ts';
export type { StandardSchemaV1 } from './definition/standard-schema.ts';
export type { SchemaDialect } from './definition/create-ajv.ts';
export type {
  SchemaNode,
  PropertyMap,
  InferArgs,
  InferNode,
  JsonValueType,
  MaxInferenceDepth,
  StringNode,
  NumberNode,
  BooleanNode,
  NullNode,
  ArrayNode,
  ObjectNode,
  JsonNode,
  UnionNode,
} from './definition/schema-node.ts';
export { MAX_SCHEMA_DEPTH, SUPPORTED_KEYWORDS } from './definition/compile-schema.ts';
export type { JsonSchema } from './definition/compile-schema.ts';
export { createToolRuntime } from './runtime/create-tool-runtime.ts';
export type {
  ToolRuntime,
  ToolRuntimeOptions,
  ToolSchemaProjection,
  RuntimeEventMap,
  RuntimeEventName,
} from './runtime/create-tool-runtime.ts';
export type { ToolMode } from './ptc/mode-declarations.ts';
export type { ProgramGuest } from './ptc/program-guest.ts';
export type { AdmissionOptions } from './ptc/run-admission.ts';
export type { PromptSection } from './ptc/ptc-prompt.ts';
// The sandbox's contract, for `createToolRuntime({ sandbox })` with options or your own Sandbox.
export type {
  Sandbox,
  SandboxOptions,
  SandboxLimits,
  RunRequest,
  RunOutcome,
  GuestSuspension,
  RunDeterminism,
  ProgramState,
  StateOutcome,
  FailureKind,
  HostCall,
  HostCallRequest,
  HostCallOutcome,
} from '../sandbox/types.ts';
export { RUN_EVENT_NAMES } from './ptc/run-events.ts';
export type {
  RunEventMap,
  RunEventName,
  RunEventSource,
  RunLogEvent,
  RunCallStartEvent,
  RunCallEndEvent,
  RunLockWaitEvent,
} from './ptc/run-events.ts';
export { DEFAULT_MAX_CALL_DEPTH } from './pipeline/call-depth.ts';
export { allow, deny, cancel, ask, accept, block } from './pipeline/decisions.ts';
export type { PreDecision, PostDecision, AcceptChanges, ApprovalRequestInput } from './pipeline/decisions.ts';
export type { ExecuteRequest } from './pipeline/execute-request.ts';
export type { ApprovalService, ApprovalRequest, ApprovalAnswer } from './pipeline/pipeline-deps.ts';
export type { ToolExecution } from './pipeline/tool-execution.ts';
export type { ToolSession } from './pipeline/tool-session.ts';
export { FenceLostError } from './pipeline/fence.ts';
export type { Fence } from './pipeline/fence.ts';
export type { HeldLock, ReleaseLock } from './pipeline/resource-locks.ts';
/** Who made a call (`exec.caller`): the model directly, a program (local run_code or a provider's hosted program), or a composite tool. */
export type { ToolCaller, ToolCallerKind, ProgramProvider, HostedProvider } from './pipeline/tool-caller.ts';
/** Hosted mode: one conversation's programs and container (`rt.hostedConversation()`). */
export type { HostedConversation, HostedProgramInfo } from './hosted/hosted-conversation.ts';
/** Hosted mode: bounds on programs per response and per conversation, their code and their calls. */
export { DEFAULT_HOSTED_LIMITS, type HostedLimits } from './hosted/hosted-limits.ts';
/** Hosted mode: the name of the execution that stands for a provider's program (journal, hooks, spans). */
export { HOSTED_PROGRAM } from './hosted/hosted-program-tool.ts';
export type {
  ToolResult,
  ContentBlock,
  TextBlock,
  ImageBlock,
  ContextMessage,
  ToolErrorInfo,
} from './pipeline/tool-result.ts';
export type {
  HookName,
  HookMap,
  PreExecuteHandler,
  ExecuteHandler,
  PostExecuteHandler,
  ResultObserver,
} from './pipeline/hooks.ts';
export type { Agent, AgentRef, Restriction, Guard, GuardVerdict, Dispose } from './registry/tool-registry.ts';
export { RUN_CODE } from './registry/tool-registry.ts';
export { ERROR_CODES } from './errors/error-codes.ts';
export type { ErrorCode } from './errors/error-codes.ts';
export { ToolRuntimeError } from './errors/tool-runtime-error.ts';
export { ToolArgsError } from './errors/tool-args-error.ts';
export type { ArgIssue } from './errors/tool-args-error.ts';
export { DefinitionError } from './errors/definition-error.ts';
export { snapshotJson, deepFreeze, MAX_JSON_DEPTH, NotJsonError } from './json/json-value.ts';
export type { JsonValue, JsonPrimitive, JsonMutable } from './json/json-value.ts';
// Scheduler: turns and the timeout policy.
export type { TurnCall, TurnOptions, TurnResult, TurnExecutorOptions } from './scheduler/execute-turn.ts';
export { DEFAULT_CONCURRENCY } from './scheduler/concurrency-limit.ts';
/** Bounds on the bytes journaled per run and per runtime, and on an append's acknowledgement time. */
export type { JournalBounds } from './journal/journal-bounds.ts';
export { SchedulerError, SCHEDULER_ERROR_CODES } from './scheduler/scheduler-error.ts';
export type { SchedulerErrorCode } from './scheduler/scheduler-error.ts';
export { installTimeoutPolicy, DEFAULT_GRACE_MS } from './scheduler/timeout-policy.ts';
export type { TimeoutPolicyOptions, TimeoutPolicyHost, UnsettledBody } from './scheduler/timeout-policy.ts';
export type { UnsettledBodyReporter } from './pipeline/unsettled-body.ts';
// Journal: the store contract, the stores, replay.
export type {
  Journal,
  JournalEvent,
  ToolCallEvent,
  ToolResultEvent,
  JournalContents,
  JournalWarning,
} from './journal/journal.ts';
export { openFileJournal } from './journal/file/file-journal.ts';
export type { FileJournal, FileJournalOptions } from './journal/file/file-journal.ts';
export { openSqliteJournal } from './journal/sqlite/sqlite-journal.ts';
export type {
  SqliteJournal,
  SqliteJournalOptions,
  JournalQuery,
  JournalEntry,
} from './journal/sqlite/sqlite-journal.ts';
export { openPostgresJournal, POSTGRES_SCHEMA_VERSION } from './journal/postgres/postgres-journal.ts';
export type {
  PostgresJournal,
  PostgresJournalOptions,
  PostgresPool,
  PostgresPoolClient,
} from './journal/postgres/postgres-journal.ts';
export { createMemoryJournal } from './journal/memory/memory-journal.ts';
export type { MemoryJournal } from './journal/memory/memory-journal.ts';
export { presentExecution } from './journal/present-execution.ts';
export type { ExecutionPresentation, PresentableCall, PresenterSource } from './journal/present-execution.ts';
export { presentationTree } from './journal/presentation-tree.ts';
export type { PresentationNode } from './journal/presentation-tree.ts';
export { replayJournal } from './journal/replay-journal.ts';
export type { JournalReplay } from './journal/replay-journal.ts';
/** A conversation's inbox of deferred contexts, admitted as durable user messages at the next request (`rt.contextInbox()`). */
export type { ContextInbox, ContextInboxOptions } from './runtime/context-inbox.ts';
/** The journal event of a context admitted as a user message. */
export type { UserMessageEvent } from './journal/user-message-event.ts';
export type {
  PlanEventBase,
  PlanJournalEvent,
  PlanKeyEvent,
  PlanSavedEvent,
  PlanUsedEvent,
  PlanDecidedEvent,
  PlanUndoEvent,
  PlanRevertEvent,
  PlanUndoneEvent,
  UndoWriteRow,
} from './journal/plan-journal-events.ts';
// Durable runs: pause for approval, resume anywhere, recover after a crash (docs/durable-runs.md).
/** Why `rt.resume` / `rt.runs` refused, with a stable `code` (RUN_RESUME_ERROR_CODES). */
export { RunResumeError, RUN_RESUME_ERROR_CODES } from './errors/run-resume-error.ts';
export type { RunResumeErrorCode } from './errors/run-resume-error.ts';
// Previews and commits: rt.preview(call), rt.commit(token).
export { PlanError, PLAN_ERROR_CODES } from './errors/plan-error.ts';
export type { PlanErrorCode } from './errors/plan-error.ts';
export { PLAN_KEY_ENV } from './preview/plan-token.ts';
export type { Plan } from './preview/plan-runs.ts';
export type { PlannedWrite } from './preview/plan-record.ts';
export type { PlanOptions } from './preview/plans-config.ts';
export type { PreviewResult, CommitResult, CommitOptions, PlansApi } from './preview/plan-api.ts';
export type { CommitOutcome, CommitWrite } from './preview/undo.ts';
export type { InterruptedUndo, UndoScope } from './preview/undo-journal.ts';
export type { PlanAwaitingApproval, PlanDecisionKind, PlansScope } from './preview/plan-approval.ts';
/** What `rt.runs()` lists, and its filter. */
export type {
  DurableRunSummary,
  DurableRunStatus,
  RunOfCall,
  RunsFilter,
  RunsScope,
  ToolRuntimeRuns,
} from './runtime/durable-runs.ts';
export type { RunCall } from './runtime/run-call-tree.ts';
/** `value.paused` of a paused run_code result. */
export type { PausedRun } from './ptc/paused-run-text.ts';
/** Defaults of `pausedRunTtlMs` (7 days) and `maxPausedRunBytes` (16 MiB). */
export { DEFAULT_PAUSED_RUN_TTL_MS, DEFAULT_MAX_PAUSED_RUN_BYTES } from './ptc/durable-run.ts';
/** The journal events of a durable run and its decisions. */
export type {
  RunDecision,
  PendingApproval,
  RunJournalEvent,
  RunEventBase,
  RunStartEvent,
  RunPausedEvent,
  RunResumedEvent,
  RunEndEvent,
} from './journal/run-journal-events.ts';
/** The store side of run claims (one process continues a run at a time), for custom stores. */
export { isClaimLive, newClaim } from './journal/run-claims.ts';
export { createMemoryRunClaims } from './journal/memory/memory-run-claims.ts';
export type { RunClaim, RunClaims } from './journal/run-claims.ts';
// Sessions: a program's `state` kept for the next program of the conversation (docs/sessions.md).
/** Session options, `rt.sessions`, `value.session` of a run_code result, and the defaults (24 h idle, 8 MiB). */
export { DEFAULT_SESSION_TTL_MS, DEFAULT_SESSION_MAX_BYTES } from './sessions/runtime-sessions.ts';
export type {
  SessionsOptions,
  SessionsApi,
  SessionOwner,
  RunSessionValue,
  RecordedSession,
} from './sessions/runtime-sessions.ts';
/** The store side of sessions, for custom stores; the memory one. */
export { createMemorySessionStore } from './sessions/memory-session-store.ts';
export type {
  SessionStore,
  SessionRecord,
  SessionSummary,
  SessionLease,
  LeaseOutcome,
} from './sessions/session-store.ts';
