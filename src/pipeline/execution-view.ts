// What hooks, guards and the body receive for one execution: identity fields read-only,
// `signal` swappable only through the state's own check, and none of the pipeline-only
// controls. The same own properties, in the same order, as a frozen object literal would
// have — but an object literal with accessors costs ~2 µs per call to build (V8 makes it
// a dictionary) and every read of it is a slow lookup; this class shares one pair of
// accessors across all views, so each view is a small frozen object with a fast shape.
import type { JsonValue } from '../json/json-value.ts';
import type { ToolSession } from './tool-session.ts';
import type { ToolCaller } from './tool-caller.ts';
import type { ToolExecution } from './tool-execution.ts';
import type { ContextMessage, ToolResult } from './tool-result.ts';

// The execution a view shows is an ExecutionState (execution-state.ts), typed here by its
// interface so the two files do not import each other; its `signal` setter does the check.
let signalProperty: PropertyDescriptor;
let bodyInvokedProperty: PropertyDescriptor;
let fencingTokenProperty: PropertyDescriptor;

export class ExecutionView implements ToolExecution {
  readonly #state: ToolExecution;
  declare readonly callId: string;
  declare readonly name: string;
  declare readonly agent: string | undefined;
  declare readonly parent: symbol | undefined;
  declare readonly parentCallId: string | undefined;
  declare readonly caller: ToolCaller;
  declare readonly rootCallId: string;
  declare readonly idempotencyKey: string;
  declare readonly token: symbol;
  declare readonly arguments: JsonValue;
  declare readonly callerSignal: AbortSignal;
  declare signal: AbortSignal;
  declare readonly bodyInvoked: boolean;
  declare readonly fencingToken: number | undefined;
  declare readonly session: ToolSession | undefined;
  declare readonly deferContext: (message: ContextMessage) => void;
  declare readonly concludeTurn: () => void;
  declare readonly callTool: (name: string, args: unknown) => Promise<ToolResult>;

  static {
    // Own, enumerable, non-configurable accessors, one function pair for every view.
    signalProperty = {
      get(this: ExecutionView): AbortSignal {
        return this.#state.signal;
      },
      set(this: ExecutionView, next: AbortSignal) {
        this.#state.signal = next;
      },
      enumerable: true,
      configurable: false,
    };
    bodyInvokedProperty = {
      get(this: ExecutionView): boolean {
        return this.#state.bodyInvoked;
      },
      enumerable: true,
      configurable: false,
    };
    fencingTokenProperty = {
      get(this: ExecutionView): number | undefined {
        return this.#state.fencingToken;
      },
      enumerable: true,
      configurable: false,
    };
  }

  constructor(state: ToolExecution) {
    this.#state = state;
    const self = this as { -readonly [K in keyof ToolExecution]: ToolExecution[K] };
    self.callId = state.callId;
    self.name = state.name;
    self.agent = state.agent;
    self.parent = state.parent;
    self.parentCallId = state.parentCallId;
    self.caller = state.caller;
    self.rootCallId = state.rootCallId;
    self.idempotencyKey = state.idempotencyKey;
    self.token = state.token;
    self.arguments = state.arguments;
    self.callerSignal = state.callerSignal;
    Object.defineProperty(this, 'signal', signalProperty);
    Object.defineProperty(this, 'bodyInvoked', bodyInvokedProperty);
    Object.defineProperty(this, 'fencingToken', fencingTokenProperty);
    Object.defineProperty(this, 'session', { value: state.session, enumerable: true });
    // Own functions, not methods: a body may destructure them (`{ deferContext }`).
    self.deferContext = (message) => state.deferContext(message);
    self.concludeTurn = () => state.concludeTurn();
    self.callTool = (name, args) => state.callTool(name, args);
    Object.freeze(this);
  }
}
