// What a ProcessSandbox is made with: its processes, their watchdog and start-up limit,
// and the bounds of re-runs after a process dies.
import type { SandboxLimits } from './types.ts';

export interface ProcessSandboxOptions {
  readonly poolSize?: number;
  /** See SandboxOptions.memoryBudgetBytes: each process's pool fills within its share. */
  readonly memoryBudgetBytes?: number;
  /** See SandboxOptions.blockingCalls. @default true */
  readonly blockingCalls?: boolean;
  readonly limits?: Partial<SandboxLimits>;
  /**
   * How long a cancelled run's child may take to confirm before it is killed; time its main
   * thread waited for a CPU meanwhile (Linux) is added. @default 1000
   */
  readonly hangGraceMs?: number;
  /**
   * A sandbox process with runs in flight is pinged this often; one that has sent nothing
   * for `unresponsiveMs` (its main thread is stuck, e.g. deadlocked inside isolated-vm) is
   * killed, and its runs are re-run elsewhere. @default 1000
   */
  readonly heartbeatMs?: number;
  /**
   * See `heartbeatMs`; at least twice `heartbeatMs`. Counts only time the process could
   * have answered in: not time this host's thread was late, nor (Linux) time the process's
   * main thread waited for a CPU (cpu-wait-meter.ts). @default 5000 (twice `heartbeatMs` if that is more)
   */
  readonly unresponsiveMs?: number;
  /**
   * A sandbox process not ready this long after it was started is killed (the runs waiting
   * for it go to another). Counts only time it could have used: not (Linux) time its
   * threads waited for a CPU, up to 10 times the limit. @default 30000
   */
  readonly startupLimitMs?: number;
  /** How long a run waits for aborted in-flight host calls to settle. @default 2000 */
  readonly settleGraceMs?: number;
  /**
   * Runs one sandbox process takes before a fresh one replaces it (isolated-vm keeps a
   * little native memory per disposed isolate, ~1.5 KB). @default 2000
   */
  readonly recycleAfterRuns?: number;
  /** Sandbox processes that share the runs in flight; all start with the sandbox. @default 2 */
  readonly processes?: number;
  /** The child's stdout/stderr. @default 'ignore' */
  readonly childOutput?: 'ignore' | 'inherit';
  /**
   * Bytes of nested-call text (arguments and results) kept per run so that it can be
   * re-run when its sandbox process dies under it; a run past it is not re-run. @default 8 MiB
   */
  readonly rerunRecordBytes?: number;
  /** See SandboxOptions.maxRerunProcesses. @default 4 (MAX_RERUN_PROCESSES) */
  readonly maxRerunProcesses?: number;
  /** See SandboxOptions.maxSharedRerunProcesses. @default 2 (MAX_SHARED_RERUN_PROCESSES) */
  readonly maxSharedRerunProcesses?: number;
  /** See SandboxOptions.maxRunsPerSharedRerun. @default 64 (MAX_RUNS_PER_SHARED_RERUN) */
  readonly maxRunsPerSharedRerun?: number;
}
