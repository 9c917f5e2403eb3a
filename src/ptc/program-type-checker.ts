// Type feedback for run_code: warm TypeScript checkers in worker threads. The model's
// program is checked against the SDK it was shown before it runs. In workers so the
// host's event loop never waits on TypeScript, and so a program that makes the checker
// run away (TypeScript has no time limit of its own) is stopped: past the deadline the
// worker is terminated and the run goes on unchecked, with a note.
// Up to TYPECHECK_WORKERS checks run at once, so one slow check does not hold every other
// run; a check's deadline counts from when it was asked for (waiting for a worker
// included), and the run's abort ends it at once (a running check's worker is stopped).
import { Worker } from 'node:worker_threads';
import type { ProgramDiagnostic } from '../../sdk-gen/check-program.ts';
import type { CheckRequest, CheckResponse } from '../../sdk-gen/check-program-worker.ts';

/** The longest a type check may take (waiting for a worker included); past it the check is abandoned. */
export const TYPECHECK_TIMEOUT_MS = 10_000;
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
  sentSdk: string | undefined;
  busy: Job | undefined;
}

interface Job {
  readonly id: number;
  readonly sdk: string;
  readonly program: string;
  /** `abandoned`: the check did not answer (timeout, abort, close); its worker is stopped. */
  settle(outcome: TypeCheckOutcome, abandoned?: boolean): void;
  slot?: Slot;
}

export function createProgramTypeChecker(
  options: { readonly timeoutMs?: number; readonly workers?: number } = {},
): ProgramTypeChecker {
  const timeoutMs = options.timeoutMs ?? TYPECHECK_TIMEOUT_MS;
  const slots: Slot[] = Array.from({ length: options.workers ?? TYPECHECK_WORKERS }, () => ({
    worker: undefined,
    sentSdk: undefined,
    busy: undefined,
  }));
  const waiting: Job[] = [];
  let nextId = 0;
  let closed = false;

  const stop = (slot: Slot): void => {
    const current = slot.worker;
    slot.worker = undefined;
    slot.sentSdk = undefined;
    void current?.terminate();
  };
  const start = (slot: Slot): Worker => {
    if (slot.worker !== undefined) return slot.worker;
    const created = new Worker(WORKER_ENTRY);
    created.unref();
    created.on('message', (response: CheckResponse) => {
      const job = slot.busy;
      if (slot.worker !== created || job === undefined || job.id !== response.id) return;
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
      const request: CheckRequest =
        job.sdk === slot.sentSdk
          ? { id: job.id, program: job.program }
          : { id: job.id, program: job.program, sdk: job.sdk };
      const worker = start(slot);
      slot.sentSdk = job.sdk;
      worker.postMessage(request);
    }
  };

  return {
    check(sdk, program, checkOptions = {}) {
      const { signal } = checkOptions;
      if (closed) return Promise.resolve({ ok: false, reason: 'the runtime was closed' });
      if (signal?.aborted) return Promise.resolve({ ok: false, reason: 'the run was aborted' });
      const limit = Math.min(timeoutMs, checkOptions.timeoutMs ?? Number.POSITIVE_INFINITY);
      return new Promise<TypeCheckOutcome>((resolve) => {
        let done = false;
        const job: Job = {
          id: ++nextId,
          sdk,
          program,
          settle(outcome, abandoned = false) {
            if (done) return;
            done = true;
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            const slot = job.slot;
            if (slot !== undefined && slot.busy === job) {
              slot.busy = undefined;
              // A check abandoned mid-way: stopping the worker is the only way to stop TypeScript.
              if (abandoned) stop(slot);
            } else {
              const at = waiting.indexOf(job);
              if (at >= 0) waiting.splice(at, 1);
            }
            resolve(outcome);
            pump();
          },
        };
        const onAbort = (): void => job.settle({ ok: false, reason: 'the run was aborted' }, true);
        const timer = setTimeout(
          () => job.settle({ ok: false, reason: `the type check took longer than ${limit} ms and was stopped` }, true),
          limit,
        );
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
