// A Node child process of a test (a host the test kills, a claimer, an appender), watched:
// what it prints is kept, and each step that waits on it is bounded. Past the bound the
// step fails naming itself, with what the child printed and where its JavaScript stood
// (a Node diagnostic report, asked for with SIGUSR2), and the child is killed — instead of
// the test hanging until jest's timeout with nothing to say which step or why. The bound
// is for a bug (a child stuck for good), not for speed: a step gets tens of seconds.
import { afterAll } from '@jest/globals';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Room for a loaded 2-core machine (each Node start alone takes seconds there), yet under
 * the 60 s a test gets by default, so that the named failure comes before jest's timeout.
 */
export const STEP_BOUND_MS = 40_000;

let reportDirs = 0;

// A test that failed midway (an assertion, a step past its bound in another child) leaves
// the children it had not killed yet: a claimer holding its claim or a host waiting for
// its go file would run on after the test file, forever. They go with the file's end.
const live = new Set<ChildProcess>();
afterAll(() => {
  for (const child of live) child.kill('SIGKILL');
});

/** Where a stuck child was: its JavaScript stack and the handles keeping it alive, from a diagnostic report in `reports`. */
async function whereItStood(reports: string): Promise<string> {
  for (let i = 0; i < 60; i++) {
    const [name] = await readdir(reports).catch(() => []);
    // Node writes the report in parts: one read while it is being written is not JSON yet.
    const report =
      name === undefined ? undefined : await readFile(join(reports, name), 'utf8').then(parseReport, () => undefined);
    if (report !== undefined) {
      const handles = (report.libuv ?? []).filter((h) => h.is_active && h.is_referenced !== false).map((h) => h.type);
      const stack = (report.javascriptStack?.stack ?? []).slice(0, 8).join(' | ');
      return `stack: ${stack === '' ? '(none: idle in its event loop)' : stack}; live handles: ${handles.join(', ')}`;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return 'no diagnostic report (the process did not answer SIGUSR2: busy in JavaScript or native code, or gone)';
}

interface DiagnosticReport {
  javascriptStack?: { message?: string; stack?: string[] };
  libuv?: { type: string; is_active: boolean; is_referenced?: boolean }[];
}

function parseReport(text: string): DiagnosticReport | undefined {
  try {
    return JSON.parse(text) as DiagnosticReport;
  } catch {
    return undefined;
  }
}

/** Node's flags that make a child write a diagnostic report into `reports` on SIGUSR2 (`whereItStood` reads it). */
export function reportOnSignalArgs(reports: string): string[] {
  return ['--report-on-signal', '--report-signal=SIGUSR2', `--report-directory=${reports}`];
}

/** A fresh folder under `dir` for one child's diagnostic reports. */
export function reportsFolder(dir: string): string {
  const reports = join(dir, `reports-${process.pid}-${++reportDirs}`);
  mkdirSync(reports, { recursive: true });
  return reports;
}

/**
 * `work`, or past `ms` a failure naming `step`, with `output()` (what the child printed) and
 * where the child stood (its diagnostic report in `reports`: it was started with
 * `reportOnSignalArgs(reports)`); the child is then SIGKILLed.
 */
export async function boundStep<T>(
  child: ChildProcess,
  reports: string,
  step: string,
  work: Promise<T>,
  output: () => string,
  ms = STEP_BOUND_MS,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let overdue = false;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      overdue = true;
      child.kill('SIGUSR2');
      void whereItStood(reports)
        .catch((error: unknown) => `no diagnostic report (${String(error)})`)
        .then((where) => {
          child.kill('SIGKILL');
          reject(new Error(`${step}: not done within ${ms} ms (${output()}; ${where})`));
        });
    }, ms);
  });
  try {
    const done = await Promise.race([work, stuck]);
    // Done while its report was being read: still a failure, for the child is killed next.
    if (overdue) await stuck;
    return done;
  } finally {
    clearTimeout(timer);
  }
}

export interface WatchedChild {
  readonly child: ChildProcess;
  /** What it printed so far. */
  stdout(): string;
  stderr(): string;
  /** Its exit: the signal that ended it, or null (it exited by itself). */
  readonly exited: Promise<NodeJS.Signals | null>;
  /** Its exit, with all it printed read. */
  readonly finished: Promise<void>;
  /** `work`, or past `ms` a failure naming `step` with the child's output and where it stood (the child is then killed). */
  within<T>(step: string, work: Promise<T>, ms?: number): Promise<T>;
  /** Resolves once `ready()` holds (checked on each output and every 10 ms); fails if the child exits first, or as `within`. */
  until(step: string, ready: () => boolean, ms?: number): Promise<void>;
  /** SIGKILLs it and waits for its exit. */
  kill(): Promise<void>;
}

/** Spawns `node <args>` with pipes for stdout and stderr; its diagnostic reports go to a folder of their own under `dir`. */
export function spawnWatched(
  dir: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv } = {},
): WatchedChild {
  const reports = reportsFolder(dir);
  const child = spawn(process.execPath, [...reportOnSignalArgs(reports), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString();
    for (const listener of listeners) listener();
  });
  child.stderr!.on('data', (c: Buffer) => void (stderr += c.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  // Gone, and what it printed read: 'exit' may come before the last of its stdout (a
  // grandchild holding the pipe gets 500 ms).
  let done = false;
  const ended = new Promise<void>((resolve) => child.stdout!.once('close', resolve));
  const finished = exited
    // The timer resolves through setImmediate: past an event loop blocked for longer than
    // it, the stdout already in the pipe is read (poll phase) before this ends (check phase).
    .then(() => Promise.race([ended, new Promise((resolve) => setTimeout(() => setImmediate(resolve), 500))]))
    .then(() => {
      done = true;
      for (const listener of listeners) listener();
    });
  const within = <T>(step: string, work: Promise<T>, ms = STEP_BOUND_MS): Promise<T> =>
    boundStep(
      child,
      reports,
      `${step} (child ${args.map((a) => a.split('/').pop()).join(' ')})`,
      work,
      () => `stdout: ${JSON.stringify(stdout.slice(-2000))}; stderr: ${JSON.stringify(stderr.slice(-2000))}`,
      ms,
    );
  const until = (step: string, ready: () => boolean, ms?: number): Promise<void> => {
    let listener = (): void => {};
    let poll: ReturnType<typeof setInterval> | undefined;
    const met = new Promise<void>((resolve, reject) => {
      listener = () => {
        if (ready()) resolve();
        else if (done)
          reject(
            new Error(
              `${step}: the child exited first (stdout: ${JSON.stringify(stdout.slice(-2000))}; stderr: ${JSON.stringify(stderr.slice(-2000))})`,
            ),
          );
      };
      listeners.add(listener);
      poll = setInterval(listener, 10);
      listener();
    });
    return within(step, met, ms).finally(() => {
      listeners.delete(listener);
      clearInterval(poll);
    });
  };
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    finished,
    within,
    until,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
