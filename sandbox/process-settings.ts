// The process mode's own settings, checked and with their defaults: read by ProcessSandbox,
// and by resolveSandboxOptions so that a caller that makes the sandbox later (the
// runtime's lazy sandbox) can refuse bad settings up front without loading it.
import { DEFAULT_RERUN_RECORD_BYTES } from './call-record.ts';
import { DEFAULT_STARTUP_LIMIT_MS, MAX_STARTUP_LIMIT_MS } from './startup-limit.ts';

/**
 * Re-run processes holding one run each (a run that may have killed its process), alive
 * at once: the others wait their turn instead of starting as many Node processes (tens of
 * MB each) at once. The default of `maxRerunProcesses`.
 */
export const MAX_RERUN_PROCESSES = 4;
/**
 * Shared re-run processes alive at once. The runs of a dead process that were each
 * waiting on an unanswered host call are re-run together in these (a waiting run costs
 * an isolate, not a Node process), so a hundred runs awaiting tools are all back after
 * one start-up rather than four at a time. The default of `maxSharedRerunProcesses`.
 */
export const MAX_SHARED_RERUN_PROCESSES = 2;
/**
 * Re-runs one shared re-run process holds at once (its blast radius if it dies too: each
 * of them then takes its last attempt alone). Runs past the shared capacity wait for a
 * place. The default of `maxRunsPerSharedRerun`.
 */
export const MAX_RUNS_PER_SHARED_RERUN = 64;

export interface ProcessSettings {
  readonly heartbeatMs: number;
  readonly unresponsiveMs: number;
  readonly startupLimitMs: number;
  readonly recycleAfterRuns: number;
  readonly rerunRecordBytes: number;
  readonly processes: number;
  readonly maxRerunProcesses: number;
  readonly maxSharedRerunProcesses: number;
  readonly maxRunsPerSharedRerun: number;
}

export interface ProcessSettingsOptions {
  readonly heartbeatMs?: number | undefined;
  readonly unresponsiveMs?: number | undefined;
  readonly startupLimitMs?: number | undefined;
  readonly recycleAfterRuns?: number | undefined;
  readonly rerunRecordBytes?: number | undefined;
  readonly processes?: number | undefined;
  readonly maxRerunProcesses?: number | undefined;
  readonly maxSharedRerunProcesses?: number | undefined;
  readonly maxRunsPerSharedRerun?: number | undefined;
}

/** `value`, or `fallback` when it is undefined; throws a TypeError naming the setting unless it is an integer of 1 or more. */
function positiveInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
    throw new TypeError(`${name} must be a positive integer (1 or more), got ${shown}`);
  }
  return value;
}

/** Throws a TypeError naming the bad setting. */
export function resolveProcessSettings(options: ProcessSettingsOptions): ProcessSettings {
  const heartbeatMs = options.heartbeatMs ?? 1_000;
  const unresponsiveMs = options.unresponsiveMs ?? Math.max(5_000, 2 * heartbeatMs);
  for (const [name, value] of [
    ['heartbeatMs', heartbeatMs],
    ['unresponsiveMs', unresponsiveMs],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new TypeError(`${name} must be a positive integer (milliseconds), got ${String(value)}`);
    }
  }
  // A healthy child answers each ping, so it is silent for about one heartbeat at a time.
  if (unresponsiveMs < 2 * heartbeatMs) {
    throw new TypeError(
      `unresponsiveMs (${unresponsiveMs}) must be at least twice heartbeatMs (${heartbeatMs}): a healthy sandbox process answers a ping only every heartbeatMs and would be killed`,
    );
  }
  const startupLimitMs = positiveInteger('startupLimitMs', options.startupLimitMs, DEFAULT_STARTUP_LIMIT_MS);
  if (startupLimitMs > MAX_STARTUP_LIMIT_MS) {
    throw new TypeError(`startupLimitMs must be at most ${MAX_STARTUP_LIMIT_MS} (10 minutes), got ${startupLimitMs}`);
  }
  const recycleAfterRuns = options.recycleAfterRuns ?? 2_000;
  if (!Number.isSafeInteger(recycleAfterRuns) || recycleAfterRuns < 1) {
    throw new TypeError(`recycleAfterRuns must be a positive integer, got ${String(options.recycleAfterRuns)}`);
  }
  const rerunRecordBytes = options.rerunRecordBytes ?? DEFAULT_RERUN_RECORD_BYTES;
  if (!Number.isSafeInteger(rerunRecordBytes) || rerunRecordBytes < 0) {
    throw new TypeError(`rerunRecordBytes must be a non-negative integer, got ${String(options.rerunRecordBytes)}`);
  }
  const processes = options.processes ?? 2;
  if (!Number.isSafeInteger(processes) || processes < 1) {
    throw new TypeError(`processes must be a positive integer, got ${String(options.processes)}`);
  }
  return {
    heartbeatMs,
    unresponsiveMs,
    startupLimitMs,
    recycleAfterRuns,
    rerunRecordBytes,
    processes,
    maxRerunProcesses: positiveInteger('maxRerunProcesses', options.maxRerunProcesses, MAX_RERUN_PROCESSES),
    maxSharedRerunProcesses: positiveInteger(
      'maxSharedRerunProcesses',
      options.maxSharedRerunProcesses,
      MAX_SHARED_RERUN_PROCESSES,
    ),
    maxRunsPerSharedRerun: positiveInteger(
      'maxRunsPerSharedRerun',
      options.maxRunsPerSharedRerun,
      MAX_RUNS_PER_SHARED_RERUN,
    ),
  };
}
