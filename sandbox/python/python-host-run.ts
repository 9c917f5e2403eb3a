// One Python run as the host drives it, its program in a Python process: the host answers
// the program's calls through the run's `hostCall` (the same pipeline as a TypeScript
// program's), keeps its wall clock, and stops it from outside. A stretch of Python longer
// than Monty's own time limit allows (one long native operation, say) gets its process
// killed: the run ends with kind `cpu` and the host's thread never waited on it.
// While the program waits on a call it holds no process when its saved state is small
// (`parkStateBytes`): the state waits here, and the answer goes to whichever process is
// free, which loads the state and resumes the program with it (no call is made twice).
import { wallClockMessage } from '../limits.ts';
import type { LogBuffer } from '../log-buffer.ts';
import { ABORT_MESSAGE } from '../run-request.ts';
import type { FailureKind, HostCallOutcome, SandboxLimits } from '../types.ts';
import type { PythonChild } from './python-child.ts';
import type { PythonParkedRun, PythonProcessLimits, PythonRunEnd, PythonToHost } from './python-messages.ts';
import { clockResetMs } from './python-program-run.ts';
import type { PythonRunRequest } from './python-run-request.ts';

export interface PythonHostRunSettings {
  /** How long a process may take to end a run stopped from outside before it is killed. */
  readonly killGraceMs: number;
  /** Bytes of a call's outcome or a saved state that cross to the process at most. */
  readonly maxMessageBytes: number;
  /** See PythonProcessLimits.parkStateBytes. */
  readonly parkStateBytes: number;
  /** A free process for the run to go on in (after it waited on a call in none). */
  take(signal: AbortSignal): Promise<PythonChild>;
  /** The run is done with a process that is fine. */
  give(child: PythonChild): void;
}

/** Time a process's thread waited for a CPU below this is no starvation worth a second chance. */
const STARVED_MS = 50;

/**
 * Where the run is: in a stretch of Python (its process runs it), waiting on a call in
 * its process, waiting on a call in none (parked), or stopped (its process finishing).
 */
type Phase = 'python' | 'calling' | 'parked' | 'stopping';

export class PythonHostRun {
  readonly #jobId: number;
  readonly #request: PythonRunRequest;
  readonly #limits: SandboxLimits;
  readonly #logs: LogBuffer;
  readonly #settings: PythonHostRunSettings;
  readonly #settle: (end: PythonRunEnd) => void;
  #child: PythonChild | undefined;
  #phase: Phase = 'python';
  #settled = false;
  /** Aborted when the run stops or ends: the call out, a wait for a process. */
  readonly #call = new AbortController();
  #waitedMs = 0;
  /** The run's state while it waits in no process, and the call it waits on. */
  #parked: (PythonParkedRun & { readonly seq: number; answered: boolean }) | undefined;
  #stretchTimer: NodeJS.Timeout | undefined;
  #graceTimer: NodeJS.Timeout | undefined;
  readonly #wallTimer: NodeJS.Timeout;
  readonly #onAbort = (): void => this.#stop('abort', ABORT_MESSAGE);

  constructor(
    jobId: number,
    request: PythonRunRequest,
    limits: SandboxLimits,
    logs: LogBuffer,
    settings: PythonHostRunSettings,
    settle: (end: PythonRunEnd) => void,
    /** What is left of the wall clock (the run may have waited for a process). */
    wallLeftMs: number = limits.wallTimeMs,
  ) {
    this.#jobId = jobId;
    this.#request = request;
    this.#limits = limits;
    this.#logs = logs;
    this.#settings = settings;
    this.#settle = settle;
    const timedOut = (): void => this.#stop('timeout', wallClockMessage(limits.wallTimeMs));
    this.#wallTimer = setTimeout(timedOut, Math.max(0, wallLeftMs));
    request.signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Starts the program in `child` (from its saved state when the request has one). */
  start(child: PythonChild): void {
    this.#attach(child);
    this.#send({
      type: 'run',
      jobId: this.#jobId,
      code: this.#request.code,
      functions: this.#request.functions,
      limits: this.#processLimits(),
      ...(this.#request.resumeFrom === undefined ? {} : { resumeFrom: this.#request.resumeFrom }),
    });
  }

  /** The sandbox is closing: the run ends now with kind `abort` (its process is killed by the pool). */
  close(): void {
    this.#phase = 'stopping';
    this.#end({ ok: false, kind: 'abort', message: 'The sandbox was closed.' });
  }

  #processLimits(): PythonProcessLimits {
    const l = this.#limits;
    const { maxMessageBytes, parkStateBytes } = this.#settings;
    return {
      cpuTimeMs: l.cpuTimeMs,
      memoryMb: l.memoryMb,
      maxCalls: l.maxCalls,
      maxResultBytes: l.maxResultBytes,
      maxLogBytes: l.maxLogBytes,
      maxLogLines: l.maxLogLines,
      maxStateBytes: maxMessageBytes,
      parkStateBytes: Math.min(parkStateBytes, maxMessageBytes),
      ...(l.maxAllocations === undefined ? {} : { maxAllocations: l.maxAllocations }),
    };
  }

  #attach(child: PythonChild): void {
    this.#child = child;
    this.#phase = 'python';
    child.listen({ message: (message) => this.#onMessage(message), gone: (how) => this.#onGone(how) });
  }

  /** Sends a job message that starts a stretch of Python: its budget's clock starts. */
  #send(message: Parameters<PythonChild['send']>[0]): void {
    this.#armStretch();
    this.#child?.send(message);
  }

  #end(end: PythonRunEnd): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#wallTimer);
    this.#request.signal?.removeEventListener('abort', this.#onAbort);
    this.#call.abort();
    this.#settle(end);
  }

  /** The process is done with this run: it is fine (`free`) or gone. */
  #detach(free: boolean): void {
    clearTimeout(this.#stretchTimer);
    clearTimeout(this.#graceTimer);
    const child = this.#child;
    this.#child = undefined;
    if (child === undefined) return;
    child.listen(undefined);
    if (free) this.#settings.give(child);
  }

  /**
   * A stretch of Python may run as long as Monty's own limit lets it (the CPU budget and its
   * clock's slack); past that and a grace the process is killed. Time its thread waited for a
   * CPU meanwhile (an overloaded host) is given back once: a starved process is not a runaway.
   */
  #armStretch(): void {
    const child = this.#child;
    if (child === undefined) return;
    const cpu = this.#limits.cpuTimeMs;
    const arm = (ms: number, extensible: boolean): void => {
      const mark = child.cpuWait?.mark(Date.now());
      this.#stretchTimer = setTimeout(() => {
        const starved = child.cpuWait?.waitedSince(mark, Date.now()) ?? 0;
        if (extensible && starved > STARVED_MS) {
          arm(starved, false);
          return;
        }
        const message = `The program ran longer than its CPU budget of ${cpu} ms (cpuTimeMs) without calling a tool; its Python process was stopped.`;
        child.kill(message);
        this.#end({ ok: false, kind: 'cpu', message });
      }, ms);
    };
    clearTimeout(this.#stretchTimer);
    arm(cpu + clockResetMs(cpu) + this.#settings.killGraceMs, true);
  }

  /** Ends the run from outside: a pause while it waits on a call keeps its state; else it ends now. */
  #stop(kind: FailureKind, message: string): void {
    if (this.#settled || this.#phase === 'stopping') return;
    const phase = this.#phase;
    this.#phase = 'stopping';
    this.#call.abort();
    const parked = this.#parked;
    if (phase === 'parked' && parked !== undefined) {
      // Its state is here: a pause keeps it, unless its call was answered already.
      const suspended =
        kind === 'abort' && !parked.answered ? { suspended: { state: parked.state, seq: parked.seq } } : {};
      this.#end({ ok: false, kind, message, ...suspended });
      return;
    }
    const suspend = kind === 'abort' && phase === 'calling';
    if (phase === 'calling') this.#child?.send({ type: 'stop', jobId: this.#jobId, suspend });
    // The process may be in a stretch it cannot leave until it ends: past the grace it is killed.
    const child = this.#child;
    this.#graceTimer = setTimeout(() => {
      child?.kill(`it did not end a stopped run within ${this.#settings.killGraceMs} ms`);
      this.#end({ ok: false, kind, message });
    }, this.#settings.killGraceMs);
    if (!suspend) this.#end({ ok: false, kind, message });
  }

  #onMessage(message: PythonToHost): void {
    if (!('jobId' in message) || message.jobId !== this.#jobId) return;
    switch (message.type) {
      case 'log':
        if (!this.#settled) this.#logs.add(message.line);
        return;
      case 'logs-truncated':
        if (!this.#settled) this.#logs.markTruncated(message.by);
        return;
      case 'call':
        this.#onCall(message);
        return;
      case 'done':
        this.#end(message.end);
        this.#detach(true);
        return;
      case 'checked':
        return;
    }
  }

  #onCall(call: Extract<PythonToHost, { type: 'call' }>): void {
    clearTimeout(this.#stretchTimer);
    if (this.#phase === 'stopping') {
      // Stopped during the stretch: the process is told, or is free already.
      if (call.parked === undefined) this.#child?.send({ type: 'stop', jobId: this.#jobId, suspend: false });
      else this.#detach(true);
      return;
    }
    if (call.parked === undefined) this.#phase = 'calling';
    else {
      this.#parked = { ...call.parked, seq: call.seq, answered: false };
      this.#phase = 'parked';
      this.#detach(true);
    }
    void this.#answer(call.seq, call.tool, call.argsJson);
  }

  #onGone(how: string): void {
    this.#end({
      ok: false,
      kind: 'crash',
      message: `The Python process stopped unexpectedly (${how}); the run was lost. Other runs were not affected.`,
    });
    this.#detach(false);
  }

  /** Makes the call through the host and sends its outcome to the program. */
  async #answer(seq: number, tool: string, argsJson: string): Promise<void> {
    const started = performance.now();
    const { signal } = this.#call;
    const made = await this.#request.hostCall({ seq, toolName: tool, argsJson, signal }).catch(
      (error: unknown): HostCallOutcome => ({
        ok: false,
        code: typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : 'TOOL_ERROR',
        message: `${tool}: ${error instanceof Error ? error.message : String(error)}`,
      }),
    );
    // Stopped while it waited: the process was told, nothing more crosses.
    if (this.#settled || (this.#phase !== 'calling' && this.#phase !== 'parked')) return;
    const outcome = this.#bounded(made, tool);
    if (this.#phase === 'parked') {
      await this.#resume(outcome);
      return;
    }
    this.#waitedMs += performance.now() - started;
    const reload = this.#waitedMs > clockResetMs(this.#limits.cpuTimeMs);
    if (reload) this.#waitedMs = 0;
    this.#phase = 'python';
    this.#send({ type: 'answer', jobId: this.#jobId, outcome, reload });
  }

  /** The call a parked run waits on is answered: the run goes on in a free process, from its state. */
  async #resume(outcome: HostCallOutcome): Promise<void> {
    const parked = this.#parked!;
    parked.answered = true;
    let child: PythonChild;
    try {
      child = await this.#settings.take(this.#call.signal);
    } catch (error) {
      if (this.#settled || this.#phase === 'stopping') return;
      const why = error instanceof Error ? error.message : String(error);
      this.#end({ ok: false, kind: 'crash', message: `No Python process could take the run back: ${why}` });
      return;
    }
    if (this.#settled || this.#phase === 'stopping') {
      this.#settings.give(child);
      return;
    }
    this.#parked = undefined;
    this.#attach(child);
    this.#send({
      type: 'run',
      jobId: this.#jobId,
      code: '',
      functions: this.#request.functions,
      limits: this.#processLimits(),
      resumeFrom: { state: parked.state, seq: parked.seq },
      answer: outcome,
      carried: { cpuMs: parked.cpuMs, partialLine: parked.partialLine },
      ...(this.#logs.truncated ? { logsFull: true } : {}),
    });
  }

  /** An outcome larger than the process takes is refused: the program gets RESULT_TOO_LARGE. */
  #bounded(outcome: HostCallOutcome, tool: string): HostCallOutcome {
    const max = this.#settings.maxMessageBytes;
    if (!outcome.ok || outcome.valueJson.length <= max) return { ...outcome };
    const bytes = Buffer.byteLength(outcome.valueJson, 'utf8');
    if (bytes <= max) return { ...outcome };
    return {
      ok: false,
      code: 'RESULT_TOO_LARGE',
      message: `${tool}'s result is ${bytes} bytes as JSON, more than a Python program takes (${max} bytes): ask the tool for less`,
    };
  }
}
