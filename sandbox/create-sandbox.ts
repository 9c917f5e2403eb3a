// Entry point: a sandbox in a dedicated child process (default) or in this process.
import { InProcessSandbox } from './in-process-sandbox.ts';
import { DEFAULT_IN_PROCESS_POOL_SIZE, DEFAULT_POOL_SIZE } from './pool-size.ts';
import { warnIfOldIsolatedVm } from './isolated-vm-version.ts';
import { ProcessSandbox } from './process-sandbox.ts';
import type { Sandbox, SandboxOptions } from './types.ts';

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const isolation = options.isolation ?? 'process';
  if (isolation !== 'process' && isolation !== 'in-process') {
    throw new TypeError(`createSandbox: isolation must be 'process' or 'in-process', got ${JSON.stringify(isolation)}`);
  }
  const poolSize = options.poolSize ?? (isolation === 'in-process' ? DEFAULT_IN_PROCESS_POOL_SIZE : DEFAULT_POOL_SIZE);
  if (!Number.isSafeInteger(poolSize) || poolSize < 0) {
    throw new TypeError(`createSandbox: poolSize must be a non-negative integer, got ${String(poolSize)}`);
  }
  warnIfOldIsolatedVm();
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
  if (options.blockingCalls !== undefined && typeof options.blockingCalls !== 'boolean') {
    throw new TypeError(`createSandbox: blockingCalls must be a boolean, got ${typeof options.blockingCalls}`);
  }
  const common = {
    poolSize,
    ...(options.blockingCalls === undefined ? {} : { blockingCalls: options.blockingCalls }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.settleGraceMs === undefined ? {} : { settleGraceMs: options.settleGraceMs }),
    ...(budget === undefined ? {} : { memoryBudgetBytes: budget }),
  };
  if (isolation === 'in-process') return new InProcessSandbox(common);
  return new ProcessSandbox({
    ...common,
    ...(options.hangGraceMs === undefined ? {} : { hangGraceMs: options.hangGraceMs }),
    ...(options.recycleAfterRuns === undefined ? {} : { recycleAfterRuns: options.recycleAfterRuns }),
    ...(options.processes === undefined ? {} : { processes: options.processes }),
    ...(options.rerunRecordBytes === undefined ? {} : { rerunRecordBytes: options.rerunRecordBytes }),
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    ...(options.unresponsiveMs === undefined ? {} : { unresponsiveMs: options.unresponsiveMs }),
  });
}
