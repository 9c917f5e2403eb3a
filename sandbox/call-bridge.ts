// The host side of nested calls for one run: invokes the caller's HostCall with its own
// caps (call budget, concurrency; the excess waits), turns every host failure into a
// plain outcome (a host exception never crosses as an object, a rejected promise never
// reaches isolated-vm), aborts in-flight calls when the run ends and lets the run wait
// for them to settle, bounded by a grace period.
import type { HostCall, HostCallOutcome, HostCallRequest } from './types.ts';

export interface DispatchRequest {
  readonly seq: number;
  readonly toolName: string;
  readonly argsJson: string;
}

/** Where an isolate run sends nested calls; `call` always resolves. */
export interface CallDispatcher {
  call(request: DispatchRequest): Promise<HostCallOutcome>;
  /** The run is over: abort in-flight calls, abandon queued ones, refuse new ones. */
  close(): void;
  /** The program aborted call `seq` (`tools.x(args, { signal })`): abort it on the host if it is still running. */
  cancel(seq: number): void;
  /**
   * A call the guest is blocked on, dispatched by blocking this thread until the host
   * answers (process mode, blocking-call-pipe.ts): the outcome; a promise of it when the
   * host let the call go on asynchronously; undefined when this dispatcher cannot block
   * now (nothing was dispatched: `call` it instead).
   */
  callBlocking?(request: DispatchRequest): HostCallOutcome | Promise<HostCallOutcome> | undefined;
}

export type BridgeViolation = 'call-limit' | 'exception';

export interface CallBridgeOptions {
  readonly hostCall: HostCall;
  readonly toolNames: readonly string[];
  readonly maxCalls: number;
  readonly maxConcurrentCalls: number;
  /** A request broke the contract the guest enforces (its run should fail). */
  readonly onViolation?: (kind: BridgeViolation, message: string) => void;
}

const MAX_MESSAGE_CHARS = 8_192;

export const notDispatched = (toolName: string): HostCallOutcome => ({
  ok: false,
  code: 'NOT_DISPATCHED',
  message: `tools.${toolName} was not dispatched: the run had already ended`,
});

/** A call started on the host and not settled yet; `index` is its place in the bridge's list. */
interface Started {
  readonly seq: number;
  readonly controller: AbortController;
  running: Promise<HostCallOutcome> | undefined;
  index: number;
}

export class CallBridge implements CallDispatcher {
  readonly #options: CallBridgeOptions;
  readonly #toolNames: ReadonlySet<string>;
  // A list, not a Map and a Set: at most maxConcurrentCalls long, and a program awaiting
  // one call at a time would add and delete a hash-table entry (and now and then rebuild
  // the table) on every call.
  readonly #started: Started[] = [];
  readonly #queue: {
    request: DispatchRequest;
    resolve: (outcome: HostCallOutcome | Promise<HostCallOutcome>) => void;
  }[] = [];
  #closed = false;
  #retired = false;
  #lastSeq = 0;

  constructor(options: CallBridgeOptions) {
    this.#options = options;
    this.#toolNames = new Set(options.toolNames);
  }

  /** Calls started on the host and not settled yet. */
  get inFlight(): number {
    return this.#started.length;
  }

  call(request: DispatchRequest): Promise<HostCallOutcome> {
    if (this.#closed || this.#retired) return Promise.resolve(notDispatched(request.toolName));
    if (request.seq !== this.#lastSeq + 1) {
      this.#options.onViolation?.(
        'exception',
        `sandbox protocol error: call #${request.seq} arrived after #${this.#lastSeq}`,
      );
      return Promise.resolve({ ok: false, code: 'PROTOCOL_ERROR', message: 'call out of order: not dispatched' });
    }
    this.#lastSeq = request.seq;
    if (request.seq > this.#options.maxCalls) {
      const message = `The program made more than ${this.#options.maxCalls} tool calls (the limit of one run).`;
      this.#options.onViolation?.('call-limit', message);
      return Promise.resolve({ ok: false, code: 'CALL_LIMIT', message });
    }
    if (!this.#toolNames.has(request.toolName)) {
      return Promise.resolve({
        ok: false,
        code: 'UNKNOWN_TOOL',
        message: `tools.${request.toolName} is not bound in this run`,
      });
    }
    if (this.#started.length < this.#options.maxConcurrentCalls) return this.#start(request);
    return new Promise((resolve) => this.#queue.push({ request, resolve }));
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    // In the order the calls started.
    const started = [...this.#started].sort((a, b) => a.seq - b.seq);
    for (const call of started) call.controller.abort(new Error('the run ended'));
    for (const { request, resolve } of this.#queue.splice(0)) resolve(notDispatched(request.toolName));
  }

  cancel(seq: number): void {
    const active = this.#started.find((started) => started.seq === seq);
    if (active !== undefined) {
      active.controller.abort(new Error('the program aborted this call'));
      return;
    }
    const index = this.#queue.findIndex((item) => item.request.seq === seq);
    const [queued] = index < 0 ? [] : this.#queue.splice(index, 1);
    queued?.resolve({
      ok: false,
      code: 'ABORTED',
      message: `tools.${queued.request.toolName} was aborted by the program`,
    });
  }

  /**
   * The attempt this bridge served is gone but its run goes on elsewhere: refuse new
   * calls and drop queued ones, while calls already started keep running (a re-run
   * awaits their outcomes instead of issuing them again). `close()` still aborts them.
   */
  retire(): void {
    this.#retired = true;
    for (const { request, resolve } of this.#queue.splice(0)) resolve(notDispatched(request.toolName));
  }

  /** Resolves once every started call has settled, or after `graceMs`; returns how many are still running. */
  async settled(graceMs: number): Promise<number> {
    if (this.#started.length === 0) return 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.all(this.#started.map((started) => started.running)), grace]);
    clearTimeout(timer);
    return this.#started.length;
  }

  /** Starts the host call now; its promise settles when the call is over (its slot is freed first). */
  #start(request: DispatchRequest): Promise<HostCallOutcome> {
    const controller = new AbortController();
    const started: Started = { seq: request.seq, controller, running: undefined, index: this.#started.length };
    this.#started.push(started);
    const hostRequest: HostCallRequest = {
      seq: request.seq,
      toolName: request.toolName,
      argsJson: request.argsJson,
      signal: controller.signal,
    };
    const settled = (outcome: HostCallOutcome): HostCallOutcome => {
      // Its place goes to the last one (order does not matter here).
      const last = this.#started.pop()!;
      if (last !== started) {
        this.#started[started.index] = last;
        last.index = started.index;
      }
      this.#next();
      return outcome;
    };
    // safeHostCall's steps without its async frame: one promise per call fewer.
    let called: Promise<unknown>;
    try {
      called = Promise.resolve(this.#options.hostCall(hostRequest));
    } catch (error) {
      called = Promise.reject(error);
    }
    const toolName = request.toolName;
    const running: Promise<HostCallOutcome> = called.then(
      (outcome) => settled(normalizeOutcome(outcome, toolName)),
      (error: unknown) => settled(hostCallFailed(error)),
    );
    started.running = running;
    return running;
  }

  #next(): void {
    while (
      !this.#closed &&
      !this.#retired &&
      this.#queue.length > 0 &&
      this.#started.length < this.#options.maxConcurrentCalls
    ) {
      const item = this.#queue.shift();
      if (item !== undefined) item.resolve(this.#start(item.request));
    }
  }
}

/** Runs a HostCall so that it always resolves with a well-formed outcome, whatever it throws or returns. */
export async function safeHostCall(hostCall: HostCall, request: HostCallRequest): Promise<HostCallOutcome> {
  let outcome: unknown;
  try {
    outcome = await hostCall(request);
  } catch (error) {
    return hostCallFailed(error);
  }
  return normalizeOutcome(outcome, request.toolName);
}

function hostCallFailed(error: unknown): HostCallOutcome {
  return { ok: false, code: 'HOST_CALL_FAILED', message: describeHostError(error) };
}

function normalizeOutcome(outcome: unknown, toolName: string): HostCallOutcome {
  try {
    if (typeof outcome === 'object' && outcome !== null) {
      const record = outcome as Record<string, unknown>;
      const ok = record['ok'];
      if (ok === true) {
        const valueJson = record['valueJson'];
        if (typeof valueJson === 'string') return { ok: true, valueJson, at: outcomeTime(record['at']) };
      } else if (ok === false) {
        const code = record['code'];
        const message = record['message'];
        if (typeof code === 'string' && typeof message === 'string') {
          return {
            ok: false,
            code: clip(code, 200),
            message: clip(message, MAX_MESSAGE_CHARS),
            at: outcomeTime(record['at']),
          };
        }
      }
    }
  } catch {
    // a hostile outcome object (throwing getters, Proxy): reported below
  }
  return {
    ok: false,
    code: 'INVALID_HOST_OUTCOME',
    message: `the host returned a malformed outcome for tools.${toolName}`,
  };
}

/** The host's recorded time of an outcome, or now: a crash re-run answered from the call record then sees the same time. */
function outcomeTime(at: unknown): number {
  return typeof at === 'number' && Number.isFinite(at) ? at : Date.now();
}

function describeHostError(error: unknown): string {
  try {
    if (error instanceof Error && typeof error.message === 'string' && error.message !== '') {
      return clip(error.message, MAX_MESSAGE_CHARS);
    }
    if (typeof error === 'string' && error !== '') return clip(error, MAX_MESSAGE_CHARS);
  } catch {
    // unreadable error value: fall through
  }
  return 'the host call failed';
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}
