// Checks SandboxOptions and resolves the defaults, apart from the two sandbox classes: a
// caller that loads only the one it needs (the runtime's lazy sandbox) checks them the
// same way createSandbox does, and can check them before it makes the sandbox.
import type { InProcessSandboxOptions } from './in-process-sandbox.ts';
import { warnIfOldIsolatedVm } from './isolated-vm-version.ts';
import { resolveLimits } from './limits.ts';
import { DEFAULT_IN_PROCESS_POOL_SIZE, DEFAULT_POOL_SIZE } from './pool-size.ts';
import { resolveProcessSettings } from './process-settings.ts';
import type { ProcessSandboxOptions } from './process-sandbox-options.ts';
import type { SandboxOptions } from './types.ts';

export type ResolvedSandboxOptions =
  | { readonly isolation: 'process'; readonly options: ProcessSandboxOptions }
  | { readonly isolation: 'in-process'; readonly options: InProcessSandboxOptions };

/** Throws a TypeError naming the bad option; warns once if isolated-vm is too old. */
export function resolveSandboxOptions(options: SandboxOptions = {}): ResolvedSandboxOptions {
  const resolved = checkSandboxOptions(options);
  warnIfOldIsolatedVm();
  return resolved;
}

/**
 * Throws a TypeError naming the bad option, the limits and the process mode's own
 * settings included (what the sandbox classes would refuse); reads nothing else.
 */
export function checkSandboxOptions(options: SandboxOptions = {}): ResolvedSandboxOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`createSandbox: options must be an object, got ${options === null ? 'null' : typeof options}`);
  }
  const isolation = options.isolation ?? 'process';
  if (isolation !== 'process' && isolation !== 'in-process') {
    throw new TypeError(`createSandbox: isolation must be 'process' or 'in-process', got ${JSON.stringify(isolation)}`);
  }
  const poolSize = options.poolSize ?? (isolation === 'in-process' ? DEFAULT_IN_PROCESS_POOL_SIZE : DEFAULT_POOL_SIZE);
  if (!Number.isSafeInteger(poolSize) || poolSize < 0) {
    throw new TypeError(`createSandbox: poolSize must be a non-negative integer, got ${String(poolSize)}`);
  }
  resolveLimits(options.limits);
  if (isolation === 'process') resolveProcessSettings(options);
  for (const key of ['settleGraceMs', 'hangGraceMs'] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
      throw new TypeError(`createSandbox: ${key} must be a non-negative integer (milliseconds), got ${String(value)}`);
    }
  }
  const budget = options.memoryBudgetBytes;
  if (budget !== undefined && (!Number.isSafeInteger(budget) || budget <= 0)) {
    throw new TypeError(`createSandbox: memoryBudgetBytes must be a positive integer (bytes), got ${String(budget)}`);
  }
  for (const key of ['blockingCalls', 'placeBlockingStreaks'] as const) {
    const value = options[key];
    if (value !== undefined && typeof value !== 'boolean') {
      throw new TypeError(`createSandbox: ${key} must be a boolean, got ${typeof value}`);
    }
  }
  const common = {
    poolSize,
    ...(options.blockingCalls === undefined ? {} : { blockingCalls: options.blockingCalls }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.settleGraceMs === undefined ? {} : { settleGraceMs: options.settleGraceMs }),
    ...(budget === undefined ? {} : { memoryBudgetBytes: budget }),
  };
  if (isolation === 'in-process') {
    const place = options.placeBlockingStreaks;
    return { isolation, options: place === undefined ? common : { ...common, placeBlockingStreaks: place } };
  }
  return {
    isolation,
    options: {
      ...common,
      ...(options.hangGraceMs === undefined ? {} : { hangGraceMs: options.hangGraceMs }),
      ...(options.recycleAfterRuns === undefined ? {} : { recycleAfterRuns: options.recycleAfterRuns }),
      ...(options.processes === undefined ? {} : { processes: options.processes }),
      ...(options.rerunRecordBytes === undefined ? {} : { rerunRecordBytes: options.rerunRecordBytes }),
      ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
      ...(options.unresponsiveMs === undefined ? {} : { unresponsiveMs: options.unresponsiveMs }),
      ...(options.startupLimitMs === undefined ? {} : { startupLimitMs: options.startupLimitMs }),
      ...(options.maxRerunProcesses === undefined ? {} : { maxRerunProcesses: options.maxRerunProcesses }),
      ...(options.maxSharedRerunProcesses === undefined
        ? {}
        : { maxSharedRerunProcesses: options.maxSharedRerunProcesses }),
      ...(options.maxRunsPerSharedRerun === undefined ? {} : { maxRunsPerSharedRerun: options.maxRunsPerSharedRerun }),
    },
  };
}
