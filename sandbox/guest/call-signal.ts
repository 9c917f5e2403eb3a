// `tools.x(args, { signal })`: an AbortSignal that aborts that one nested call. On abort the
// program's promise rejects at once with the signal's reason (as fetch does), the host is
// told to abort the call (its body sees its signal abort), and the call's eventual outcome
// is dropped. A call still waiting in the guest's queue is told to abort as soon as it is
// sent (call numbers must stay in order, so it is sent all the same).
import { AbortSignal } from './abort.ts';
import { post } from './host-link.ts';
import { create, TypeErrorCtor } from './intrinsics.ts';
import { pending, pendingCall } from './run-state.ts';

const cancelled = create(null) as Record<number, true | undefined>;
const ignore = (): void => undefined;

/** The signal of a call's options (undefined if none); throws a TypeError for a bad one. */
export function callSignal(name: string, options: unknown): AbortSignal | undefined {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object') {
    throw new TypeErrorCtor('tools.' + name + '(args, options): options must be an object like { signal }');
  }
  const signal = (options as { signal?: unknown }).signal;
  if (signal === undefined || signal === null) return undefined;
  if (!(signal instanceof AbortSignal)) {
    throw new TypeErrorCtor('tools.' + name + '(args, { signal }): signal must be an AbortSignal');
  }
  return signal;
}

function postCancel(seq: number): void {
  post({ __proto__: null, t: 'cancel-call', seq });
}

/** Call `seq` follows `signal` from now on. */
export function followSignal(signal: AbortSignal, seq: number): void {
  AbortSignal.onAbort(signal, () => {
    const entry = pending[seq];
    if (entry === undefined) return;
    pending[seq] = pendingCall(entry.name, ignore, ignore);
    cancelled[seq] = true;
    postCancel(seq);
    entry.reject(signal.reason);
  });
}

/** Call `seq` was just sent to the host: if the program aborted it while it waited, abort it there too. */
export function afterDispatch(seq: number): void {
  if (cancelled[seq] === true) postCancel(seq);
}
