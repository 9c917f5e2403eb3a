// The guest's only way out: the send callback the host installed, captured before any
// program code runs and removed from the global. Messages go out as JSON text. Tool
// calls made in one synchronous stretch of the program (a Promise.all, say) are queued
// and cross together in one message at the next microtask; any other message sends the
// queued calls first, so the host sees everything in the order the program did it.
import { type GuestMessage, SEND_GLOBAL } from '../guest-protocol.ts';
import { apply, create, PromiseCtor, promiseThen } from './intrinsics.ts';

const scope = globalThis as unknown as Record<string, unknown>;
const send = scope[SEND_GLOBAL] as (text: string) => void;
delete scope[SEND_GLOBAL];
const stringifyMessage = JSON.stringify;
const settledPromise: Promise<void> = new PromiseCtor<void>((resolve) => {
  resolve();
});

/**
 * A record built with `__proto__: null`: JSON.stringify then finds no `toJSON` the
 * program may have planted on Object.prototype.
 */
export type Bare<T> = T & { readonly __proto__?: null };

export type CallMessage = Extract<GuestMessage, { t: 'call' }>;

// Queued call messages as JSON text; a record, never an array (an index setter the
// program plants on Array.prototype must not intercept them).
const outgoing = create(null) as Record<number, string>;
let outgoingCount = 0;
let flushScheduled = false;

/** Queues one tool call; it crosses with the others of this synchronous stretch. */
export function postCall(message: Bare<CallMessage>): void {
  // Everything that can throw (no stack left) happens before the call is queued: a call
  // the program is told was not sent must never be sent later.
  const text = stringifyMessage(message);
  if (!flushScheduled) {
    apply(promiseThen, settledPromise, [flushQueuedCalls]);
    flushScheduled = true;
  }
  outgoing[outgoingCount] = text;
  outgoingCount++;
}

function flushQueuedCalls(): void {
  flushScheduled = false;
  if (!sendQueuedCalls() && !flushScheduled) {
    // Could not send (no stack left): try again from a fresh stack.
    flushScheduled = true;
    apply(promiseThen, settledPromise, [flushQueuedCalls]);
  }
}

/** Sends the queued calls as one message; false (nothing sent, nothing lost) if sending failed. */
function sendQueuedCalls(): boolean {
  const count = outgoingCount;
  if (count === 0) return true;
  let text = outgoing[0] as string;
  if (count > 1) {
    text = '{"t":"calls","calls":[' + text;
    for (let i = 1; i < count; i++) text = text + ',' + (outgoing[i] as string);
    text = text + ']}';
  }
  try {
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
