// The guest's only way out: the send callback the host installed, captured before any
// program code runs and removed from the global. Messages go out as JSON text. Tool
// calls made in one synchronous stretch of the program (a Promise.all, say) are queued
// and cross together in one message at the next microtask; any other message sends the
// queued calls first, so the host sees everything in the order the program did it.
// A call the program is only waiting on may instead block the isolate until the host
// answers (blocking-calls.ts decides when).
import { writeBlockedCall } from '../blocked-call-text.ts';
import { BLOCKING_CALL_GLOBAL, type GuestMessage, SEND_GLOBAL } from '../guest-protocol.ts';
import { apply, create, PromiseCtor, promiseThen } from './intrinsics.ts';

const scope = globalThis as unknown as Record<string, unknown>;
const send = scope[SEND_GLOBAL] as (text: string) => void;
delete scope[SEND_GLOBAL];
// The host's blocking call (absent when the sandbox sends every call asynchronously).
const blockingRef = scope[BLOCKING_CALL_GLOBAL] as { applySyncPromise?: unknown } | undefined;
delete scope[BLOCKING_CALL_GLOBAL];
const applySyncPromise =
  typeof blockingRef?.applySyncPromise === 'function'
    ? (blockingRef.applySyncPromise as (...args: unknown[]) => unknown)
    : undefined;

/** When a lone call may block the isolate, and where its answer goes (blocking-calls.ts). */
export interface BlockingPath {
  allowed(): boolean;
  /** The host's reply to the blocked call (tool-calls.ts settleBlocked). */
  settle(reply: string): void;
}
let blockingPath: BlockingPath | undefined;
export function useBlockingPath(path: BlockingPath): void {
  blockingPath = path;
}
const stringifyMessage = JSON.stringify;
const settledPromise: Promise<void> = new PromiseCtor<void>((resolve) => {
  resolve();
});

/**
 * A record built with `__proto__: null`: JSON.stringify then finds no `toJSON` the
 * program may have planted on Object.prototype.
 */
export type Bare<T> = T & { readonly __proto__?: null };

/** A call to send: its number, its tool, and its arguments' JSON. */
export interface OutgoingCall {
  readonly seq: number;
  readonly name: string;
  readonly args: string;
}

// Calls queued in this synchronous stretch; a record, never an array (an index setter
// the program plants on Array.prototype must not intercept them). Their text is written
// when they are sent: as a blocked call's frame, or as JSON messages.
const outgoing = create(null) as Record<number, OutgoingCall>;
let outgoingCount = 0;
let flushScheduled = false;
// The last tool name called and its JSON: a program usually calls one tool many times.
let lastTool: string | undefined;
let lastToolJson = '';

/**
 * Queues one tool call; it crosses with the others of this synchronous stretch. Only
 * scheduling the flush can throw here (no stack left), before the call is queued: a
 * call the program is told was not sent must never be sent later.
 */
export function postCall(call: OutgoingCall): void {
  if (!flushScheduled) {
    apply(promiseThen, settledPromise, FLUSH_LATER);
    flushScheduled = true;
  }
  outgoing[outgoingCount] = call;
  outgoingCount++;
}

/**
 * A call message (a CallMessage) written as text directly: only strings go through
 * JSON.stringify, so no object of the program's realm is read and none is built.
 */
function callMessage(call: OutgoingCall): string {
  if (call.name !== lastTool) {
    lastToolJson = stringifyMessage(call.name);
    lastTool = call.name;
  }
  return '{"t":"call","seq":' + call.seq + ',"tool":' + lastToolJson + ',"args":' + stringifyMessage(call.args) + '}';
}

/**
 * Microtask turns a lone call waits before it blocks the isolate: a program that goes on
 * without awaiting it (returns, logs, makes another call) shows it by then, and the call
 * goes the asynchronous way instead.
 */
const TURNS_BEFORE_BLOCKING = 3;
let turnsWaited = 0;

function flushQueuedCalls(): void {
  if (outgoingCount === 1 && turnsWaited < TURNS_BEFORE_BLOCKING && mayBlock()) {
    turnsWaited++;
    apply(promiseThen, settledPromise, FLUSH_LATER);
    return;
  }
  turnsWaited = 0;
  flushScheduled = false;
  if (outgoingCount === 1 && callBlocking()) return;
  if (!sendQueuedCalls() && !flushScheduled) {
    // Could not send (no stack left): try again from a fresh stack.
    flushScheduled = true;
    apply(promiseThen, settledPromise, FLUSH_LATER);
  }
}
// The argument lists of the calls made on every tool call, made once (only this module
// holds them; applySyncPromise copies its arguments before the host sees them).
const FLUSH_LATER: readonly unknown[] = [flushQueuedCalls];
const BLOCKING_ARGS: unknown[] = [''];
const BLOCKING_APPLY: readonly unknown[] = [undefined, BLOCKING_ARGS];

/**
 * Sends the one queued call by blocking the isolate on it, when the program has nothing
 * else in flight: the host's answer is the return value (no task crosses back). A reply
 * of '' means the call was taken and its outcome comes the asynchronous way. False
 * (nothing sent) when the asynchronous path must send it.
 */
function mayBlock(): boolean {
  return applySyncPromise !== undefined && blockingPath?.allowed() === true;
}

function callBlocking(): boolean {
  if (applySyncPromise === undefined || blockingPath === undefined || !blockingPath.allowed()) return false;
  let reply: unknown;
  const call = outgoing[0] as OutgoingCall;
  BLOCKING_ARGS[0] = writeBlockedCall(call.seq, call.name, call.args);
  try {
    reply = apply(applySyncPromise, blockingRef, BLOCKING_APPLY);
  } catch {
    // Thrown before the call crossed (no stack left) or the isolate is going away.
    BLOCKING_ARGS[0] = '';
    return false;
  }
  BLOCKING_ARGS[0] = '';
  delete outgoing[0];
  outgoingCount = 0;
  if (typeof reply === 'string' && reply !== '') blockingPath.settle(reply);
  return true;
}

/** Sends the queued calls as one message; false (nothing sent, nothing lost) if sending failed. */
function sendQueuedCalls(): boolean {
  const count = outgoingCount;
  if (count === 0) return true;
  try {
    let text = callMessage(outgoing[0] as OutgoingCall);
    if (count > 1) {
      text = '{"t":"calls","calls":[' + text;
      for (let i = 1; i < count; i++) text = text + ',' + callMessage(outgoing[i] as OutgoingCall);
      text = text + ']}';
    }
    send(text);
  } catch {
    return false;
  }
  for (let i = 0; i < count; i++) delete outgoing[i];
  outgoingCount = 0;
  return true;
}

/**
 * True when the message was handed to the host (after any queued calls). It fails only
 * when the program left (almost) no stack; the caller then handles the message as unsent.
 */
export function post(message: Bare<GuestMessage>): boolean {
  if (!sendQueuedCalls()) return false;
  try {
    send(stringifyMessage(message));
    return true;
  } catch {
    return false;
  }
}
