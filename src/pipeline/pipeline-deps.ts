// What the pipeline is given: the registry and hooks, the seam to a human (approval),
// where nested calls go, the tracer around every execution, resource locks, and the
// points where a scheduler orders executions (gates). The pipeline itself: execute-tool.ts.
import type { Tool } from '../definition/define-tool.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { ToolRegistry } from '../registry/tool-registry.ts';
import type { JournalWait } from '../journal/journal-wait.ts';
import type { CallRecord } from './call-record.ts';
import type { NestedExecuteRequest } from './execute-request.ts';
import type { Hooks } from './hooks.ts';
import type { OpenNestedCalls } from './nested-call-submitter.ts';
import type { PauseGates } from './pause-gates.ts';
import type { ResourceLocks } from './resource-locks.ts';
import type { ToolExecution } from './tool-execution.ts';
import type { ToolResult } from './tool-result.ts';
import type { UnsettledBodyReporter } from './unsettled-body.ts';

/**
 * `pause`: a human answers later. A call of a run_code program on a runtime with a
 * journal then pauses its run (see durable runs: `rt.resume`); anywhere else it is
 * refused with APPROVAL_UNAVAILABLE (`info.reason: 'cannot-pause'`).
 */
export type ApprovalAnswer = 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable' | 'pause';
export interface ApprovalRequest {
  readonly callId: string;
  readonly name: string;
  readonly agent: string | undefined;
  readonly arguments: JsonValue;
  readonly title: string;
  readonly detail?: JsonValue;
  readonly signal: AbortSignal;
}
/** The seam to a human. `ask` never auto-approves: only 'allowed-once' allows. */
export interface ApprovalService {
  request(request: ApprovalRequest): Promise<ApprovalAnswer>;
  /** Whether approvals for this agent can be routed to someone; absent means yes. */
  canRoute?(agent: string | undefined): boolean;
}

export interface PipelineDeps {
  readonly registry: ToolRegistry;
  readonly hooks: Hooks;
  readonly approval: ApprovalService | undefined;
  /** The tool a name resolves to for an agent (registry plus built-ins such as run_code). */
  resolveTool(name: string, agent: string | undefined): Tool | undefined;
  /** ptc mode: a refusal message for a model-direct call of a native tool, else undefined. */
  directCallRefusal(name: string, agent: string | undefined): string | undefined;
  /** Where `exec.callTool` sends nested calls; without it, callTool is refused. */
  readonly openNestedCalls?: OpenNestedCalls;
  /** Deepest nesting allowed (top level is 0). @default 8 */
  readonly maxCallDepth?: number;
  /** Wraps every execution (e.g. in an OpenTelemetry span); absent means no tracing at all. */
  readonly tracer?: ExecutionTracer;
  /**
   * Once the caller aborted, how long a body may take to settle before its call is
   * given up on (ABORTED, `info.bodySettled: false`) and reported. @default 1000
   */
  readonly abortGraceMs?: number;
  /** Where a given-up body is reported. Default: a process warning. */
  readonly onUnsettled?: UnsettledBodyReporter;
  /**
   * How long the later calls of a turn or run wait for the body of a call given up on
   * (it keeps its slot), before the sequence stops with SCHEDULER_FAILURE. @default 30000
   */
  readonly holdAfterGiveUpMs?: number;
  /** Durable runs: which calls may pause, and the decisions a resume brought (pause-gates.ts). */
  readonly pauseGates?: PauseGates;
  /** Locks for tools that declare `resourceKey`; absent: none are taken. */
  readonly resourceLocks?: ResourceLocks;
  /** Told when a call starts and ends waiting for its resource lock (run events, spans). */
  readonly onResourceWait?: (exec: ToolExecution, wait: ResourceWait) => void;
}

/** A call's wait for its resource lock: `waiting` when it starts, then how it ended. */
export interface ResourceWait {
  readonly key: string;
  readonly state: 'waiting' | 'acquired' | 'aborted' | 'failed';
  /** Milliseconds waited (0 for `waiting`). */
  readonly waitedMs: number;
  /** Whether the lock holds across hosts (PostgreSQL store) or only in this process. */
  readonly shared: boolean;
}

/**
 * Observes executions from the outside: `trace` runs `execute` (exactly once) and may
 * wrap it; `execute` reports the execution object once it exists, so that nested calls,
 * which name it as their `parent`, can be linked to it.
 */
export interface ExecutionTracer {
  trace(
    request: NestedExecuteRequest,
    execute: (created?: (exec: ToolExecution) => void) => Promise<ToolResult>,
  ): Promise<ToolResult>;
  /** Marks a moment of an execution (by its token) on its span, e.g. a resource-lock wait. */
  event?(token: symbol, name: string, attributes: { readonly [key: string]: string | number | boolean }): void;
}

/** Points where a scheduler orders executions. All optional. */
export interface ExecutionGates {
  /** Pre-policy and guards are done (the call will or will not dispatch). Called exactly once. */
  readonly onPolicyDone?: () => void;
  /**
   * Runs around-dispatch and the body (e.g. inside a bounded pool). Must call `dispatch`
   * once. `dispatch` returns undefined when it finished synchronously (a body that
   * returned a value, nothing to wait for); runDispatch may then return undefined too.
   */
  readonly runDispatch?: (dispatch: () => Promise<void> | undefined) => Promise<void> | undefined;
  /** Awaited before post-execute (or before finish when post is skipped): commits follow its order. Undefined: nothing to wait for. */
  readonly beforeCommit?: () => Promise<void> | undefined;
  /**
   * Write-ahead: makes the call durable before any other stage (so before the body).
   * A throw is the scheduler's own failure: nothing runs, and it propagates.
   */
  readonly recordCall?: (call: CallRecord, wait: JournalWait) => Promise<void>;
  /** Makes the final result durable before `tools/result` observers see it; a throw propagates the same way. */
  readonly recordResult?: (result: ToolResult, wait: JournalWait) => Promise<void>;
  /**
   * The call was given up on (its deadline or its caller's abort) while its body still
   * runs: called inside `dispatch`, before it resolves, with a promise that settles when
   * the body does (a scheduler keeps later calls from overlapping it).
   */
  readonly onBodyOutlived?: (settled: Promise<void>) => void;
}
