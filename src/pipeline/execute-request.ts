// What a caller hands the pipeline for one call: a top-level request, or a nested one
// that names the execution it runs under.
import type { AgentRef } from '../registry/tool-registry.ts';
import type { HostedProvider, ToolCaller } from './tool-caller.ts';
import type { ToolSession } from './tool-session.ts';

export interface ExecuteRequest {
  readonly callId: string;
  readonly name: string;
  readonly arguments: unknown;
  readonly agent?: AgentRef;
  readonly signal?: AbortSignal;
  /**
   * Who the application runs this call for (a user, a tenant): a durable run_code run
   * records it, and `rt.runs({ principal })` / `rt.resume(…, { principal })` see only its runs.
   */
  readonly principal?: string;
  /**
   * With sessions on: the session this call is made on (an id from a run_code result's
   * `value.session` or `rt.sessions.create()`); the tool reads and writes it as `exec.session`.
   */
  readonly session?: string;
}

/** A nested call (run_code, `exec.callTool`): the outer execution's token (its callId, root and depth follow from it). */
export interface NestedExecuteRequest extends ExecuteRequest {
  readonly parent?: symbol;
  readonly rootCallId?: string;
  /** Hosted mode: the caller of a program-made call, when it has no running parent to follow from. */
  readonly caller?: ToolCaller;
  /** Hosted mode: why this program-made call is refused (DENIED) before any policy runs. */
  readonly callerRefusal?: string;
  /** Hosted mode: this execution stands for a provider's program (its calls nest under it). */
  readonly hostedProgram?: HostedProvider;
  /** `exec.idempotencyKey`: stable across re-runs of the same call (a durable run sets it per nested call). Default: `call:<callId>`. */
  readonly idempotencyKey?: string;
  /** A durable run's nested call: the run it belongs to, journaled with its call and result rows. */
  readonly runId?: string;
  /** A durable run's nested call: its claim's fencing token (`exec.fencingToken`), when the store fences claims. */
  readonly fencingToken?: number;
  /** The session handle of a top-level call made with `session` (`exec.session`). */
  readonly toolSession?: ToolSession;
}
