// Live progress of run_code programs: an event for each console line and for each
// nested call's start and end, delivered while the program runs (`rt.on('run/log', …)`).
// Listeners observe only: they run synchronously in registration order, and whatever
// they throw or reject with is dropped, so a listener can never change or stall a run.
import type { ToolResult } from '../pipeline/tool-result.ts';

/** Which run an event belongs to. */
export interface RunEventSource {
  /** callId of the run_code execution. */
  readonly runCallId: string;
  /** rootCallId of the run_code execution (its own callId for a model's direct call). */
  readonly rootCallId: string;
  readonly agent: string | undefined;
}

/** One console line of the program, as it is logged (after the log cap; the truncation marker once). */
export interface RunLogEvent extends RunEventSource {
  readonly line: string;
  /** 1-based position of the line in the run's logs. */
  readonly index: number;
}

/** The program called a tool; the call enters the pipeline now. */
export interface RunCallStartEvent extends RunEventSource {
  /** The nested call's id: `<runCallId>:ptc:<seq>`. */
  readonly callId: string;
  /** 1-based order in which the program made its calls. */
  readonly seq: number;
  /** The tool name the program called. */
  readonly name: string;
}

/** A nested call is over: its result went back to the program. */
export interface RunCallEndEvent extends RunCallStartEvent {
  readonly isError: boolean;
  /** Code and message of a failure. */
  readonly error?: { readonly code: string; readonly message: string };
  /** The final result, when the call produced one (a call refused before the pipeline has none). */
  readonly result?: ToolResult;
}

/**
 * A call of a tool with `resourceKey` waits for its resource lock (`waiting`), then got
 * it or gave up (`acquired`, `aborted`: its signal or timeout, `failed`: the store could
 * not lock). For any such call, nested or not: `runCallId` is the execution that made
 * it (run_code, a composite tool), or its own callId for a top-level call.
 */
export interface RunLockWaitEvent extends RunEventSource {
  readonly callId: string;
  readonly name: string;
  /** The resource key the tool's `resourceKey(args)` gave. */
  readonly key: string;
  readonly state: 'waiting' | 'acquired' | 'aborted' | 'failed';
  /** Milliseconds waited so far (0 for `waiting`). */
  readonly waitedMs: number;
  /** Whether the lock holds across hosts (PostgreSQL store) or only in this process. */
  readonly shared: boolean;
}

export interface RunEventMap {
  'run/log': (event: RunLogEvent) => void;
  'run/call-start': (event: RunCallStartEvent) => void;
  'run/call-end': (event: RunCallEndEvent) => void;
  'run/lock-wait': (event: RunLockWaitEvent) => void;
}
export type RunEventName = keyof RunEventMap;
type RunEventOf<K extends RunEventName> = Parameters<RunEventMap[K]>[0];

export const RUN_EVENT_NAMES: readonly RunEventName[] = ['run/log', 'run/call-start', 'run/call-end', 'run/lock-wait'];

export function isRunEventName(name: unknown): name is RunEventName {
  return (RUN_EVENT_NAMES as readonly unknown[]).includes(name);
}

export class RunEvents {
  readonly #lists: { [K in RunEventName]: RunEventMap[K][] } = {
    'run/log': [],
    'run/call-start': [],
    'run/call-end': [],
    'run/lock-wait': [],
  };

  on<K extends RunEventName>(name: K, listener: RunEventMap[K]): () => void {
    if (typeof listener !== 'function') throw new TypeError(`rt.on("${name}"): listener must be a function`);
    const list = this.#lists[name] as RunEventMap[K][];
    // Wrapped so the same function registered twice is disposed independently.
    const entry = ((event: RunEventOf<K>) => (listener as (e: RunEventOf<K>) => unknown)(event)) as RunEventMap[K];
    list.push(entry);
    return () => {
      const i = list.indexOf(entry);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /** Whether anyone listens: a run skips building events nobody reads. */
  has(name: RunEventName): boolean {
    return this.#lists[name].length > 0;
  }

  emit<K extends RunEventName>(name: K, event: RunEventOf<K>): void {
    for (const listener of [...this.#lists[name]] as ((e: RunEventOf<K>) => unknown)[]) {
      try {
        const returned = listener(event);
        if (returned instanceof Promise) returned.catch(() => {});
      } catch {
        // Listeners observe; their failures are their own.
      }
    }
  }
}
