// The contract between the sandbox and whoever hosts it. The sandbox knows nothing of
// the tool registry: it compiles a program, runs it in a fresh isolate, and forwards
// every SDK call to a HostCall as JSON text. Values cross only as JSON text.

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Why a run failed; also `error.info.kind` of a failed run_code result. */
export type FailureKind =
  | 'compile' // esbuild rejected the program (syntax error)
  | 'exception' // the program threw or rejected
  | 'timeout' // wall-clock deadline over the whole run, awaits included
  | 'cpu' // the isolate's own CPU time exceeded the budget
  | 'memory' // heap limit, or an off-heap allocation (Wasm, resizable/growable buffers, Intl/ICU objects)
  | 'output-limit' // returned value larger than maxResultBytes
  | 'call-limit' // more tool calls than maxCalls
  | 'invalid-output' // returned value is not JSON (function, BigInt, cycle, ...)
  | 'abort' // the caller's AbortSignal fired
  | 'crash'; // the sandbox process died or hung and was replaced

export interface SandboxLimits {
  /** Isolate heap limit in MiB. @default 128 */
  memoryMb: number;
  /** Wall-clock deadline for the whole run, including awaits on host calls. @default 120000 */
  wallTimeMs: number;
  /** CPU time of the isolate itself. @default 30000 */
  cpuTimeMs: number;
  /** Tool calls per run. @default 1000 */
  maxCalls: number;
  /** Host calls running at once; the excess waits (it is not refused). @default 10 */
  maxConcurrentCalls: number;
  /** Size of the returned value as JSON text, in bytes. @default 1048576 */
  maxResultBytes: number;
  /** Captured console output in bytes, each line counted as at least 16; the prefix is kept, then a marker. @default 65536 */
  maxLogBytes: number;
  /** Captured console lines; the first ones are kept, then a marker. @default 1000 */
  maxLogLines: number;
  /**
   * Python programs only: heap allocations the program may make (Monty's allocation
   * limit); past it the run ends with kind `memory`. TypeScript programs ignore it.
   * @default unbounded
   */
  maxAllocations?: number;
}

export type HostCallOutcome = (
  | { readonly ok: true; readonly valueJson: string }
  | { readonly ok: false; readonly code: string; readonly message: string }
) & {
  /**
   * When the outcome happened, in ms since the epoch: the program's clock moves forward
   * to it when it is delivered. A host answering from a record passes the recorded time
   * (so a re-run sees the same `Date.now()`); absent, the sandbox stamps the time it got it.
   */
  readonly at?: number;
};

/** What makes a run's `Math.random()` and clock the same on every attempt (see sandbox/guest/deterministic-sources.ts). */
export interface RunDeterminism {
  /** Seeds the program's random numbers: the run's stable identity. */
  readonly seed: string;
  /** The program's clock at its start, in ms since the epoch: the first attempt's start. */
  readonly clockStartMs: number;
}

/** Sessions: the program's `state` global (RunRequest.state). */
export interface ProgramState {
  /** Text of the state an earlier run left (its outcome's `state.text`), or '' for a new one: `state` starts as `{}`. */
  readonly saved: string;
  /** Bytes (UTF-8) of state text the program may leave; over it the save is refused. */
  readonly maxBytes: number;
}

/** What a successful run left on `state`: the text to save and its UTF-8 bytes, or why it cannot be saved. */
export type StateOutcome =
  | { readonly ok: true; readonly text: string; readonly bytes: number }
  | { readonly ok: false; readonly message: string };

export interface HostCallRequest {
  /** 1-based submission order of the call within its run. */
  readonly seq: number;
  readonly toolName: string;
  /** The program's arguments as JSON text (already JSON: the guest serialized them). */
  readonly argsJson: string;
  /** Aborted when the run is cancelled or ends early; the host should abort the call. */
  readonly signal: AbortSignal;
}

/** The host side of the bridge. May reject or throw: the sandbox turns that into a ToolCallError. */
export type HostCall = (request: HostCallRequest) => Promise<HostCallOutcome>;

export interface RunRequest {
  /** The model's TypeScript: the body of an async function. */
  readonly code: string;
  /** One `tools[name]` function is bound per name (any string is a valid name). */
  readonly toolNames: readonly string[];
  readonly hostCall: HostCall;
  readonly limits?: Partial<SandboxLimits>;
  readonly signal?: AbortSignal;
  /**
   * Called with each console line as the program logs it (after the log cap, then the
   * truncation marker once), so logs can be streamed while the run goes on. The lines
   * are exactly the outcome's `logs`, in order. Whatever it throws is ignored.
   */
  readonly onLog?: (line: string) => void;
  /**
   * The run's seed and start time. Give the same values to a re-run of the same run (a
   * resume) and the program sees the same random numbers and, with the recorded `at` of
   * each outcome, the same clock. Default: a fresh random seed and the current time (a
   * crash re-run inside the sandbox reuses them).
   */
  readonly determinism?: RunDeterminism;
  /**
   * Sessions: the program sees a global `state` (read from `state.saved`), and a run that
   * ends successfully reports what it left there in its outcome's `state`. Plain data,
   * Map, Set, Date, RegExp, typed arrays, ArrayBuffer, DataView, Error, BigInt, undefined
   * and shared or circular references are kept; functions, symbols, getters and class
   * instances are refused with the path where they sit. Absent: no `state` global.
   */
  readonly state?: ProgramState;
}

export type RunOutcome =
  | {
      readonly ok: true;
      readonly logs: readonly string[];
      readonly result?: JsonValue;
      /** With `RunRequest.state`: what the program left on `state` (a refused save does not fail the run). */
      readonly state?: StateOutcome;
    }
  | {
      readonly ok: false;
      readonly kind: FailureKind;
      readonly message: string;
      readonly logs: readonly string[];
      /** For `compile` (and where known, `exception`): position in the model's own code, 1-based. */
      readonly location?: { readonly line: number; readonly column: number };
      /** A Python run stopped while it waited on a call: its interpreter state, to continue from later. */
      readonly suspended?: GuestSuspension;
    };

/** A Python program paused at a call: Monty's serialized state (base64) and the call's 1-based sequence in the run. */
export interface GuestSuspension {
  readonly state: string;
  readonly seq: number;
}

export interface Sandbox {
  run(request: RunRequest): Promise<RunOutcome>;
  /** Stops pooled isolates and the sandbox process. */
  close(): Promise<void>;
  /**
   * Bytes the sandbox holds now as last measured (resident memory of its processes), if it
   * can tell; isolates kept ready for runs (poolSize) are not counted.
   */
  memoryInUse?(): number | undefined;
}

export interface SandboxOptions {
  /** `process` (default): isolates live in a dedicated child process. `in-process`: in this process, at your own risk. */
  readonly isolation?: 'process' | 'in-process';
  /**
   * Most pre-warmed single-use isolates kept ready, per sandbox process (in-process: in
   * this process). Two are kept from the start and refilled as soon as runs take them;
   * beyond them the pool grows, only in idle time (no run started for 250 ms), to the most
   * runs it has seen at once, so a burst like an earlier one starts on ready isolates
   * without the refill taking CPU from runs, and isolates no run takes are never prepared.
   * Each ready isolate holds ~1.6 MiB; 0 prepares every run's isolate when it starts.
   * @default 32 per process (64 in-process)
   */
  readonly poolSize?: number;
  /**
   * A call that is the only thing a program has in flight (no other call, no timer)
   * blocks the isolate while the host answers it: a quick tool's answer comes back
   * without an event-loop wake-up or a second crossing into the isolate; a call not
   * answered within 2 ms is released and goes on the asynchronous way. The 2 ms are a
   * timer on the host's thread: a tool that holds that thread (long synchronous work)
   * keeps the program blocked until it returns, even when the program did not await the
   * call. `false` sends every call asynchronously (the program then runs on while any
   * tool works). @default true
   */
  readonly blockingCalls?: boolean;
  /**
   * In-process only: while exactly one run is in flight in this process and it blocks on
   * call after call, hold the host's thread and the isolate's on the CPU the host's thread
   * is on, so that each hand-off between them does not wake an idle CPU (on virtual
   * machines several times a call's own work). Measured before it is kept and let go as
   * soon as a second run starts, the run ends or no call comes for 5 ms; the threads get
   * their previous CPU masks back (docs/performance.md). Linux only; `false` never
   * touches a thread's CPU mask. Process mode does not use it. @default true
   */
  readonly placeBlockingStreaks?: boolean;
  /**
   * Memory the pool of ready isolates may fill up to (bytes): the pool stops filling when
   * the sandbox's resident memory, its ready isolates included, plus one more ready
   * isolate would exceed it, and fills again after runs end once there is room. In process
   * mode each sandbox process keeps to its share (the budget divided by `processes`).
   * `createToolRuntime` passes its admission memory budget. Runs are never refused for it.
   * @default no bound
   */
  readonly memoryBudgetBytes?: number;
  /** Defaults for every run; a run's own limits override them. */
  readonly limits?: Partial<SandboxLimits>;
  /** After a run ends, how long it waits for its aborted in-flight host calls to settle. @default 2000 */
  readonly settleGraceMs?: number;
  /** `process` only: how long a cancelled run's sandbox process may take to confirm before it is killed and replaced. @default 1000 */
  readonly hangGraceMs?: number;
  /**
   * `process` only: sandbox processes that share the runs in flight, each run going to
   * the one with the fewest, spread over the cores; all start with the sandbox (the
   * built-in one is made on the first run). When one crashes or hangs, the runs it held (other than the one it would not
   * cancel) are re-run in fresh processes: those waiting on a tool call together in a few
   * shared ones, the others alone (docs/limits.md, fault domains). @default 2
   */
  readonly processes?: number;
  /**
   * `process` only: bytes of nested-call text (arguments and results) recorded per run so
   * that it can be re-run, its calls answered from the record, if its sandbox process
   * dies under it. A run past it is not re-run (kind `crash`). @default 8 MiB
   */
  readonly rerunRecordBytes?: number;
  /**
   * `process` only: a sandbox process with runs in flight is pinged every `heartbeatMs`;
   * one silent for `unresponsiveMs` (stuck, e.g. deadlocked) is killed and its runs re-run.
   * Silence is time it could have answered in: time the host's own thread was late to read
   * it does not count, nor (Linux, from /proc) time its main thread was runnable but waited
   * for a CPU, so an overloaded host does not kill its healthy, starved processes. A
   * stopped, sleeping or spinning main thread earns no such time: it is killed within
   * `unresponsiveMs` of its own time plus two heartbeats. Without /proc, the clock alone.
   * `unresponsiveMs` must be at least twice `heartbeatMs` (a healthy process is silent for
   * about one heartbeat at a time). @default 1000 and 5000 (or twice `heartbeatMs`)
   */
  readonly heartbeatMs?: number;
  readonly unresponsiveMs?: number;
  /**
   * `process` only: a sandbox process not ready this long after it was started is killed
   * (the runs waiting for it go to another). Counts only time it could have used: not
   * (Linux, from /proc) time its threads waited for a CPU, up to 10 times the limit; a
   * stopped or sleeping process is killed at the limit. @default 30000
   */
  readonly startupLimitMs?: number;
  /** Process isolation: runs one sandbox process takes before a fresh one replaces it. @default 2000 */
  readonly recycleAfterRuns?: number;
  /**
   * `process` only: when a sandbox process dies, each run it held that may have killed it
   * (running code, on a timer, just answered) is re-run alone in a process of its own; at
   * most this many such re-run processes are alive at once, the other re-runs wait their
   * turn (each still ends on its own deadline or abort). Each is a Node process of tens of
   * MB. An integer of 1 or more. @default 4
   */
  readonly maxRerunProcesses?: number;
  /**
   * `process` only: the runs of a dead sandbox process that were waiting on an unanswered
   * tool call are re-run together in shared re-run processes, at most this many alive at
   * once. An integer of 1 or more. @default 2
   */
  readonly maxSharedRerunProcesses?: number;
  /**
   * `process` only: re-runs one shared re-run process holds at once (see
   * `maxSharedRerunProcesses`); past that they wait for a place. If a shared re-run process
   * dies too, each of its runs gets a last attempt alone: this bounds how many re-runs one
   * such death sends there. An integer of 1 or more. @default 64
   */
  readonly maxRunsPerSharedRerun?: number;
}
