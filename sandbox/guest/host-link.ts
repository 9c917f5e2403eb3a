// The guest's only way out: the send callback the host installed, captured before any
// program code runs and removed from the global. Messages go out as JSON text.
import { SEND_GLOBAL, type GuestMessage } from '../guest-protocol.ts';

const scope = globalThis as unknown as Record<string, unknown>;
const send = scope[SEND_GLOBAL] as (text: string) => void;
delete scope[SEND_GLOBAL];
const stringifyMessage = JSON.stringify;

/**
 * A record built with `__proto__: null`: JSON.stringify then finds no `toJSON` the
 * program may have planted on Object.prototype.
 */
export type Bare<T> = T & { readonly __proto__?: null };

/**
 * True when the message was handed to the host. It fails only when the program made the
 * call with (almost) no stack left; the caller then refuses the call inside the program.
 */
export function post(message: Bare<GuestMessage>): boolean {
  try {
    send(stringifyMessage(message));
    return true;
  } catch {
    return false;
  }
}
