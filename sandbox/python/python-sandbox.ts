// The Python guest: runs programs in Monty, each in a Python process of its own for the
// time of its run (python-process.ts), so the host's thread never runs Python. The host
// answers the program's calls (`hostCall`, the same bridge the TypeScript guest uses),
// keeps its wall clock and kills a process whose stretch of Python outlives the CPU budget
// (python-host-run.ts). A few processes are kept warm (python-process-pool.ts).
import { DEFAULT_LIMITS, MAX_PROGRAM_BYTES, resolveLimits, wallClockMessage } from '../limits.ts';
import { LogBuffer } from '../log-buffer.ts';
import { ABORT_MESSAGE } from '../run-request.ts';
import type { RunOutcome, Sandbox, SandboxLimits } from '../types.ts';
import { MONTY_MISSING_MESSAGE, montyInstalled } from './load-monty.ts';
import type { PythonChild } from './python-child.ts';
import { PythonHostRun, type PythonHostRunSettings } from './python-host-run.ts';
import type { PythonRunEnd } from './python-messages.ts';
import { PythonProcessPool } from './python-process-pool.ts';
import type { PythonRunRequest } from './python-run-request.ts';
import type { PythonTypeCheck } from './python-type-check.ts';

export type { PythonDiagnostic, PythonTypeCheck } from './python-type-check.ts';
export { PYTHON_SCRIPT_NAME } from './python-type-check.ts';

/** Bytes of one message a Python process is sent or sends at most: a call's outcome, a paused program's saved state. */
export const PYTHON_MAX_MESSAGE_BYTES = 64 * 1_048_576;

/** See PythonSandboxOptions.parkStateBytes. */
export const PYTHON_PARK_STATE_BYTES = 1_048_576;

/** The longest a type check may take in its process; past it the process is killed and the run goes on unchecked. */
export const PYTHON_TYPECHECK_TIMEOUT_MS = 10_000;

export interface PythonSandboxOptions {
  /** Idle Python processes kept ready (Monty loaded) for the next runs. @default 1 */
  readonly warmProcesses?: number;
  /** Python processes at most: one per run in flight; a run beyond them waits for one. @default 32 */
  readonly maxProcesses?: number;
  /** Runs one process takes before a fresh one replaces it. @default 1000 */
  readonly recycleAfterRuns?: number;
  /** How long a process may take to end a run stopped from outside, or a stretch past its CPU budget, before it is killed. @default 500 */
  readonly killGraceMs?: number;
  /** See PYTHON_MAX_MESSAGE_BYTES. @default 64 MiB */
  readonly maxMessageBytes?: number;
  /**
   * A program waiting on a tool whose saved state is at most this many bytes leaves its
   * process meanwhile (a waiting run then holds no process); a larger one keeps it. 0: runs
   * keep their process. @default 1 MiB (PYTHON_PARK_STATE_BYTES)
   */
  readonly parkStateBytes?: number;
}

const positive = (value: number | undefined, name: string, fallback: number): number => {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0)
    throw new TypeError(`PythonSandbox ${name} must be a non-negative integer, got ${String(value)}`);
  return value;
};

/** A Sandbox whose programs are Python (run requests carry `functions`). */
export class PythonSandbox implements Sandbox {
  readonly #defaults: SandboxLimits;
  readonly #pool: PythonProcessPool;
  readonly #killGraceMs: number;
  readonly #maxMessageBytes: number;
  readonly #parkStateBytes: number;
  #nextJob = 1;
  /** Runs in flight, ended by close(). */
  readonly #runs = new Set<PythonHostRun>();
  #closed = false;

  private constructor(defaults: SandboxLimits, options: PythonSandboxOptions) {
    this.#defaults = defaults;
    this.#killGraceMs = positive(options.killGraceMs, 'killGraceMs', 500);
    this.#maxMessageBytes = positive(options.maxMessageBytes, 'maxMessageBytes', PYTHON_MAX_MESSAGE_BYTES);
    this.#parkStateBytes = positive(options.parkStateBytes, 'parkStateBytes', PYTHON_PARK_STATE_BYTES);
    this.#pool = new PythonProcessPool({
      warmProcesses: positive(options.warmProcesses, 'warmProcesses', 1),
      maxProcesses: Math.max(1, positive(options.maxProcesses, 'maxProcesses', 32)),
      recycleAfterJobs: Math.max(1, positive(options.recycleAfterRuns, 'recycleAfterRuns', 1_000)),
    });
  }

  /** Starts the warm processes; rejects with one line naming the package to install when Monty is missing. */
  static async create(limits?: Partial<SandboxLimits>, options: PythonSandboxOptions = {}): Promise<PythonSandbox> {
    if (!montyInstalled()) throw new Error(MONTY_MISSING_MESSAGE);
    return new PythonSandbox(resolveLimits(DEFAULT_LIMITS, limits), options);
  }

  /** Pids of the live Python processes (for tests and diagnostics). */
  get processPids(): number[] {
    return this.#pool.pids;
  }

  async run(request: PythonRunRequest): Promise<RunOutcome> {
    if (this.#closed) throw new Error('sandbox.run: the sandbox is closed');
    const limits = resolveLimits(this.#defaults, request.limits);
    const logs = new LogBuffer({ maxBytes: limits.maxLogBytes, maxLines: limits.maxLogLines }, quiet(request.onLog));
    const fail = (kind: 'abort' | 'compile' | 'timeout' | 'crash', message: string): RunOutcome => ({
      ok: false,
      kind,
      message,
      logs: logs.lines(),
    });
    if (request.signal?.aborted) return fail('abort', ABORT_MESSAGE);
    if (Buffer.byteLength(request.code, 'utf8') > MAX_PROGRAM_BYTES) {
      return fail('compile', `The program is larger than ${MAX_PROGRAM_BYTES} bytes.`);
    }
    const saved = request.resumeFrom?.state;
    if (saved !== undefined && saved.length > this.#maxMessageBytes) {
      return fail(
        'crash',
        `The paused Python program's saved state is ${saved.length} bytes, more than a Python process takes (${this.#maxMessageBytes} bytes).`,
      );
    }
    let child: PythonChild;
    const waited = new AbortController();
    // Waiting for a free process counts against the wall clock too.
    const startedAt = performance.now();
    const timer = setTimeout(() => waited.abort(new Error(wallClockMessage(limits.wallTimeMs))), limits.wallTimeMs);
    try {
      child = await this.#pool.take(AbortSignal.any([waited.signal, ...(request.signal ? [request.signal] : [])]));
    } catch (error) {
      if (request.signal?.aborted) return fail('abort', ABORT_MESSAGE);
      if (waited.signal.aborted) return fail('timeout', wallClockMessage(limits.wallTimeMs));
      return fail(
        'crash',
        `The Python sandbox could not run the program: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      clearTimeout(timer);
    }
    const settings: PythonHostRunSettings = {
      killGraceMs: this.#killGraceMs,
      maxMessageBytes: this.#maxMessageBytes,
      parkStateBytes: this.#parkStateBytes,
      take: (signal) => this.#pool.take(signal),
      give: (free) => this.#pool.give(free),
    };
    let hostRun!: PythonHostRun;
    const end = await new Promise<PythonRunEnd>((settle) => {
      const wallLeftMs = limits.wallTimeMs - (performance.now() - startedAt);
      hostRun = new PythonHostRun(this.#nextJob++, request, limits, logs, settings, settle, wallLeftMs);
      this.#runs.add(hostRun);
      hostRun.start(child);
    });
    this.#runs.delete(hostRun);
    return this.#outcome(end, request, logs);
  }

  #outcome(end: PythonRunEnd, request: PythonRunRequest, logs: LogBuffer): RunOutcome {
    if (!end.ok) return { ...end, logs: logs.lines() };
    // Python programs have no `state`: a session's state is kept as it was.
    const saved = request.state?.saved;
    const state =
      saved === undefined
        ? {}
        : { state: { ok: true as const, text: saved === '' ? '{}' : saved, bytes: Buffer.byteLength(saved || '{}') } };
    return { ok: true, logs: logs.lines(), ...(end.result === undefined ? {} : { result: end.result }), ...state };
  }

  /**
   * Monty's type check of a program against `prefix` (the stubs): `line:column message`
   * diagnostics in the program's own lines. Runs in a Python process, bounded by
   * PYTHON_TYPECHECK_TIMEOUT_MS.
   */
  async typeCheck(code: string, prefix: string): Promise<PythonTypeCheck> {
    let child: PythonChild;
    try {
      child = await this.#pool.take();
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
    const jobId = this.#nextJob++;
    const check = await new Promise<PythonTypeCheck>((settle) => {
      const timer = setTimeout(() => {
        child.kill('its type check took too long');
        settle({ ok: false, reason: `the type check took longer than ${PYTHON_TYPECHECK_TIMEOUT_MS} ms` });
      }, PYTHON_TYPECHECK_TIMEOUT_MS);
      child.listen({
        message: (message) => {
          if (message.type !== 'checked' || message.jobId !== jobId) return;
          clearTimeout(timer);
          child.listen(undefined);
          this.#pool.give(child);
          settle(message.check);
        },
        gone: (how) => {
          clearTimeout(timer);
          settle({ ok: false, reason: `the Python process stopped during the type check (${how})` });
        },
      });
      child.send({ type: 'check', jobId, code, prefix });
    });
    return check;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const run of [...this.#runs]) run.close();
    await this.#pool.close();
  }
}

function quiet(onLog: ((line: string) => void) | undefined): ((line: string) => void) | undefined {
  if (onLog === undefined) return undefined;
  return (line) => {
    try {
      onLog(line);
    } catch {
      // A listener cannot disturb the run.
    }
  };
}
