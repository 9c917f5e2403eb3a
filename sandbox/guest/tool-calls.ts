// The `tools` functions and `ToolCallError`: a call is serialized strictly, numbered,
// counted against the call budget, and sent when a slot is free (the excess waits in
// FIFO order); `deliver` settles it with the host's answer.
import type { GuestDelivery } from '../guest-protocol.ts';
import { postCall } from './host-link.ts';
import {
  apply,
  charCodeAt,
  defineProperty,
  ErrorCtor,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  isArray,
  NumberCtor,
  parse,
  PromiseCtor,
  RangeErrorCtor,
  stringIndexOf,
  stringSlice,
} from './intrinsics.ts';
import { describeThrown } from './format-value.ts';
import { advanceClock } from './deterministic-sources.ts';
import { fatal, pending, pendingCall, queue, queuedCall, run, type PendingCall, type QueuedCall } from './run-state.ts';
import { isProblem, toJson } from './strict-json.ts';
import { afterDispatch, callSignal, followSignal } from './call-signal.ts';

export class ToolCallError extends ErrorCtor {
  declare readonly toolName: string;
  declare readonly code: string;
  constructor(toolName: string, code: string, message: string) {
    super(message);
    defineProperty(this, 'toolName', { value: '' + toolName, writable: true, enumerable: true, configurable: true });
    defineProperty(this, 'code', { value: '' + code, writable: true, enumerable: true, configurable: true });
  }
}
defineProperty(ToolCallError.prototype, 'name', {
  value: 'ToolCallError',
  writable: true,
  enumerable: false,
  configurable: true,
});

const RangeErrorProto = RangeErrorCtor.prototype;

function rejected(error: unknown): Promise<never> {
  return new PromiseCtor<never>((_resolve, reject) => {
    reject(error);
  });
}

/** Queues the call for the host; false when it could not even be encoded (no stack left). */
function dispatch(item: QueuedCall): boolean {
  try {
    postCall(item);
  } catch {
    return false;
  }
  run.inFlight++;
  afterDispatch(item.seq);
  return true;
}

const outOfStack = (name: string): ToolCallError =>
  new ToolCallError(
    name,
    'NOT_DISPATCHED',
    'tools.' +
      name +
      ' could not be sent (was it called with the stack nearly exhausted, e.g. deep in a recursion?): not dispatched',
  );

/**
 * The engine's own stack overflow (its RangeError, with the engine's message): converting
 * the arguments ran out of stack, which says nothing about the arguments. Where it strikes
 * depends on the engine's frame sizes, so it must not decide how a call is refused.
 */
function isStackOverflow(error: unknown): boolean {
  if (error === null || typeof error !== 'object' || getPrototypeOf(error) !== RangeErrorProto) return false;
  return getOwnPropertyDescriptor(error, 'message')?.value === 'Maximum call stack size exceeded';
}

function notSent(item: QueuedCall): void {
  const entry = pending[item.seq];
  delete pending[item.seq];
  if (entry !== undefined) entry.reject(outOfStack(item.name));
}

function pump(): void {
  while (!run.settled && run.inFlight < run.maxConcurrent && run.queueHead < run.queueTail) {
    const item = queue[run.queueHead];
    queue[run.queueHead] = undefined;
    run.queueHead++;
    if (item !== undefined && !dispatch(item)) {
      // Later calls already hold later numbers, so this one cannot be given back: the run fails.
      notSent(item);
      fatal('exception', 'tools.' + item.name + ' call #' + item.seq + ' could not be sent to the host');
    }
  }
}

const afterEnd = (name: string): ToolCallError =>
  new ToolCallError(name, 'NOT_DISPATCHED', 'tools.' + name + ' was called after the program finished: not dispatched');

function submitWithSignal(name: string, args: unknown, options: unknown): Promise<unknown> {
  const signal = callSignal(name, options);
  if (signal === undefined) return submit(name, args);
  if (signal.aborted) return rejected(signal.reason);
  const before = run.calls;
  const promise = submit(name, args);
  // Accepted (numbered and queued or sent): it follows the signal from now on.
  if (run.calls === before + 1 && pending[run.calls] !== undefined) followSignal(signal, run.calls);
  return promise;
}

// One executor for every call's promise (no closure made per call): it hands the
// settlers over through these two, read and cleared right after the promise is made.
let capturedResolve: ((value: unknown) => void) | undefined;
let capturedReject: ((error: unknown) => void) | undefined;
function captureSettlers(resolve: (value: unknown) => void, reject: (error: unknown) => void): void {
  capturedResolve = resolve;
  capturedReject = reject;
}

function submit(name: string, args: unknown): Promise<unknown> {
  if (run.settled) return rejected(afterEnd(name));
  let json: string | undefined;
  try {
    json = toJson(args === undefined ? {} : args, run.maxArgsBytes);
  } catch (error) {
    if (isProblem(error)) {
      if (error.tooLarge) {
        return rejected(
          new ToolCallError(
            name,
            'ARGS_TOO_LARGE',
            'tools.' + name + ' arguments are larger than ' + run.maxArgsBytes + ' bytes as JSON: not dispatched',
          ),
        );
      }
      return rejected(
        new ToolCallError(
          name,
          'INVALID_ARGS',
          'tools.' + name + ' arguments are not JSON: ' + error.reason + ' at args' + error.path + ': not dispatched',
        ),
      );
    }
    if (isStackOverflow(error)) return rejected(outOfStack(name));
    return rejected(
      new ToolCallError(
        name,
        'INVALID_ARGS',
        'tools.' +
          name +
          ' arguments could not be converted to JSON (' +
          describeThrown(error).text +
          '): not dispatched',
      ),
    );
  }
  if (json === undefined) json = '{}';
  if (run.settled) return rejected(afterEnd(name));
  const seq = run.calls + 1;
  if (seq > run.maxCalls) {
    run.calls = seq;
    const message = 'The program made more than ' + run.maxCalls + ' tool calls (the limit of one run).';
    fatal('call-limit', message);
    return rejected(new ToolCallError(name, 'CALL_LIMIT', message));
  }
  // The call's promise and records are made before it takes its number: running out of
  // stack here sends nothing and gives no number away.
  capturedResolve = undefined;
  capturedReject = undefined;
  const promise = new PromiseCtor<unknown>(captureSettlers);
  const resolveCall = capturedResolve as ((value: unknown) => void) | undefined;
  const rejectCall = capturedReject as ((error: unknown) => void) | undefined;
  capturedResolve = undefined;
  capturedReject = undefined;
  // The executor itself found no stack: the promise is rejected with that RangeError.
  if (resolveCall === undefined || rejectCall === undefined) return promise;
  const entry = pendingCall(name, resolveCall, rejectCall);
  const item = queuedCall(seq, name, json);
  run.calls = seq;
  pending[seq] = entry;
  if (run.inFlight >= run.maxConcurrent) {
    queue[run.queueTail++] = item;
  } else if (!dispatch(item)) {
    // Nothing crossed: the number is given back, so the host still sees calls in order.
    run.calls--;
    notSent(item);
  }
  return promise;
}

/**
 * `tools[name]`: a plain function returning a promise (it behaves as an async function;
 * its prototype chain is the ordinary Function.prototype).
 */
export function makeTool(name: string): (args?: unknown) => Promise<unknown> {
  const tool = function (args?: unknown): Promise<unknown> {
    try {
      // The options argument is read only when given: a call without it uses exactly the
      // stack it did before, so calls made near the stack limit are sent or refused as before.
      // biome-ignore lint/complexity/noArguments: the optional second argument, { signal }
      if (arguments.length < 2) return submit(name, args);
      // biome-ignore lint/complexity/noArguments: the optional second argument, { signal }
      return submitWithSignal(name, args, arguments[1]);
    } catch (error) {
      return rejected(error);
    }
  };
  defineProperty(tool, 'name', { value: name, configurable: true });
  return tool;
}

/** Host -> guest: the outcome of one call, or of several in order, as JSON text. */
export function deliver(text: string): void {
  let parsed: GuestDelivery | readonly GuestDelivery[];
  try {
    parsed = parse(text) as GuestDelivery | readonly GuestDelivery[];
  } catch {
    return;
  }
  if (!isArray(parsed)) {
    settle(parsed as GuestDelivery);
    return;
  }
  for (let i = 0; i < parsed.length; i++) settle(parsed[i] as GuestDelivery);
}

function settle(message: GuestDelivery): void {
  if (message.ok === true) {
    settleValue(message.seq, message.at, message.value);
    return;
  }
  const entry = take(message.seq, message.at);
  if (entry === undefined) return;
  entry.reject(new ToolCallError(entry.name, '' + message.code, '' + message.message));
  pump();
}

/**
 * The host's reply to the call the program was blocked on: `v<seq> <at> <value JSON>`
 * when the tool returned a value (its JSON as it is: neither side escapes it again),
 * else a delivery's JSON (an error).
 */
export function settleBlocked(reply: string): void {
  if (apply(charCodeAt, reply, [0]) !== 118) {
    deliver(reply);
    return;
  }
  const afterSeq = apply(stringIndexOf, reply, [' ', 1]) as number;
  const afterAt = afterSeq < 0 ? -1 : (apply(stringIndexOf, reply, [' ', afterSeq + 1]) as number);
  if (afterAt < 0) return; // not from this host: dropped, as an unreadable delivery is
  settleValue(
    NumberCtor(apply(stringSlice, reply, [1, afterSeq])),
    NumberCtor(apply(stringSlice, reply, [afterSeq + 1, afterAt])),
    apply(stringSlice, reply, [afterAt + 1]) as string,
  );
}

/** Call `seq`'s pending entry, now answered (at the host's time `at`); undefined if none. */
function take(seq: number, at: unknown): PendingCall | undefined {
  const entry = pending[seq];
  if (entry === undefined) return undefined;
  delete pending[seq];
  run.inFlight--;
  // An I/O event: the guest clock moves to the time the host recorded for it.
  advanceClock(at);
  return entry;
}

function settleValue(seq: number, at: unknown, valueJson: string): void {
  const entry = take(seq, at);
  if (entry === undefined) return;
  let value: unknown;
  let valid = true;
  try {
    value = parse(valueJson);
  } catch {
    valid = false;
  }
  if (valid) entry.resolve(value);
  else
    entry.reject(
      new ToolCallError(entry.name, 'INVALID_RESULT', 'tools.' + entry.name + ' returned a value that is not JSON'),
    );
  pump();
}

/** The run is over: calls still waiting for a slot are abandoned, never dispatched. */
export function abandonQueue(): void {
  run.queueHead = run.queueTail;
}
