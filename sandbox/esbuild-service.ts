// esbuild's `transform`, bounded and self-healing. esbuild keeps one long-lived service
// process; a hostile program can kill it (a Go stack overflow on deep nesting) or keep it
// busy for many seconds (quadratic paths), and esbuild never restarts a dead service on
// its own: every later call would fail with "The service is no longer running". Here a
// transform has a deadline; a dead or overdue service is stopped (the next call starts a
// fresh one), and a transform that died with the service but did not cause it is retried
// once, alone, so that one program cannot fail another program's compile.
// The service's stderr goes to a file of ours, not the host's stderr (see esbuild-stderr.ts):
// esbuild reads where its binary is when it loads, so it is loaded here by a dynamic import,
// once that file has run. (A static import is not enough: a loader may evaluate a CommonJS
// dependency such as esbuild before the modules that import it, as jest's ESM loader does.)
import { takeEsbuildStderr } from './esbuild-stderr.ts';
import type { TransformOptions, TransformResult } from 'esbuild';
import { closeSync, openSync } from 'node:fs';
import { devNull } from 'node:os';

const NO_DESCRIPTOR = 'this host has no free file descriptor to start it (EMFILE: the open-file limit)';

let loaded: Promise<typeof import('esbuild')> | undefined;
const esbuild = (): Promise<typeof import('esbuild')> =>
  (loaded ??= import('esbuild').catch((error: unknown) => {
    loaded = undefined; // e.g. no free file descriptor to read it: the next compile tries again
    throw error;
  }));

void esbuild().catch(() => undefined); // loaded with this module, as a static import would be; a failure is retried on use

export type BoundedTransformResult =
  | { readonly ok: true; readonly output: TransformResult }
  /** esbuild reported errors in the input (the thrown TransformFailure). */
  | { readonly ok: false; readonly reason: 'syntax'; readonly error: unknown }
  /** The compiler itself failed on this input: it died twice, or took too long. */
  | { readonly ok: false; readonly reason: 'compiler'; readonly message: string }
  /** The compiler could not be started on this host now (no free file descriptor); not the input's doing. */
  | { readonly ok: false; readonly reason: 'unavailable'; readonly message: string };

// Restarts are counted so that a failure seen after someone else's restart is known to
// be collateral damage, not this input's doing.
let generation = 0;
/** The generation whose service a transform has started (the next transform after a restart starts one). */
let serviceStartedIn: number | undefined;
let running = 0;
let exclusive: Promise<void> | undefined;
const idleWaiters: Array<() => void> = [];

/** Transforms `input`, never throwing for a dead service or a deadline; see the file comment. */
export async function boundedTransform(
  input: string,
  options: TransformOptions,
  deadlineMs: number,
): Promise<BoundedTransformResult> {
  while (exclusive !== undefined) await exclusive;
  const first = await attempt(input, options, deadlineMs);
  if (first.ok || first.reason !== 'compiler' || first.timedOut) return settle(first);
  // The service died under this input and others: try again with the compiler to itself,
  // so that only the input that kills it fails.
  let release!: () => void;
  while (exclusive !== undefined) await exclusive;
  exclusive = new Promise<void>((resolve) => {
    release = resolve;
  });
  try {
    while (running > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
    return settle(await attempt(input, options, deadlineMs));
  } finally {
    exclusive = undefined;
    release();
  }
}

type Attempt =
  | (BoundedTransformResult & { readonly timedOut?: false })
  | { readonly ok: false; readonly reason: 'compiler'; readonly message: string; readonly timedOut: boolean }
  | { readonly ok: false; readonly reason: 'unavailable'; readonly message: string };

function settle(result: Attempt): BoundedTransformResult {
  if (result.ok || result.reason !== 'compiler') return result;
  return { ok: false, reason: 'compiler', message: result.message };
}

async function attempt(input: string, options: TransformOptions, deadlineMs: number): Promise<Attempt> {
  let transform: typeof import('esbuild').transform;
  try {
    ({ transform } = await esbuild()); // before the descriptor check below, which must share the spawn's tick
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const noDescriptor = code === 'EMFILE' || code === 'ENFILE' || /too many open files/iu.test(String(error));
    return {
      ok: false,
      reason: 'unavailable',
      message: noDescriptor ? NO_DESCRIPTOR : `esbuild could not be loaded: ${(error as Error).message}`,
    };
  }
  const startedIn = generation;
  if (serviceStartedIn !== generation) {
    // This transform starts esbuild's service. esbuild listens for its spawn's 'error' only
    // after it has set up the pipes, which fails first when no file descriptor is free: the
    // 'error' would then crash the host. Checked just before, in the same tick.
    if (!descriptorsFree(SPAWN_DESCRIPTORS)) {
      return {
        ok: false,
        reason: 'unavailable',
        message: NO_DESCRIPTOR,
      };
    }
    serviceStartedIn = generation;
  }
  running += 1;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setTimeout(() => resolve('deadline'), deadlineMs);
  });
  try {
    const output = await Promise.race([transform(input, options), deadline]);
    if (output === 'deadline') {
      restart(startedIn); // the only way to stop esbuild working on it
      return { ok: false, reason: 'compiler', message: `compiling took longer than ${deadlineMs} ms`, timedOut: true };
    }
    return { ok: true, output };
  } catch (error) {
    if (isSyntaxFailure(error)) return { ok: false, reason: 'syntax', error };
    restart(startedIn);
    return { ok: false, reason: 'compiler', message: describe(error), timedOut: false };
  } finally {
    clearTimeout(timer);
    running -= 1;
    if (running === 0) for (const wake of idleWaiters.splice(0)) wake();
  }
}

/** Stops the service (the next transform starts a fresh one), once per generation. */
function restart(seenGeneration: number): void {
  if (seenGeneration !== generation) return;
  generation += 1;
  void esbuild()
    .then(({ stop }) => stop())
    .catch(() => undefined);
}

/** File descriptors starting esbuild's service takes (its stdin and stdout pipes, spawn's own), with room to spare. */
const SPAWN_DESCRIPTORS = 8;

/** Whether `count` more file descriptors can be opened now (false only for EMFILE/ENFILE). */
function descriptorsFree(count: number): boolean {
  const opened: number[] = [];
  try {
    while (opened.length < count) opened.push(openSync(devNull, 'r'));
    return true;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    return code !== 'EMFILE' && code !== 'ENFILE';
  } finally {
    for (const fd of opened) closeSync(fd);
  }
}

/** A TransformFailure whose errors point into the input (not the service's own failure). */
function isSyntaxFailure(error: unknown): boolean {
  const errors = (error as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return false;
  const first = errors[0] as { location?: unknown } | undefined;
  return typeof first?.location === 'object' && first.location !== null;
}

function describe(error: unknown): string {
  const said = takeEsbuildStderr();
  const text = (error instanceof Error ? error.message : String(error)) + (said === '' ? '' : ` (esbuild: ${said})`);
  return text.length > 600 ? `${text.slice(0, 600)}...` : text;
}
