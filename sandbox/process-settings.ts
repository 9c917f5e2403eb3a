// The process mode's own settings, checked and with their defaults: read by ProcessSandbox,
// and by resolveSandboxOptions so that a caller that makes the sandbox later (the
// runtime's lazy sandbox) can refuse bad settings up front without loading it.
import { DEFAULT_RERUN_RECORD_BYTES } from './call-record.ts';

export interface ProcessSettings {
  readonly heartbeatMs: number;
  readonly unresponsiveMs: number;
  readonly recycleAfterRuns: number;
  readonly rerunRecordBytes: number;
  readonly processes: number;
}

export interface ProcessSettingsOptions {
  readonly heartbeatMs?: number | undefined;
  readonly unresponsiveMs?: number | undefined;
  readonly recycleAfterRuns?: number | undefined;
  readonly rerunRecordBytes?: number | undefined;
  readonly processes?: number | undefined;
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
  return { heartbeatMs, unresponsiveMs, recycleAfterRuns, rerunRecordBytes, processes };
}
