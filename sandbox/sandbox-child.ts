// One sandbox process (a child of the host) and the runs it holds: what the host keeps of
// each (Child, HostRun), how one is forked and followed until it is gone (startChild), and
// how a message reaches it. The pool that hands runs to these processes: process-sandbox.ts;
// re-runs of the runs a dead process held: reruns.ts.
import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import { HostBlockingLink } from './blocking-call-pipe.ts';
import { forgetOnHostExit, killOnHostExit } from './host-exit-kill.ts';
import type { CallBridge } from './call-bridge.ts';
import type { CallRecord } from './call-record.ts';
import { CpuWaitMeter } from './cpu-wait-meter.ts';
import type { CompiledProgram } from './compiled-program.ts';
import type { CallItem, CallResultItem, ChildConfig, HostToChild } from './ipc-messages.ts';
import type { LogBuffer } from './log-buffer.ts';
import type { RawRunOutcome } from './run-outcome.ts';
import { sandboxProcessEnv } from './sandbox-process-env.ts';
import { DEFAULT_STARTUP_LIMIT_MS, watchStartup } from './startup-limit.ts';
import { StartupStderr } from './startup-stderr.ts';
import type { FailureKind, ProgramState, RunDeterminism, RunRequest, SandboxLimits } from './types.ts';

export interface HostRun {
  readonly runId: number;
  /** The process running the current attempt. */
  child: Child;
  /** The current attempt's bridge; `bridges` holds every attempt's (closed at the end). */
  bridge: CallBridge;
  readonly bridges: CallBridge[];
  readonly record: CallRecord;
  readonly hostCall: RunRequest['hostCall'];
  readonly program: Pick<CompiledProgram, 'js' | 'lineCount'>;
  readonly toolNames: string[];
  readonly logs: LogBuffer;
  readonly limits: SandboxLimits;
  /** The same seed and clock start for every attempt: a re-run sees the first attempt's randomness and time. */
  readonly determinism: RunDeterminism;
  /** Sessions: the program's `state` global, the same for every attempt. */
  readonly state: ProgramState | undefined;
  readonly resolve: (outcome: RawRunOutcome) => void;
  /** 1, then 2 and 3 as it is re-run after its process died (see reruns.ts). */
  attempt: number;
  /** The current attempt shares a re-run process with other runs' re-runs. */
  shared: boolean;
  /** Its re-run waits for a re-run process (see maxRerunProcesses); it is in no child's runs. */
  waiting?: boolean;
  /** Calls of the current attempt not answered yet. */
  callsOut: number;
  /**
   * When an outcome last went to the current attempt after its latest call: the count of
   * its process's messages heard by then (see reruns.ts). Undefined: none since that call.
   */
  answeredAtMessage: number | undefined;
  /**
   * The IPC message to its process that carried that outcome (1-based, see `Child.ipcSent`);
   * Infinity while it waits to be sent in a batch; undefined when it went on the blocking pipe.
   */
  answerSentAs: number | undefined;
  /** Log lines received in this attempt; a re-run's first lines repeat the first attempt's. */
  logLines: number;
  repeatedLogLines: number;
  /** When the wall-clock limit ends the run (set once its first process is ready). */
  deadline?: number;
  cancelKind?: FailureKind;
  cancelMessage?: string;
  wallTimer?: ReturnType<typeof setTimeout>;
  killTimer?: ReturnType<typeof setTimeout>;
}

/** How the host sees one of its sandbox processes (for tests and diagnostics). */
export interface ProcessView {
  readonly pid: number | undefined;
  readonly ready: boolean;
  /** It takes no new runs and exits once its runs are done (recycled, retired, or a re-run process). */
  readonly draining: boolean;
  readonly retired: boolean;
  readonly dead: boolean;
  /** Runs in flight on it, and runs it has taken in all. */
  readonly runs: number;
  readonly runsTaken: number;
}

export const viewOf = (child: Child): ProcessView => ({
  pid: child.process.pid,
  ready: child.ready,
  draining: child.draining,
  retired: child.retired,
  dead: child.dead,
  runs: child.runs.size,
  runsTaken: child.runsTaken,
});

export interface Child {
  readonly process: ChildProcess;
  readonly runs: Map<number, HostRun>;
  readonly exited: Promise<void>;
  ready: boolean;
  runsTaken: number;
  /** Run once the child reports ready (its start-up does not count against a run's deadline). */
  readonly onReady: Array<() => void>;
  draining: boolean;
  /** It asked to be replaced (isolated-vm parked a thread for good): no re-run joins it. */
  retired: boolean;
  dead: boolean;
  /**
   * When the child last sent anything (any message is a sign of life), moved on by the
   * time nobody could hear it: the host's own thread blocked, or the child's waiting for a CPU.
   */
  lastHeard: number;
  /** What Linux says about its main thread (cpu-wait-meter.ts); undefined where it has no pid. */
  readonly cpuWait: CpuWaitMeter | undefined;
  /** Messages heard from it (IPC and blocking calls): what an outcome sent to it may have been followed by. */
  messagesHeard: number;
  /** IPC messages sent to it. */
  ipcSent: number;
  /**
   * The most of those it said it had handled (each of its messages says how many): an
   * outcome sent as a later message never reached it, whatever is read after it dies.
   */
  ipcHandled: number;
  /** Why the host killed it, if it did, for the runs' messages. */
  killedBecause?: string;
  /** Calls it sent whose outcome has not been sent back yet. */
  callsOut: number;
  /** Its runs that reported themselves CPU-bound (cpu-lanes.ts). */
  readonly heavyRuns: Set<number>;
  /** It was told to demote its CPU-bound threads (until its CPU-bound runs end). */
  demoted: boolean;
  /** Its resident memory in bytes, as it last reported (ready, pong, done). */
  rss: number;
  /** Outcomes waiting to cross in one message (see process-sandbox.ts #sendResult). */
  results: CallResultItem[];
  resultsScheduled: boolean;
  /** The pipes of calls it blocks on (blocking-call-pipe.ts), when blocking calls are on. */
  blocking?: HostBlockingLink;
  /** Its stderr until it is ready (not when its output is inherited). */
  startupStderr?: StartupStderr;
}

// The child runs one CommonJS bundle (`npm run bundle`), never TypeScript or ESM: Node
// strips types with a WebAssembly compiler and reads CommonJS exports for ESM with
// another, and V8's WebAssembly code GC, running on a background thread while isolates
// come and go, deadlocked the child (isolated-vm 7.0.1 on Node 24 and 26: a fresh
// process hung a run now and then under load). No WebAssembly in the child, no deadlock.
const CHILD_ENTRY = fileURLToPath(new URL('./sandbox-process.bundle.cjs', import.meta.url));
/** How long the host reads what a process that died at start still has on its stderr. */
const STARTUP_STDERR_WAIT_MS = 200;
/** A watchdog timer this late means the host's own thread was blocked, not that a child hung. */
export const LATE_TIMER_MS = 50;
/** Children that die before reporting ready this many times in a row are not respawned eagerly. */
export const MAX_EARLY_DEATHS = 3;

/**
 * Stands for a process fork() threw for: never started, it reports that the way a spawn
 * that failed later does (an 'error' on the next tick, no 'spawn', no 'exit').
 */
function unstartedProcess(error: unknown): ChildProcess {
  const unstarted = Object.assign(new EventEmitter(), {
    pid: undefined,
    connected: false,
    stdio: null,
    channel: undefined,
    kill: () => false,
    ref: () => undefined,
    unref: () => undefined,
  });
  // Not `instanceof Error`: an error from another realm is one too.
  const reason =
    typeof (error as { message?: unknown } | null)?.message === 'string' ? error : new Error(String(error));
  process.nextTick(() => unstarted.emit('error', reason));
  return unstarted as unknown as ChildProcess;
}

/** What a child reports to the pool that started it. */
export interface ChildEvents {
  /** An IPC message (the child's `blocking` link is told after it was handled). */
  message(child: Child, value: unknown): void;
  /** A call the child blocks on, for one of its runs. */
  call(child: Child, run: HostRun, call: Omit<CallItem, 'runId'>): void;
  /** It died before it was ready; what it wrote at start is being read (no run may go to it). */
  dyingAtStart(child: Child): void;
  /** It is gone (`dead` is set): its runs must end or be re-run. Called once. */
  gone(child: Child, how: string): void;
}

/** Forks the sandbox process; one that fork() itself threw for stands in as a process that could not start. */
function forkChild(config: ChildConfig, output: 'ignore' | 'inherit'): ChildProcess {
  const env = sandboxProcessEnv(process.env);
  try {
    return fork(CHILD_ENTRY, [JSON.stringify(config)], {
      // --no-sparkplug: every fresh isolate compiled the prelude's hot functions again
      // with V8's baseline compiler (those marked in the code cache at once, on a worker
      // thread), ~0.3 ms of CPU per run for code an isolate runs once; a program that
      // computes long still reaches V8's optimizing tiers (bench/README "Start CPU per
      // run (ninth stop)").
      execArgv: ['--no-node-snapshot', '--disable-warning=ExperimentalWarning', '--no-sparkplug'],
      // Every message is plain JSON data; 'json' is cheaper per message than 'advanced'.
      serialization: 'json',
      // fds 4 and 5: the blocking-call pipes (blocking-call-pipe.ts).
      // stderr is read until the process is ready (startup-stderr.ts), unless inherited.
      stdio: [
        'ignore',
        output,
        output === 'ignore' ? 'pipe' : output,
        'ipc',
        ...(config.blockingCalls ? (['pipe', 'pipe'] as const) : []),
      ],
      env,
    });
  } catch (error) {
    // fork() itself threw (ENOMEM, E2BIG…), maybe inside an 'exit' handler that respawns:
    // reported like a process that could not be started, never as a throw.
    return unstartedProcess(error);
  }
}

/** The host's record of a process just forked: not ready, no runs, heard from now. */
function newChild(childProcess: ChildProcess, exited: Promise<void>): Child {
  return {
    process: childProcess,
    runs: new Map(),
    exited,
    ready: false,
    runsTaken: 0,
    lastHeard: Date.now(),
    messagesHeard: 0,
    ipcSent: 0,
    ipcHandled: 0,
    cpuWait: childProcess.pid === undefined ? undefined : new CpuWaitMeter(childProcess.pid),
    callsOut: 0,
    heavyRuns: new Set(),
    demoted: false,
    rss: 0,
    results: [],
    resultsScheduled: false,
    onReady: [],
    draining: false,
    retired: false,
    dead: false,
  };
}

/**
 * Forks one sandbox process and follows it until it is gone: its start-up limit, its
 * messages and blocking calls, its death (reported with what it wrote at start when it
 * died before it was ready), and the host's exit (which takes it along).
 * Long: kept in one piece. The process's listeners share its `child` record and
 * the one `onGone` they all end in.
 */
export function startChild(
  config: ChildConfig,
  output: 'ignore' | 'inherit',
  events: ChildEvents,
  startupLimitMs: number = DEFAULT_STARTUP_LIMIT_MS,
): Child {
  const childProcess = forkChild(config, output);
  // A process that could not be started (no file descriptor or process left: EMFILE,
  // EAGAIN) reports 'error' instead of 'spawn', has no stdio and never emits 'exit':
  // it counts as one that died at once. Listened to first: an 'error' without a
  // listener would take the host down.
  let spawned = false;
  childProcess.once('spawn', () => {
    spawned = true;
  });
  childProcess.on('error', (error) => {
    // After 'spawn': an IPC failure; 'exit' (or the watchdog) follows and fails the runs.
    if (!spawned && !child.dead) onGone(`it could not be started: ${error.message}`);
  });
  let markExited!: () => void;
  const exited = new Promise<void>((resolve) => {
    markExited = resolve;
  });
  const child = newChild(childProcess, exited);
  const startup = watchStartup({
    limitMs: startupLimitMs,
    meter: child.cpuWait,
    isReady: () => child.ready,
    kill: (why) => {
      child.killedBecause ??= why;
      childProcess.kill('SIGKILL');
    },
  });
  void child.exited.then(() => startup.stop());
  killOnHostExit(childProcess);
  childProcess.on('message', (value) => {
    try {
      events.message(child, value);
    } finally {
      // A call the process blocked on after sending this message may go on now.
      child.blocking?.heard();
    }
  });
  const stdio = childProcess.stdio as readonly unknown[] | null | undefined;
  const stderr = stdio?.[2] as Readable | null | undefined;
  if (stderr) child.startupStderr = new StartupStderr(stderr);
  const [answers, calls] = (stdio ?? []).slice(4, 6) as [Writable?, Readable?];
  if (answers && calls) {
    child.blocking = new HostBlockingLink(
      answers,
      calls,
      (call) => {
        child.lastHeard = Date.now();
        child.messagesHeard += 1;
        const run = child.runs.get(call.runId);
        if (run === undefined) child.blocking?.release();
        else events.call(child, run, call);
      },
      (why) => {
        child.killedBecause ??= `it sent ${why} and was killed`;
        childProcess.kill('SIGKILL');
      },
    );
  }
  const onGone = (how: string): void => {
    child.dead = true;
    forgetOnHostExit(childProcess);
    events.gone(child, how);
    markExited();
  };
  childProcess.on('exit', (code, signal) => {
    const how = child.killedBecause ?? (signal !== null ? `signal ${signal}` : `exit code ${String(code)}`);
    const startup = child.ready ? undefined : child.startupStderr;
    if (startup === undefined) {
      onGone(how);
      return;
    }
    // Died before it was ready: what it wrote says why (read to its end, briefly). No run
    // goes to it meanwhile.
    child.dead = true;
    events.dyingAtStart(child);
    startup.afterEnd(
      STARTUP_STDERR_WAIT_MS,
      () => {
        const said = startup.reason;
        onGone(said === '' ? how : `${how}; at start it wrote: ${said}`);
      },
      child.runs.size > 0,
    );
  });
  unrefChild(child);
  return child;
}

/** Sends `message` to `child` now (nothing if it is gone); the pool orders it after gathered outcomes. */
export function sendNow(child: Child, message: HostToChild): void {
  if (child.dead || !child.process.connected) return;
  // A process blocked on a call reads nothing else: let it go on first.
  child.blocking?.willSend();
  try {
    child.process.send(message);
    child.ipcSent += 1;
    child.blocking?.sent();
  } catch {
    // the child is going away; its 'exit' fails the runs
  }
}

// An idle sandbox process must not keep the host's event loop alive.
export function refChild(child: Child): void {
  child.process.ref();
  child.process.channel?.ref();
  child.blocking?.ref(true);
}

export function unrefChild(child: Child): void {
  child.process.unref();
  child.process.channel?.unref();
  child.blocking?.ref(false);
}
