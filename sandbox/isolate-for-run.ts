// What a run uses of a prepared isolate (isolate-pool.ts makes them, isolate-run.ts and the
// prelude warm-up run programs in them): the isolate and its context, the prelude's two
// host-held functions, the link a run binds to receive what the guest reports, and its end.
// An interface of its own, so that the pool can run the warm-up without the run importing
// the pool.
import type ivm from 'isolated-vm';

/** Where a bound run receives what its isolate reports. */
export interface GuestLink {
  /** One guest message (JSON text) sent through the prelude's callback. */
  onMessage(text: string): void;
  /** isolated-vm gave up on the isolate (e.g. out of memory outside the heap limit). */
  onCatastrophic(message: string): void;
  /**
   * One call the guest blocks on (JSON text, guest/blocking-calls.ts): resolves with the
   * delivery's JSON, or '' when its outcome will come the asynchronous way; never rejects.
   */
  onBlockingCall?(text: string): string | Promise<string>;
  /** The promise onBlockingCall returned has settled and isolated-vm is being handed its reply (this turn). */
  onBlockingReplySettled?(): void;
}

/** An isolate with the guest prelude evaluated, ready for one run. */
export interface IsolateForRun {
  readonly isolate: ivm.Isolate;
  readonly context: ivm.Context;
  /** The prelude's `configure(json)`, held by the host only. */
  readonly configure: ivm.Reference<(json: string) => void>;
  /** The prelude's `deliver(json)`, held by the host only. */
  readonly deliver: ivm.Reference<(json: string) => void>;
  /** Routes this isolate's messages to one run (an isolate serves a single run). */
  bind(link: GuestLink): void;
  /** The catastrophic error isolated-vm reported, if any. */
  readonly catastrophic: string | undefined;
  readonly disposed: boolean;
  /** Disposes the isolate; a no-op after a catastrophic error (disposing would block). */
  dispose(): void;
}
