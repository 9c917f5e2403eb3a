// The Python guest: runs a program in Monty, in this process, on the host's thread.
// Monty pauses the program at every call of a function it does not define; the call
// goes to the host (`hostCall`, the same bridge the TypeScript guest uses) and the
// program resumes with its answer, or with a RuntimeError carrying the call's code.
// A stretch of Python between two calls runs synchronously: Monty's own time limit
// bounds it, so it holds the host's thread for at most the CPU budget.
import { DEFAULT_LIMITS, MAX_PROGRAM_BYTES, resolveLimits, wallClockMessage } from '../limits.ts';
import { LogBuffer } from '../log-buffer.ts';
import { ABORT_MESSAGE } from '../run-request.ts';
import type { HostCallOutcome, JsonValue, RunOutcome, Sandbox, SandboxLimits } from '../types.ts';
import { loadMonty, type MontyModule } from './load-monty.ts';
import type { PythonFunction, PythonRunRequest } from './python-run-request.ts';
import { jsonDepth, MAX_PYTHON_VALUE_DEPTH, NotJsonError, pythonToJson } from './python-values.ts';
import { PrintLines } from './print-lines.ts';
import { runFailure, SavedStateError, type RunFailure } from './python-failure.ts';

/** The file name Python tracebacks give the program. */
export const PYTHON_SCRIPT_NAME = 'program.py';

/**
 * Monty's clock runs from the start of a program, paused time included; after this much
 * time spent waiting on tools (a quarter of the CPU budget, at most 1 s) the paused program
 * is dumped and loaded again, which starts its clock over. Its time limit is the CPU budget
 * plus this, so a stretch of Python stops within that whatever the tools took.
 */
const clockResetMs = (cpuTimeMs: number): number => Math.min(1_000, Math.max(1, Math.floor(cpuTimeMs / 4)));

type Progress =
  | InstanceType<MontyModule['MontySnapshot']>
  | InstanceType<MontyModule['MontyNameLookup']>
  | InstanceType<MontyModule['MontyComplete']>;

/** A Sandbox whose programs are Python (run requests carry `functions`). */
export class PythonSandbox implements Sandbox {
  readonly #monty: MontyModule;
  readonly #defaults: SandboxLimits;

  private constructor(monty: MontyModule, defaults: SandboxLimits) {
    this.#monty = monty;
    this.#defaults = defaults;
  }

  /** Loads Monty; rejects with one line naming the package to install when it is missing. */
  static async create(limits?: Partial<SandboxLimits>): Promise<PythonSandbox> {
    return new PythonSandbox(await loadMonty(), resolveLimits(DEFAULT_LIMITS, limits));
  }

  async run(request: PythonRunRequest): Promise<RunOutcome> {
    const limits = resolveLimits(this.#defaults, request.limits);
    const logs = new LogBuffer({ maxBytes: limits.maxLogBytes, maxLines: limits.maxLogLines }, quiet(request.onLog));
    const fail = (failure: RunFailure): RunOutcome => ({ ...failure, logs: logs.lines() });
    if (request.signal?.aborted) return fail({ ok: false, kind: 'abort', message: ABORT_MESSAGE });
    if (Buffer.byteLength(request.code, 'utf8') > MAX_PROGRAM_BYTES) {
      return fail({ ok: false, kind: 'compile', message: `The program is larger than ${MAX_PROGRAM_BYTES} bytes.` });
    }
    const run = new PythonRun(this.#monty, request, limits, logs);
    try {
      return await run.drive();
    } finally {
      run.dispose();
    }
  }

  /**
   * Monty's type check of a program against `prefix` (the stubs): `line:column message`
   * diagnostics in the program's own lines. Runs on this thread (tens of milliseconds).
   */
  async typeCheck(code: string, prefix: string): Promise<PythonTypeCheck> {
    const m = this.#monty;
    let program: InstanceType<MontyModule['Monty']>;
    try {
      program = new m.Monty(code, { scriptName: PYTHON_SCRIPT_NAME });
    } catch (error) {
      // A syntax error: the run reports it as its compile failure.
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
    try {
      program.typeCheck(prefix);
      return { ok: true, diagnostics: [] };
    } catch (error) {
      if (!(error instanceof m.MontyTypingError)) {
        return { ok: false, reason: error instanceof Error ? error.message : String(error) };
      }
      return { ok: true, diagnostics: programDiagnostics(error.displayDiagnostics('concise'), prefix) };
    }
  }

  async close(): Promise<void> {}
}

/** A type check's outcome, as the TypeScript checker gives it. */
export type PythonTypeCheck =
  | { readonly ok: true; readonly diagnostics: readonly PythonDiagnostic[] }
  | { readonly ok: false; readonly reason: string };

export interface PythonDiagnostic {
  readonly line: number;
  readonly column: number;
  readonly message: string;
  /** Always 0: Monty's checker names its rules in the message (`invalid-key`). */
  readonly code: number;
}

/** `program.py:86:5: error[rule] text` lines, moved from the checked text's lines to the program's. */
function programDiagnostics(concise: string, prefix: string): PythonDiagnostic[] {
  // Monty checks the prefix, a line break, then the program.
  const prefixLines = prefix.split('\n').length;
  const diagnostics: PythonDiagnostic[] = [];
  for (const line of concise.split('\n')) {
    const match = /^.*?:(\d+):(\d+): (.*)$/.exec(line);
    if (match === null) continue;
    const at = Number(match[1]) - prefixLines;
    // A finding inside the stubs is not the program's; Monty runs a top-level return.
    if (at < 1 || /`return` statement outside of a function/.test(match[3]!)) continue;
    diagnostics.push({ line: at, column: Number(match[2]), message: match[3]!, code: 0 });
  }
  return diagnostics;
}

/** One program's life: start, each call and resume, the result. */
class PythonRun {
  readonly #m: MontyModule;
  readonly #request: PythonRunRequest;
  readonly #limits: SandboxLimits;
  readonly #logs: LogBuffer;
  readonly #print: PrintLines;
  readonly #ended = new AbortController();
  readonly #wall = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #signal: AbortSignal;
  #cpuMs = 0;
  #calls = 0;

  constructor(m: MontyModule, request: PythonRunRequest, limits: SandboxLimits, logs: LogBuffer) {
    this.#m = m;
    this.#request = request;
    this.#limits = limits;
    this.#logs = logs;
    this.#print = new PrintLines(logs, limits.maxLogBytes);
    this.#timer = setTimeout(() => this.#wall.abort(), limits.wallTimeMs);
    this.#signal = AbortSignal.any([this.#wall.signal, ...(request.signal === undefined ? [] : [request.signal])]);
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#ended.abort();
  }

  #outcome(failure: RunFailure): RunOutcome {
    this.#print.flush();
    return { ...failure, logs: this.#logs.lines() };
  }

  /** Runs one synchronous stretch of the program, its time counted against the CPU budget. */
  #step(stretch: () => Progress): Progress {
    const started = performance.now();
    try {
      return stretch();
    } finally {
      this.#cpuMs += performance.now() - started;
    }
  }

  #stopped(): RunFailure | undefined {
    if (this.#wall.signal.aborted)
      return { ok: false, kind: 'timeout', message: wallClockMessage(this.#limits.wallTimeMs) };
    if (this.#request.signal?.aborted) return { ok: false, kind: 'abort', message: ABORT_MESSAGE };
    if (this.#cpuMs > this.#limits.cpuTimeMs) {
      return {
        ok: false,
        kind: 'cpu',
        message: `The program used more than ${this.#limits.cpuTimeMs} ms of CPU time (cpuTimeMs).`,
      };
    }
    return undefined;
  }

  async drive(): Promise<RunOutcome> {
    const m = this.#m;
    const printCallback = (_stream: string, text: string): void => this.#print.add(text);
    let progress: Progress;
    try {
      progress = this.#begin(printCallback);
      let waitedMs = 0;
      while (!(progress instanceof m.MontyComplete)) {
        const stopped = this.#stopped();
        if (stopped !== undefined) return this.#outcome(stopped);
        if (progress instanceof m.MontyNameLookup) {
          const lookup = progress;
          const known = Object.hasOwn(this.#request.functions, lookup.variableName);
          progress = this.#step(() =>
            known ? lookup.resume({ value: namedFunction(lookup.variableName) }) : lookup.resume(),
          );
          continue;
        }
        const call = progress;
        const answer = await this.#call(call.functionName, call.args, call.kwargs);
        if ('failure' in answer) {
          // Stopped from outside while it waited (a pause): its state, to continue from this call.
          if (answer.failure.kind !== 'abort') return this.#outcome(answer.failure);
          return this.#outcome({
            ...answer.failure,
            suspended: { state: call.dump().toString('base64'), seq: this.#calls },
          });
        }
        waitedMs += answer.waitedMs;
        let paused = call;
        if (waitedMs > clockResetMs(this.#limits.cpuTimeMs)) {
          paused = m.MontySnapshot.load(call.dump(), { printCallback });
          waitedMs = 0;
        }
        progress = this.#step(() => paused.resume(answer.resume));
      }
      const stopped = this.#stopped();
      if (stopped !== undefined) return this.#outcome(stopped);
      return this.#result(progress.output);
    } catch (error) {
      return this.#outcome(runFailure(m, error, this.#limits));
    }
  }

  /** The program's first stretch: from its start, or from the saved state of a paused run (at its pending call). */
  #begin(printCallback: (stream: string, text: string) => void): Progress {
    const m = this.#m;
    const saved = this.#request.resumeFrom;
    if (saved !== undefined) {
      let snapshot: InstanceType<MontyModule['MontySnapshot']>;
      try {
        snapshot = m.MontySnapshot.load(Buffer.from(saved.state, 'base64'), { printCallback });
      } catch (error) {
        throw new SavedStateError(error instanceof Error ? error.message : String(error));
      }
      this.#calls = saved.seq - 1;
      return snapshot;
    }
    const program = new m.Monty(this.#request.code, { scriptName: PYTHON_SCRIPT_NAME });
    return this.#step(() =>
      program.start({
        limits: {
          maxDurationSecs: (this.#limits.cpuTimeMs + clockResetMs(this.#limits.cpuTimeMs)) / 1000,
          maxMemory: this.#limits.memoryMb * 1_048_576,
        },
        printCallback,
      }),
    );
  }

  /** One call the program made: the host's answer as a resume, or the run's end. */
  async #call(
    name: string,
    args: readonly unknown[],
    kwargs: Record<string, unknown>,
  ): Promise<{ resume: ResumeWith; waitedMs: number } | { failure: RunFailure }> {
    const fn = Object.hasOwn(this.#request.functions, name) ? this.#request.functions[name] : undefined;
    if (fn === undefined) return { resume: raise('NameError', `name '${name}' is not defined`), waitedMs: 0 };
    if (args.length > 0) {
      return {
        resume: raise(
          'TypeError',
          `${name}() takes keyword arguments only, e.g. ${name}(${Object.keys(fn.parameters)[0] ?? 'arg'}=...)`,
        ),
        waitedMs: 0,
      };
    }
    let argsJson: string;
    try {
      argsJson = JSON.stringify(wireArguments(fn, kwargs, name));
    } catch (error) {
      if (!(error instanceof NotJsonError)) throw error;
      return { resume: raise('TypeError', `${error.message}: tool arguments cross as JSON`), waitedMs: 0 };
    }
    if (++this.#calls > this.#limits.maxCalls) {
      return {
        failure: {
          ok: false,
          kind: 'call-limit',
          message: `The program made more than ${this.#limits.maxCalls} tool calls (maxCalls).`,
        },
      };
    }
    const started = performance.now();
    const outcome = await this.#answer(name, fn.tool, argsJson);
    if (outcome === undefined)
      return { failure: this.#stopped() ?? { ok: false, kind: 'abort', message: ABORT_MESSAGE } };
    return { resume: resumeWith(outcome), waitedMs: performance.now() - started };
  }

  /** The host's outcome of a call, or undefined when the run was stopped while it waited. */
  async #answer(name: string, tool: string, argsJson: string): Promise<HostCallOutcome | undefined> {
    const signal = AbortSignal.any([this.#signal, this.#ended.signal]);
    if (signal.aborted) return undefined;
    const stopped = new Promise<undefined>((resolve) =>
      signal.addEventListener('abort', () => resolve(undefined), { once: true }),
    );
    const call = this.#request.hostCall({ seq: this.#calls, toolName: tool, argsJson, signal }).catch(
      (error: unknown): HostCallOutcome => ({
        ok: false,
        code: typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : 'TOOL_ERROR',
        message: `${name}: ${error instanceof Error ? error.message : String(error)}`,
      }),
    );
    return Promise.race([call, stopped]);
  }

  #result(output: unknown): RunOutcome {
    this.#print.flush();
    const logs = this.#logs.lines();
    // Python programs have no `state`: a session's state is kept as it was.
    const saved = this.#request.state?.saved;
    const state =
      saved === undefined
        ? {}
        : { state: { ok: true as const, text: saved === '' ? '{}' : saved, bytes: Buffer.byteLength(saved || '{}') } };
    // A program whose last statement is not an expression ends with None: no result.
    if (output === null || output === undefined) return { ok: true, logs, ...state };
    let result: JsonValue;
    try {
      result = pythonToJson(output, 'result');
    } catch (error) {
      if (!(error instanceof NotJsonError)) throw error;
      return { ok: false, kind: 'invalid-output', message: `The returned value is not JSON: ${error.message}.`, logs };
    }
    const bytes = Buffer.byteLength(JSON.stringify(result), 'utf8');
    if (bytes > this.#limits.maxResultBytes) {
      return {
        ok: false,
        kind: 'output-limit',
        message: `The returned value is ${bytes} bytes as JSON, over the result limit of ${this.#limits.maxResultBytes} bytes. Return less data, e.g. a summary or the first items.`,
        logs,
      };
    }
    return { ok: true, logs, result, ...state };
  }
}

type ResumeWith = { returnValue: unknown } | { exception: { type: string; message: string } };

const raise = (type: string, message: string): ResumeWith => ({ exception: { type, message } });

/** A call's outcome as what the program resumes with: its value, or RuntimeError "CODE: message". */
function resumeWith(outcome: HostCallOutcome): ResumeWith {
  if (!outcome.ok) return raise('RuntimeError', `${outcome.code}: ${outcome.message}`);
  const value: unknown = JSON.parse(outcome.valueJson);
  if (jsonDepth(value, MAX_PYTHON_VALUE_DEPTH) > MAX_PYTHON_VALUE_DEPTH) {
    return raise(
      'RuntimeError',
      `RESULT_TOO_DEEP: the tool's result nests deeper than ${MAX_PYTHON_VALUE_DEPTH} levels`,
    );
  }
  return { returnValue: value };
}

/** The wire arguments of a call: mapped names, `None` left out where it means "absent". */
function wireArguments(
  fn: PythonFunction,
  kwargs: Record<string, unknown>,
  name: string,
): { [key: string]: JsonValue } {
  const args: { [key: string]: JsonValue } = {};
  for (const [key, value] of Object.entries(kwargs)) {
    const parameter = Object.hasOwn(fn.parameters, key) ? fn.parameters[key] : undefined;
    if (value === null && parameter?.noneOmits === true) continue;
    Object.defineProperty(args, parameter?.wire ?? key, {
      value: pythonToJson(value, `${name}(${key}=…)`),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return args;
}

/** What a tool's name stands for when a program reads it without calling it (`f = list_orders`). */
function namedFunction(name: string): () => void {
  const fn = (): void => {};
  Object.defineProperty(fn, 'name', { value: name });
  return fn;
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
