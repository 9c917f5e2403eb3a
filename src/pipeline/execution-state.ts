// The mutable side of one execution, behind the read-only ToolExecution view.
import type { JsonValue } from '../json/json-value.ts';
import { checkContext } from './content.ts';
import type { ToolExecution } from './tool-execution.ts';
import type { ContextMessage } from './tool-result.ts';

export type Phase = 'policy' | 'around' | 'body' | 'post' | 'done';

export interface ExecutionInit {
  readonly callId: string;
  readonly name: string;
  readonly agent: string | undefined;
  readonly parent: symbol | undefined;
  readonly rootCallId: string;
  readonly arguments: JsonValue;
  readonly callerSignal: AbortSignal;
}

export class ExecutionState implements ToolExecution {
  readonly callId: string;
  readonly name: string;
  readonly agent: string | undefined;
  readonly parent: symbol | undefined;
  readonly rootCallId: string;
  readonly token: symbol;
  readonly arguments: JsonValue;
  readonly callerSignal: AbortSignal;
  #signal: AbortSignal;
  #phase: Phase = 'policy';
  #bodyInvoked = false;
  #concluded = false;
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
    this.rootCallId = init.rootCallId;
    this.token = Symbol(`tool-execution:${init.callId}`);
    this.arguments = init.arguments;
    this.callerSignal = init.callerSignal;
    this.#signal = init.callerSignal;
    const state = this;
    this.view = Object.freeze({
      callId: this.callId,
      name: this.name,
      agent: this.agent,
      parent: this.parent,
      rootCallId: this.rootCallId,
      token: this.token,
      arguments: this.arguments,
      callerSignal: this.callerSignal,
      get signal(): AbortSignal {
        return state.signal;
      },
      set signal(next: AbortSignal) {
        state.signal = next;
      },
      get bodyInvoked(): boolean {
        return state.bodyInvoked;
      },
      deferContext: (message: ContextMessage): void => state.deferContext(message),
      concludeTurn: (): void => state.concludeTurn(),
    });
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
    if (this.#phase !== 'around') throw new TypeError('exec.signal can only be swapped by a tools/execute wrapper, while it runs');
    if (!(next instanceof AbortSignal)) throw new TypeError('exec.signal must be an AbortSignal');
    this.#signal = next;
  }
  get bodyInvoked(): boolean {
    return this.#bodyInvoked;
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

  // ---- pipeline-only ----
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
  finish(): void {
    this.#phase = 'done';
    Object.freeze(this);
  }
}
