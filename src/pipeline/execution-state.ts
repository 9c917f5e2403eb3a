// The mutable side of one execution, behind the read-only ToolExecution view.
import type { Tool } from '../definition/define-tool.ts';
import { ToolRuntimeError } from '../errors/tool-runtime-error.ts';
import type { JsonValue } from '../json/json-value.ts';
import { checkContext } from './content.ts';
import { ExecutionView } from './execution-view.ts';
import type { ToolExecution } from './tool-execution.ts';
import type { ToolSession } from './tool-session.ts';
import { DIRECT_CALLER, nestedCaller, type HostedProvider, type ToolCaller } from './tool-caller.ts';
import type { ContextMessage, ToolResult } from './tool-result.ts';

export type Phase = 'policy' | 'around' | 'body' | 'post' | 'done';

export interface ExecutionInit {
  readonly callId: string;
  readonly name: string;
  readonly agent: string | undefined;
  readonly parent: symbol | undefined;
  readonly rootCallId: string;
  readonly idempotencyKey: string;
  readonly arguments: JsonValue;
  readonly callerSignal: AbortSignal;
  /** Set only when the caller is known without a running parent (a refused hosted call). */
  readonly caller?: ToolCaller | undefined;
  /** This execution stands for a program a provider runs (hosted mode): its nested calls are that program's. */
  readonly hostedProgram?: HostedProvider | undefined;
  /** The fencing token of the durable run's claim this nested call runs under, if the store fences claims. */
  readonly fencingToken?: number | undefined;
  readonly session?: ToolSession | undefined;
}

export type CallTool = (name: string, args: unknown) => Promise<ToolResult>;

// Token → execution whose body is running, so a nested request that names its parent
// only by the opaque token still gets the parent's callId, root and depth. Nested calls
// are made only while the parent's body runs (run_code drains its calls before its body
// returns; callTool closes when the body settles), so an entry lives exactly that long.
// A Map with explicit removal: a WeakMap keyed by a fresh symbol per call costs ~1 µs.
const runningBodies = new Map<symbol, ExecutionState>();

export class ExecutionState implements ToolExecution {
  readonly callId: string;
  readonly name: string;
  readonly agent: string | undefined;
  readonly parent: symbol | undefined;
  /** The parent execution's callId (nested calls whose parent token is known). */
  readonly parentCallId: string | undefined;
  /** Who made the call (see ToolCaller). */
  readonly caller: ToolCaller;
  readonly hostedProgram: HostedProvider | undefined;
  /** 0 at top level; a nested call is one deeper than its parent. */
  readonly depth: number;
  readonly rootCallId: string;
  readonly idempotencyKey: string;
  readonly token: symbol;
  readonly arguments: JsonValue;
  readonly callerSignal: AbortSignal;
  #signal: AbortSignal;
  #callTool: CallTool | undefined;
  #definition: Tool | undefined;
  #phase: Phase = 'policy';
  #bodyInvoked = false;
  #fencingToken: number | undefined;
  readonly session: ToolSession | undefined;
  #concluded = false;
  #childCaller: ToolCaller | undefined;
  readonly #contexts: ContextMessage[] = [];
  /**
   * What hooks, guards and the body receive: identity fields read-only, `signal` swappable
   * only by a wrapper, and none of the pipeline-only controls below.
   */
  readonly view: ToolExecution;

  constructor(init: ExecutionInit) {
    this.callId = init.callId;
    this.name = init.name;
    this.agent = init.agent;
    this.parent = init.parent;
    const parentState = init.parent === undefined ? undefined : runningBodies.get(init.parent);
    this.parentCallId = parentState?.callId;
    this.hostedProgram = init.hostedProgram;
    this.caller = init.caller ?? (parentState === undefined ? DIRECT_CALLER : parentState.childCaller());
    this.depth = init.parent === undefined ? 0 : (parentState?.depth ?? 0) + 1;
    this.rootCallId = parentState?.rootCallId ?? init.rootCallId;
    this.idempotencyKey = init.idempotencyKey;
    this.token = Symbol(`tool-execution:${init.callId}`);
    this.arguments = init.arguments;
    this.callerSignal = init.callerSignal;
    this.#signal = init.callerSignal;
    this.#fencingToken = init.fencingToken;
    this.session = init.session;
    this.view = new ExecutionView(this);
    // Read-only at run time too, not only for TypeScript: a hook must not rename the call,
    // change its caller or token, or swap its arguments. One freeze (the mutable state
    // lives in private fields, which freezing leaves alone) rather than a
    // defineProperty per field, which costs microseconds on every call.
    Object.freeze(this);
  }

  get signal(): AbortSignal {
    return this.#signal;
  }
  set signal(next: AbortSignal) {
    if (this.#phase !== 'around')
      throw new TypeError('exec.signal can only be swapped by a tools/execute wrapper, while it runs');
    if (!(next instanceof AbortSignal)) throw new TypeError('exec.signal must be an AbortSignal');
    this.#signal = next;
  }
  get bodyInvoked(): boolean {
    return this.#bodyInvoked;
  }
  get fencingToken(): number | undefined {
    return this.#fencingToken;
  }
  get concluded(): boolean {
    return this.#concluded;
  }
  get phase(): Phase {
    return this.#phase;
  }
  /** Contexts deferred by the body and hooks so far. */
  get deferredContexts(): readonly ContextMessage[] {
    return [...this.#contexts];
  }

  deferContext(message: ContextMessage): void {
    if (this.#phase === 'done') throw new TypeError(`deferContext: execution "${this.callId}" has finished`);
    this.#contexts.push(checkContext(message, 'deferContext(message)'));
  }
  concludeTurn(): void {
    if (this.#phase === 'done') throw new TypeError(`concludeTurn: execution "${this.callId}" has finished`);
    this.#concluded = true;
  }

  callTool(name: string, args: unknown): Promise<ToolResult> {
    const call = this.#callTool;
    if (call === undefined) {
      return Promise.reject(
        new ToolRuntimeError(
          'NOT_DISPATCHED',
          `exec.callTool(${JSON.stringify(String(name))}): nested calls are made only while the body of "${this.name}" runs`,
        ),
      );
    }
    return call(name, args);
  }
  /** The definition whose body ran (or that validated a wrapper's own success). */
  get definition(): Tool | undefined {
    return this.#definition;
  }

  // ---- pipeline-only ----
  /** The caller of this execution's nested calls: one frozen value, made at the first (a run makes many). */
  childCaller(): ToolCaller {
    this.#childCaller ??= nestedCaller(this);
    return this.#childCaller;
  }
  /** While the body runs: where `callTool` goes, and this execution can be a parent; undefined ends both. */
  setCallTool(call: CallTool | undefined): void {
    this.#callTool = call;
    if (call === undefined) runningBodies.delete(this.token);
    else runningBodies.set(this.token, this);
  }
  useDefinition(tool: Tool): void {
    if (this.#phase !== 'done') this.#definition = tool;
  }
  // A finished execution stays finished: a body that a wrapper gave up on (timeout
  // policy) may settle later and must not reopen it.
  enterPhase(phase: Phase): void {
    if (this.#phase !== 'done') this.#phase = phase;
  }
  /** At body start: the fused signal; after settle: the wrapper's signal again. */
  setBodySignal(signal: AbortSignal): void {
    if (this.#phase !== 'done') this.#signal = signal;
  }
  markBodyInvoked(): void {
    this.#bodyInvoked = true;
  }
  /** The token of the fenced resource lock the body holds (it takes the place of a claim's). */
  setFencingToken(token: number): void {
    this.#fencingToken = token;
  }
  finish(): void {
    this.#phase = 'done';
    Object.freeze(this);
  }
}
