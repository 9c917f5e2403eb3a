// What the host and the guest prelude say to each other, shared by both sides: the
// global names the prelude is reached through and the JSON messages each way. The
// prelude (sandbox/guest/) is bundled from TypeScript that imports these same types.

/** Global the host installs before the prelude (deleted by the prelude). */
export const SEND_GLOBAL = '__ptc_send';
/**
 * Global the host installs before the prelude (deleted by the prelude): a reference whose
 * `applySyncPromise(undefined, [frame])` blocks the isolate on one call (the frame:
 * blocked-call-text.ts), for a bounded time, and returns the reply (`v<seq> <at> <value's
 * JSON>`, or an error's delivery JSON), or '' when the call goes on the asynchronous way
 * (not answered within the bound, or the run is over). See guest/blocking-calls.ts.
 */
export const BLOCKING_CALL_GLOBAL = '__ptc_call_blocking';
/**
 * Global the host installs before the prelude (taken and deleted by the prelude): the
 * text of the URL library (guest/url.ts), shared by every isolate of a process and
 * evaluated only by a program that uses `URL` or `URLSearchParams`.
 */
export const URL_LIBRARY_GLOBAL = '__ptc_url_library';
/** Globals the prelude defines for the host to reference (the host deletes them). */
export const CONFIGURE_GLOBAL = '__ptc_configure';
export const DELIVER_GLOBAL = '__ptc_deliver';
/** The starter the prelude defines; the compiled program calls it once (then it is gone). */
export const START_GLOBAL = '__ptc_start';

/**
 * Host -> guest through `deliver`: the earliest guest timer is due (see guest/timers.ts).
 * The guest asks for it with a `wake` message (`ms` to wait; WAKE_NONE cancels).
 */
export const WAKE_DELIVERY = '"wake"';
export const WAKE_NONE = -1;

/** What `configure(json)` receives. */
export interface GuestConfig {
  readonly tools: readonly string[];
  readonly maxCalls: number;
  readonly maxConcurrentCalls: number;
  readonly maxLogBytes: number;
  readonly maxLogLines: number;
  /** What one log line costs at least against maxLogBytes. */
  readonly logLineMinBytes: number;
  readonly maxResultBytes: number;
  readonly maxArgsBytes: number;
  /**
   * Memory outside the V8 heap the program may claim, which isolated-vm's heap limit
   * does not see: `maxByteLength` of resizable ArrayBuffers plus an estimate for every
   * Intl formatter (each owns ICU memory; Intl.Segmenter and Intl.Locale are removed).
   */
  readonly offHeapBytes: number;
  /** The run's identity: seeds the guest's Math.random (deterministic-sources.ts), the same on every re-run. */
  readonly seed: string;
  /** The guest clock's start (ms since the epoch): the run's first start, the same on every re-run. */
  readonly clockStartMs: number;
  /** Major version of the Node the sandbox runs under: the web globals follow that line where Node lines differ. */
  readonly nodeMajor: number;
  /**
   * The program's text names URL (or URLSearchParams): the built-ins the URL library reads
   * are captured now, before the program runs. Otherwise they are captured on its first
   * use of URL, which only a program that reaches it by a computed name can make.
   */
  readonly urlBeforeProgram: boolean;
  /**
   * Sessions: the program sees a global `state`, read from `saved` (state text an earlier
   * run's `done` carried; '' for a new session: `{}`), and its `done` carries what it left
   * there, at most `maxBytes` bytes of UTF-8. Absent: no `state` global.
   */
  readonly state?: { readonly saved: string; readonly maxBytes: number };
}

/** Kinds a guest `done` failure may carry. */
export type GuestFailureKind = 'exception' | 'memory' | 'output-limit' | 'invalid-output';

/** Guest -> host messages (JSON). */
export type GuestMessage =
  | { readonly t: 'call'; readonly seq: number; readonly tool: string; readonly args: string }
  /** Calls made in one synchronous stretch of the program, in order, in one crossing. */
  | {
      readonly t: 'calls';
      readonly calls: readonly {
        readonly t: 'call';
        readonly seq: number;
        readonly tool: string;
        readonly args: string;
      }[];
    }
  | { readonly t: 'log'; readonly text: string }
  /** The program aborted call `seq` through its AbortSignal: abort it on the host. */
  | { readonly t: 'cancel-call'; readonly seq: number }
  /** Wake the guest (deliver WAKE_DELIVERY) in `ms` milliseconds; WAKE_NONE: no wake needed. */
  | { readonly t: 'wake'; readonly ms: number }
  | { readonly t: 'logs-truncated'; readonly by: 'bytes' | 'lines' }
  | { readonly t: 'limit'; readonly kind: 'call-limit' | 'memory' | 'exception'; readonly message: string }
  | {
      readonly t: 'done';
      readonly ok: true;
      readonly result?: string;
      /** Sessions: the state text to save and its UTF-8 bytes, or why it cannot be saved. */
      readonly state?: string;
      readonly stateBytes?: number;
      readonly stateError?: string;
    }
  | {
      readonly t: 'done';
      readonly ok: false;
      readonly kind: GuestFailureKind;
      readonly message: string;
      readonly stack?: string;
    };

/** Host -> guest `deliver` payload (JSON): one of these, or an array of them settled together. */
export type GuestDelivery = (
  | { readonly seq: number; readonly ok: true; readonly value: string }
  | { readonly seq: number; readonly ok: false; readonly code: string; readonly message: string }
) & {
  /** When the host recorded the outcome (ms since the epoch): the guest clock moves forward to it on delivery. */
  readonly at?: number;
};
