// One Python program's life in a Python process: start (or load a paused run's state),
// each call and resume, the result. Monty pauses the program at every call of a function
// it does not define; the call goes to the host over the link and the program resumes
// with its answer, or with a RuntimeError carrying the call's code. A stretch of Python
// between two calls runs synchronously in this process: Monty's time limit bounds it,
// and the host kills the process when a stretch outlives that (a single long operation).
import { MAX_ARGS_BYTES } from '../limits.ts';
import { LogBuffer } from '../log-buffer.ts';
import { ABORT_MESSAGE } from '../run-request.ts';
import type { HostCallOutcome, JsonValue } from '../types.ts';
import type { MontyModule } from './load-monty.ts';
import type { PythonParkedRun, PythonProcessLimits, PythonRunEnd } from './python-messages.ts';
import type { PythonFunction, PythonRunRequest } from './python-run-request.ts';
import { jsonDepth, MAX_PYTHON_VALUE_DEPTH, NotJsonError, pythonToJson } from './python-values.ts';
import { PrintLines } from './print-lines.ts';
import { runFailure, SavedStateError, type RunFailure } from './python-failure.ts';
import { PYTHON_SCRIPT_NAME } from './python-type-check.ts';

/**
 * Monty's clock runs from the start of a program, paused time included; after this much
 * time spent waiting on tools (a quarter of the CPU budget, at most 1 s) the paused program
 * is dumped and loaded again, which starts its clock over. Its time limit is the CPU budget
 * plus this, so a stretch of Python stops within that whatever the tools took.
 */
export const clockResetMs = (cpuTimeMs: number): number => Math.min(1_000, Math.max(1, Math.floor(cpuTimeMs / 4)));

/** What the host answers a call with: its outcome, or that the run was stopped while it waited. */
export type PythonCallAnswer =
  | { readonly outcome: HostCallOutcome; readonly reload: boolean }
  | { readonly stop: true; readonly suspend: boolean };

/** The run's way to its host. */
export interface PythonRunLink {
  /** A call the program waits on in this process. */
  call(seq: number, tool: string, argsJson: string): Promise<PythonCallAnswer>;
  /** A call the program waits on elsewhere: it left this process (its state is in `parked`). */
  park(seq: number, tool: string, argsJson: string, parked: PythonParkedRun): void;
  log(line: string): void;
  logsTruncated(by: 'bytes' | 'lines'): void;
}

export interface PythonProgram {
  readonly code: string;
  readonly functions: PythonRunRequest['functions'];
  readonly limits: PythonProcessLimits;
  readonly resumeFrom?: PythonRunRequest['resumeFrom'];
  /** With `resumeFrom`: the outcome of its pending call (it is not made again). */
  readonly answer?: HostCallOutcome;
  /** With `resumeFrom`: what the run carries on with from its last process. */
  readonly carried?: Omit<PythonParkedRun, 'state'>;
  /** The host keeps no more log lines: print() output is dropped here. */
  readonly logsFull?: boolean;
}

/** The run left this process at a call: another one goes on with it. */
export const PARKED = 'parked';

type Progress =
  | InstanceType<MontyModule['MontySnapshot']>
  | InstanceType<MontyModule['MontyNameLookup']>
  | InstanceType<MontyModule['MontyComplete']>;

export class PythonProgramRun {
  readonly #m: MontyModule;
  readonly #program: PythonProgram;
  readonly #limits: PythonProcessLimits;
  readonly #link: PythonRunLink;
  readonly #print: PrintLines;
  #cpuMs = 0;
  #calls = 0;

  constructor(m: MontyModule, program: PythonProgram, link: PythonRunLink) {
    this.#m = m;
    this.#program = program;
    this.#limits = program.limits;
    this.#link = link;
    this.#cpuMs = program.carried?.cpuMs ?? 0;
    const logs: LogBuffer = new LogBuffer(
      { maxBytes: this.#limits.maxLogBytes, maxLines: this.#limits.maxLogLines },
      (line) => {
        // The buffer marks itself truncated before it hands over its marker.
        if (logs.truncatedBy === undefined) link.log(line);
        else link.logsTruncated(logs.truncatedBy);
      },
    );
    if (program.logsFull === true) logs.markTruncated();
    this.#print = new PrintLines(logs, this.#limits.maxLogBytes, program.carried?.partialLine);
  }

  #end(failure: RunFailure): PythonRunEnd {
    this.#print.flush();
    return failure;
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

  #overBudget(): RunFailure | undefined {
    if (this.#cpuMs <= this.#limits.cpuTimeMs) return undefined;
    return {
      ok: false,
      kind: 'cpu',
      message: `The program used more than ${this.#limits.cpuTimeMs} ms of CPU time (cpuTimeMs).`,
    };
  }

  async drive(): Promise<PythonRunEnd | typeof PARKED> {
    const m = this.#m;
    const printCallback = (_stream: string, text: string): void => this.#print.add(text);
    let progress: Progress;
    try {
      progress = this.#begin(printCallback);
      while (!(progress instanceof m.MontyComplete)) {
        const over = this.#overBudget();
        if (over !== undefined) return this.#end(over);
        if (progress instanceof m.MontyNameLookup) {
          const lookup = progress;
          const known = Object.hasOwn(this.#program.functions, lookup.variableName);
          progress = this.#step(() =>
            known ? lookup.resume({ value: namedFunction(lookup.variableName) }) : lookup.resume(),
          );
          continue;
        }
        const call = progress;
        const answer = await this.#call(call, call.functionName, call.args, call.kwargs);
        if ('parked' in answer) return PARKED;
        if ('failure' in answer) return this.#end(answer.failure);
        if ('stop' in answer) return this.#end(this.#stopped(call, answer.suspend));
        const paused = answer.reload ? m.MontySnapshot.load(call.dump(), { printCallback }) : call;
        progress = this.#step(() => paused.resume(answer.resume));
      }
      const over = this.#overBudget();
      if (over !== undefined) return this.#end(over);
      return this.#result(progress.output);
    } catch (error) {
      return this.#end(runFailure(m, error, this.#limits));
    }
  }

  /** Stopped from outside while it waited (a pause): its state, to continue from this call. */
  #stopped(call: InstanceType<MontyModule['MontySnapshot']>, suspend: boolean): RunFailure {
    const stopped = { ok: false, kind: 'abort', message: ABORT_MESSAGE } as const;
    if (!suspend) return stopped;
    const state = call.dump();
    // Too large to cross: the run ends without a state (the host reports it cannot pause).
    if (state.byteLength > (this.#limits.maxStateBytes * 3) / 4) return stopped;
    return { ...stopped, suspended: { state: state.toString('base64'), seq: this.#calls } };
  }

  /** The program's first stretch: from its start, or from the saved state of a paused run (at its pending call). */
  #begin(printCallback: (stream: string, text: string) => void): Progress {
    const m = this.#m;
    const saved = this.#program.resumeFrom;
    if (saved !== undefined) {
      let snapshot: InstanceType<MontyModule['MontySnapshot']>;
      try {
        snapshot = m.MontySnapshot.load(Buffer.from(saved.state, 'base64'), { printCallback });
      } catch (error) {
        throw new SavedStateError(error instanceof Error ? error.message : String(error));
      }
      const { answer } = this.#program;
      if (answer === undefined) {
        this.#calls = saved.seq - 1;
        return snapshot;
      }
      // Its pending call was made and answered while it was in no process.
      this.#calls = saved.seq;
      return this.#step(() => snapshot.resume(resumeWith(answer)));
    }
    const program = new m.Monty(this.#program.code, { scriptName: PYTHON_SCRIPT_NAME });
    const limits = this.#limits;
    return this.#step(() =>
      program.start({
        limits: {
          maxDurationSecs: (limits.cpuTimeMs + clockResetMs(limits.cpuTimeMs)) / 1000,
          maxMemory: limits.memoryMb * 1_048_576,
          ...(limits.maxAllocations === undefined ? {} : { maxAllocations: limits.maxAllocations }),
        },
        printCallback,
      }),
    );
  }

  /** One call the program made: the host's answer as a resume, the run's end, or the host's stop. */
  async #call(
    call: InstanceType<MontyModule['MontySnapshot']>,
    name: string,
    args: readonly unknown[],
    kwargs: Record<string, unknown>,
  ): Promise<
    | { resume: ResumeWith; reload: boolean }
    | { failure: RunFailure }
    | { stop: true; suspend: boolean }
    | { parked: true }
  > {
    const functions = this.#program.functions;
    const fn = Object.hasOwn(functions, name) ? functions[name] : undefined;
    if (fn === undefined) return { resume: raise('NameError', `name '${name}' is not defined`), reload: false };
    if (args.length > 0) {
      const first = Object.keys(fn.parameters)[0] ?? 'arg';
      return {
        resume: raise('TypeError', `${name}() takes keyword arguments only, e.g. ${name}(${first}=...)`),
        reload: false,
      };
    }
    let argsJson: string;
    try {
      argsJson = JSON.stringify(wireArguments(fn, kwargs, name));
    } catch (error) {
      if (!(error instanceof NotJsonError)) throw error;
      return { resume: raise('TypeError', `${error.message}: tool arguments cross as JSON`), reload: false };
    }
    // Bounded before it crosses to the host (the host checks the same limit).
    if (Buffer.byteLength(argsJson, 'utf8') > MAX_ARGS_BYTES) {
      const message = `ARGS_TOO_LARGE: ${name}() arguments are larger than ${MAX_ARGS_BYTES} bytes as JSON: not dispatched`;
      return { resume: raise('RuntimeError', message), reload: false };
    }
    if (++this.#calls > this.#limits.maxCalls) {
      const message = `The program made more than ${this.#limits.maxCalls} tool calls (maxCalls).`;
      return { failure: { ok: false, kind: 'call-limit', message } };
    }
    const state = this.#parkable(call);
    if (state !== undefined) {
      this.#link.park(this.#calls, fn.tool, argsJson, { state, cpuMs: this.#cpuMs, partialLine: this.#print.partial });
      return { parked: true };
    }
    const answer = await this.#link.call(this.#calls, fn.tool, argsJson);
    if ('stop' in answer) return answer;
    return { resume: resumeWith(answer.outcome), reload: answer.reload };
  }

  /**
   * The program's saved state at `call` (base64) when it is small enough to leave this
   * process while it waits: a run waiting on a tool then holds no process, only its state.
   */
  #parkable(call: InstanceType<MontyModule['MontySnapshot']>): string | undefined {
    if (this.#limits.parkStateBytes === 0) return undefined;
    const state = call.dump();
    return state.byteLength > this.#limits.parkStateBytes ? undefined : state.toString('base64');
  }

  #result(output: unknown): PythonRunEnd {
    this.#print.flush();
    // A program whose last statement is not an expression ends with None: no result.
    if (output === null || output === undefined) return { ok: true };
    let result: JsonValue;
    try {
      result = pythonToJson(output, 'result');
    } catch (error) {
      if (!(error instanceof NotJsonError)) throw error;
      return { ok: false, kind: 'invalid-output', message: `The returned value is not JSON: ${error.message}.` };
    }
    // Checked here, so no result larger than the limit crosses to the host.
    const bytes = Buffer.byteLength(JSON.stringify(result), 'utf8');
    if (bytes > this.#limits.maxResultBytes) {
      return {
        ok: false,
        kind: 'output-limit',
        message: `The returned value is ${bytes} bytes as JSON, over the result limit of ${this.#limits.maxResultBytes} bytes. Return less data, e.g. a summary or the first items.`,
      };
    }
    return { ok: true, result };
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
