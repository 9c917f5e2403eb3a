// The per-call execution object handed to bodies and hooks. Identity fields are
// read-only; only an around-dispatch wrapper may swap `signal`, and only while it runs.
import type { JsonValue } from '../json/json-value.ts';
import type { ToolSession } from './tool-session.ts';
import type { ToolCaller } from './tool-caller.ts';
import type { ContextMessage, ToolResult } from './tool-result.ts';

export interface ToolExecution {
  readonly callId: string;
  readonly name: string;
  /** The calling agent's id, or undefined for the global scope. */
  readonly agent: string | undefined;
  /** The parent execution's opaque token (nested calls only). Never the parent object. */
  readonly parent: symbol | undefined;
  /** The callId of the execution that made this nested call (run_code or `callTool`); undefined at top level. */
  readonly parentCallId: string | undefined;
  /**
   * Who made the call: `{ type: 'direct' }` (the model, or `rt.execute`), `{ type:
   * 'program', programId, provider }` (a run_code run — provider `'local'` — or a
   * program the provider ran in hosted mode — `'anthropic'` / `'openai'`), or
   * `{ type: 'tool', callId }` (a composite tool's `exec.callTool`).
   */
  readonly caller: ToolCaller;
  readonly rootCallId: string;
  /**
   * A key for making a retry of this call safe (at least once, with a stable key): the
   * same on every attempt of the same call — a crash re-run, a resumed or recovered
   * durable run — and different for every call. A nested call of a durable run_code run:
   * `run:<runId>:<n>`; any other call: `call:<callId>`. The two prefixes keep the sets
   * apart, so no callId can produce another call's key.
   */
  readonly idempotencyKey: string;
  /** Opaque identity of this execution. */
  readonly token: symbol;
  /** Lossless, deep-frozen snapshot of the arguments. */
  readonly arguments: JsonValue;
  /** The caller's own signal; a wrapper cannot replace it. */
  readonly callerSignal: AbortSignal;
  /** The signal the body sees. Assignable only inside a `tools/execute` wrapper. */
  signal: AbortSignal;
  readonly bodyInvoked: boolean;
  /**
   * The fencing token of the lock this call's body holds: with the PostgreSQL store, a
   * number from the database that is larger than every earlier holder's of the same
   * resource (a tool with `resourceKey`), or of the same durable run's claim (a nested
   * call of a durable run, without a resource lock of its own). A backend that keeps the
   * largest token it has seen can refuse a stale holder's write with it. Undefined with
   * the other stores (memory, JSONL, SQLite: their locks hold within one process) and for
   * calls that hold no lock.
   */
  readonly fencingToken: number | undefined;
  /**
   * The session this call was made on (`rt.execute({ session })`, with sessions on): the
   * tool reads and writes its state, as a run_code program does with `state`. Undefined
   * for a call made without one, and for the nested calls of a program (it has `state`).
   */
  readonly session: ToolSession | undefined;
  /** Attaches a user message to this execution's result. */
  deferContext(message: ContextMessage): void;
  /** Ends the turn after this call, if it finishes as a success. */
  concludeTurn(): void;
  /**
   * Composite tools: runs `name` as a nested call of this execution, while the body runs
   * (callId `<callId>:call:<n>`, this execution as parent, same root, agent and signal,
   * the whole pipeline). Resolves with the final result, failures included; its contexts,
   * image content and concludeTurn are ferried onto this execution's result. Rejects
   * (`NOT_DISPATCHED`) once the body has ended.
   */
  callTool(name: string, args: unknown): Promise<ToolResult>;
}
