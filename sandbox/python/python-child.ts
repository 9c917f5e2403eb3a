// One Python process as the host holds it: forked from python-process.ts, ready once
// Monty is loaded, given one job at a time (the pool, python-process-pool.ts, sees to
// that), killed by the host when a job's stretch of Python outlives its budget.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CpuWaitMeter } from '../cpu-wait-meter.ts';
import { forgetOnHostExit, killOnHostExit } from '../host-exit-kill.ts';
import { sandboxProcessEnv } from '../sandbox-process-env.ts';
import { DEFAULT_STARTUP_LIMIT_MS, watchStartup } from '../startup-limit.ts';
import { type HostToPython, parsePythonMessage, type PythonToHost } from './python-messages.ts';

// Run from the sources (.ts, Node strips the types) or from the built package (.js).
const PROCESS_ENTRY = fileURLToPath(
  new URL(`./python-process${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
);

/** What the current job hears from its process. */
export interface PythonJobListener {
  message(message: PythonToHost): void;
  /** The process is gone (`how`: a signal, an exit code, or why the host killed it). */
  gone(how: string): void;
}

export class PythonChild {
  readonly process: ChildProcess;
  /** Settles once Monty is loaded (rejects when the process cannot run Python). */
  readonly ready: Promise<void>;
  /** Settles when the process has exited. */
  readonly exited: Promise<void>;
  /** What Linux says about its main thread: time it waited for a CPU is given back to a stretch. */
  readonly cpuWait: CpuWaitMeter | undefined;
  /** Jobs it has taken. */
  jobs = 0;
  dead = false;
  /** Why the host killed it, if it did. */
  killedBecause: string | undefined;
  #listener: PythonJobListener | undefined;
  #onGone: ((child: PythonChild, how: string) => void) | undefined;

  constructor(onGone: (child: PythonChild, how: string) => void) {
    this.#onGone = onGone;
    this.process = fork(PROCESS_ENTRY, [], {
      execArgv: ['--disable-warning=ExperimentalWarning'],
      serialization: 'json',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      env: sandboxProcessEnv(process.env),
    });
    this.cpuWait = this.process.pid === undefined ? undefined : new CpuWaitMeter(this.process.pid);
    killOnHostExit(this.process);
    let markReady!: () => void;
    let markUnusable!: (error: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      markUnusable = reject;
    });
    // Nobody may be waiting on it yet (a process started ahead of need).
    this.ready.catch(() => {});
    // Ready once Monty is loaded; waits for a CPU on a loaded host are not held against it.
    let loaded = false;
    const startup = watchStartup({
      limitMs: DEFAULT_STARTUP_LIMIT_MS,
      meter: this.cpuWait,
      isReady: () => loaded,
      kill: (why) => this.kill(`${why}, loading Monty`),
    });
    let markExited!: () => void;
    this.exited = new Promise<void>((resolve) => {
      markExited = resolve;
    });
    let unusable: string | undefined;
    this.process.on('message', (value) => {
      const message = parsePythonMessage(value);
      if (message === undefined) return;
      if (message.type === 'ready') {
        loaded = true;
        startup.stop();
        markReady();
      } else if (message.type === 'unusable') unusable = message.message;
      else this.#listener?.message(message);
    });
    const gone = (how: string): void => {
      if (this.dead) return;
      this.dead = true;
      startup.stop();
      forgetOnHostExit(this.process);
      markUnusable(new Error(`the Python process could not start: ${unusable ?? this.killedBecause ?? how}`));
      const listener = this.#listener;
      this.#listener = undefined;
      listener?.gone(this.killedBecause ?? how);
      this.#onGone?.(this, how);
      this.#onGone = undefined;
      markExited();
    };
    // fork() failed (EAGAIN, EMFILE): an 'error' and no 'exit'.
    this.process.on('error', (error) => {
      if (this.process.pid === undefined || this.process.exitCode !== null) gone(error.message);
    });
    this.process.on('exit', (code, signal) => gone(signal !== null ? `signal ${signal}` : `exit code ${String(code)}`));
    this.idle();
  }

  /** The current job's listener (one job at a time); undefined between jobs. */
  listen(listener: PythonJobListener | undefined): void {
    this.#listener = listener;
  }

  send(message: HostToPython): void {
    if (this.dead || !this.process.connected) return;
    try {
      this.process.send(message);
    } catch {
      // It is going away: its 'exit' ends the job.
    }
  }

  kill(because: string): void {
    if (this.dead) return;
    this.killedBecause ??= because;
    this.process.kill('SIGKILL');
  }

  /** A process with a job keeps the host's event loop alive; an idle one does not. */
  busy(): void {
    this.process.ref();
    this.process.channel?.ref();
  }

  idle(): void {
    this.process.unref();
    this.process.channel?.unref();
  }
}
