// Type feedback for run_code: warm TypeScript checkers in worker threads. The model's
// program is checked against the SDK it was shown before it runs. In workers so the
// host's event loop never waits on TypeScript, and so a program that makes the checker
// run away (TypeScript has no time limit of its own) is stopped: past the deadline the
// worker is terminated and the run goes on unchecked, with a note.
// Up to TYPECHECK_WORKERS checks run at once, so one slow check does not hold every other
// run; a check's deadline counts from when it was asked for (waiting for a busy worker
// included), and the run's abort ends it at once (a running check's worker is stopped).
// A new worker's start (loading TypeScript and its lib files: seconds on a loaded machine)
// is no program's doing and does not count against the checker's own deadline (it has a
// bound of its own); the run's wall clock (`timeoutMs` of a check) counts everything.
import { Worker } from 'node:worker_threads';
import type { ProgramDiagnostic } from '../../sdk-gen/check-program.ts';
import type { CheckerReady, CheckRequest, CheckResponse } from '../../sdk-gen/check-program-worker.ts';

/** The longest a type check may take (waiting for a busy worker included, a new worker's start not); past it the check is abandoned. */
export const TYPECHECK_TIMEOUT_MS = 10_000;
/** The longest a new worker may take to load TypeScript (not counted in TYPECHECK_TIMEOUT_MS). */
export const TYPECHECK_START_TIMEOUT_MS = 60_000;
/** Type checks that run at once per runtime (each a worker thread with TypeScript loaded). */
export const TYPECHECK_WORKERS = 2;

const WORKER_ENTRY = new URL(
  `../../sdk-gen/check-program-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

export type TypeCheckOutcome =
  | { readonly ok: true; readonly diagnostics: readonly ProgramDiagnostic[] }
  | { readonly ok: false; readonly reason: string };

export interface TypeCheckOptions {
  /** The run's signal: once aborted, the check ends (`ok: false`) and its worker, if it was running, is stopped. */
  readonly signal?: AbortSignal;
  /** A shorter deadline than the checker's own (e.g. the run's wall clock). */
  readonly timeoutMs?: number;
}

export interface ProgramTypeChecker {
  /** Checks `program` against `sdk`. Never rejects: a failure, abort or timeout is `{ ok: false }`. */
  check(sdk: string, program: string, options?: TypeCheckOptions): Promise<TypeCheckOutcome>;
  /** Starts a worker (TypeScript loads in it) ahead of the first check. */
  warm(): void;
  close(): Promise<void>;
}

interface Slot {
  worker: Worker | undefined;
  /** TypeScript is loaded in `worker`: it said so with its first message. */
  ready: boolean;
  sentSdk: string | undefined;
  busy: Job | undefined;
}

interface Job {
  readonly id: number;
  readonly sdk: string;
  readonly program: string;
  /** `abandoned`: the check did not answer (timeout, abort, close); its worker is stopped. */
  settle(outcome: TypeCheckOutcome, abandoned?: boolean): void;
  /** Its worker is starting: the checker's own deadline stops counting until `started()`. */
  starting(): void;
  started(): void;
  slot?: Slot;
}

export function createProgramTypeChecker(
  options: { readonly timeoutMs?: number; readonly workers?: number } = {},
): ProgramTypeChecker {
  const timeoutMs = options.timeoutMs ?? TYPECHECK_TIMEOUT_MS;
  const slots: Slot[] = Array.from({ length: options.workers ?? TYPECHECK_WORKERS }, () => ({
    worker: undefined,
    ready: false,
    sentSdk: undefined,
    busy: undefined,
  }));
  const waiting: Job[] = [];
  let nextId = 0;
  let closed = false;

  const stop = (slot: Slot): void => {
    const current = slot.worker;
    slot.worker = undefined;
    slot.ready = false;
    slot.sentSdk = undefined;
    void current?.terminate();
  };
  const send = (slot: Slot, worker: Worker, job: Job): void => {
    const request: CheckRequest =
      job.sdk === slot.sentSdk
        ? { id: job.id, program: job.program }
        : { id: job.id, program: job.program, sdk: job.sdk };
    slot.sentSdk = job.sdk;
    worker.postMessage(request);
  };
  const start = (slot: Slot): Worker => {
    if (slot.worker !== undefined) return slot.worker;
    const created = new Worker(WORKER_ENTRY);
    created.unref();
    created.on('message', (response: CheckResponse | CheckerReady) => {
      const job = slot.busy;
      if (slot.worker !== created) return;
      if ('ready' in response) {
        slot.ready = true;
        if (job === undefined) return;
        job.started();
        send(slot, created, job);
        return;
      }
      if (job === undefined || job.id !== response.id) return;
      job.settle(
        'error' in response ? { ok: false, reason: response.error } : { ok: true, diagnostics: response.diagnostics },
      );
    });
    const fail = (reason: string): void => {
      if (slot.worker !== created) return;
      stop(slot);
      slot.busy?.settle({ ok: false, reason });
    };
    created.on('error', (error) => fail(`the type checker failed: ${error.message}`));
    created.on('exit', () => fail('the type checker stopped'));
    slot.worker = created;
    return created;
  };
  const pump = (): void => {
    for (const slot of slots) {
      if (slot.busy !== undefined) continue;
      const job = waiting.shift();
      if (job === undefined) return;
      slot.busy = job;
      job.slot = slot;
      const worker = start(slot);
      if (slot.ready) send(slot, worker, job);
      else job.starting();
    }
  };

  return {
    check(sdk, program, checkOptions = {}) {
      const { signal } = checkOptions;
      if (closed) return Promise.resolve({ ok: false, reason: 'the runtime was closed' });
      if (signal?.aborted) return Promise.resolve({ ok: false, reason: 'the run was aborted' });
      const runLimit = checkOptions.timeoutMs;
      const askedAt = performance.now();
      return new Promise<TypeCheckOutcome>((resolve) => {
        let done = false;
        const stopAfter = (limit: number, ms = limit): NodeJS.Timeout =>
          setTimeout(
            () =>
              job.settle({ ok: false, reason: `the type check took longer than ${limit} ms and was stopped` }, true),
            ms,
          );
        // The checker's own deadline (paused while the worker starts) and the run's (counts everything).
        let ownTimer = stopAfter(timeoutMs);
        const runTimer = runLimit === undefined || !Number.isFinite(runLimit) ? undefined : stopAfter(runLimit);
        let startingAt = askedAt;
        const job: Job = {
          id: ++nextId,
          sdk,
          program,
          settle(outcome, abandoned = false) {
            if (done) return;
            done = true;
            clearTimeout(ownTimer);
            clearTimeout(runTimer);
            signal?.removeEventListener('abort', onAbort);
            const slot = job.slot;
            if (slot !== undefined && slot.busy === job) {
              slot.busy = undefined;
              // A check abandoned mid-way: stopping the worker is the only way to stop TypeScript.
              // One still starting has not been sent the check: it starts on for the next.
              if (abandoned && slot.ready) stop(slot);
            } else {
              const at = waiting.indexOf(job);
              if (at >= 0) waiting.splice(at, 1);
            }
            resolve(outcome);
            pump();
          },
          starting() {
            clearTimeout(ownTimer);
            startingAt = performance.now();
            ownTimer = setTimeout(() => {
              // A worker that cannot load TypeScript in this long is replaced.
              if (job.slot !== undefined) stop(job.slot);
              job.settle({
                ok: false,
                reason: `the type checker did not start within ${TYPECHECK_START_TIMEOUT_MS} ms; the check was stopped`,
              });
            }, TYPECHECK_START_TIMEOUT_MS);
          },
          started() {
            clearTimeout(ownTimer);
            ownTimer = stopAfter(timeoutMs, Math.max(0, timeoutMs - (startingAt - askedAt)));
          },
        };
        const onAbort = (): void => job.settle({ ok: false, reason: 'the run was aborted' }, true);
        signal?.addEventListener('abort', onAbort, { once: true });
        waiting.push(job);
        pump();
      });
    },
    warm() {
      const slot = slots[0];
      if (slot !== undefined) start(slot);
    },
    async close() {
      closed = true;
      for (const job of waiting.splice(0)) job.settle({ ok: false, reason: 'the runtime was closed' });
      for (const slot of slots) slot.busy?.settle({ ok: false, reason: 'the runtime was closed' }, true);
      await Promise.all(
        slots.map((slot) => {
          const current = slot.worker;
          slot.worker = undefined;
          return current?.terminate();
        }),
      );
    },
  };
}
