// Default budgets of a run and the merge/validation of caller overrides.
import type { SandboxLimits } from './types.ts';

export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  memoryMb: 128,
  wallTimeMs: 120_000,
  cpuTimeMs: 30_000,
  maxCalls: 1_000,
  maxConcurrentCalls: 10,
  maxResultBytes: 1_048_576,
  maxLogBytes: 65_536,
  maxLogLines: 1_000,
});

/** Bytes of a program's source; a larger one is refused before anything reads it (the compiler, the type check). */
export const MAX_PROGRAM_BYTES = 1_048_576;

/** Arguments of one tool call as JSON text; larger calls are refused in the guest (code ARGS_TOO_LARGE). */
export const MAX_ARGS_BYTES = 4 * 1_048_576;

/**
 * How long an isolate may stay blocked on a call its program is only waiting on
 * (guest/blocking-calls.ts) before the host releases it and the call goes on the
 * asynchronous way: a quick tool is answered without an event-loop wake-up, one that
 * awaits longer does not hold the isolate's thread. The release is a timer on the host's
 * thread: a tool that holds that thread synchronously holds the blocked program too.
 */
export const BLOCKING_CALL_WAIT_MS = 2;

/**
 * How long the body of a blocking call frame may take to arrive after its header
 * (blocking-call-pipe.ts). The sandbox process writes a frame with one write, so its body
 * follows the header at once; a header that promises more than ever comes holds the
 * process in read(), and past this bound the process is killed as broken (its runs are
 * re-run elsewhere) instead of waiting for the heartbeat watchdog. Time the host's own
 * thread was blocked does not count: bytes that arrived meanwhile are read first.
 */
export const CALL_FRAME_BODY_WAIT_MS = 1_000;

/** The longest delay a Node timer supports (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** isolated-vm refuses heap limits below 8 MiB. */
const MIN_MEMORY_MB = 8;

// maxAllocations has no default (unbounded) and applies to Python programs only.
const LIMIT_KEYS = [...Object.keys(DEFAULT_LIMITS), 'maxAllocations'] as (keyof SandboxLimits)[];

/** Merges `base` then `override` over the defaults; throws a TypeError naming the bad field. */
export function resolveLimits(
  base: Partial<SandboxLimits> | undefined,
  override?: Partial<SandboxLimits>,
): SandboxLimits {
  const merged: SandboxLimits = { ...DEFAULT_LIMITS };
  for (const source of [base, override]) {
    if (source === undefined) continue;
    if (typeof source !== 'object' || source === null) {
      throw new TypeError(`sandbox limits must be an object, got ${source === null ? 'null' : typeof source}`);
    }
    for (const [key, value] of Object.entries(source)) {
      if (value === undefined) continue;
      if (!(LIMIT_KEYS as string[]).includes(key)) {
        throw new TypeError(`unknown sandbox limit "${key}"; known limits: ${LIMIT_KEYS.join(', ')}`);
      }
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
        throw new TypeError(`sandbox limit ${key} must be a positive integer, got ${String(value)}`);
      }
      merged[key as keyof SandboxLimits] = value;
    }
  }
  for (const key of ['wallTimeMs', 'cpuTimeMs'] as const) {
    // Node timers cannot wait longer; a larger value would silently fire after 1 ms.
    if (merged[key] > MAX_TIMER_MS)
      throw new TypeError(`sandbox limit ${key} must be at most ${MAX_TIMER_MS} ms, got ${merged[key]}`);
  }
  if (merged.memoryMb < MIN_MEMORY_MB) {
    throw new TypeError(`sandbox limit memoryMb must be at least ${MIN_MEMORY_MB}, got ${merged.memoryMb}`);
  }
  return merged;
}

/** What a run that outlived its wall-clock limit is told (the same from the isolate's timer and the host's). */
export const wallClockMessage = (wallTimeMs: number): string =>
  `The run exceeded its wall-clock limit of ${wallTimeMs} ms (time spent awaiting tool calls included).`;
