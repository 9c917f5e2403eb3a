// Type feedback for run_code: a warm TypeScript checker in a worker thread. The model's
// program is checked against the SDK it was shown before it runs. In a worker so the
// host's event loop never waits on TypeScript, and so a program that makes the checker
// run away (TypeScript has no time limit of its own) is stopped: past the deadline the
// worker is terminated and the run goes on unchecked, with a note.
import { Worker } from 'node:worker_threads';
import type { ProgramDiagnostic } from '../../sdk-gen/check-program.ts';
import type { CheckRequest, CheckResponse } from '../../sdk-gen/check-program-worker.ts';

/** The longest a type check may take; past it the check is abandoned and the worker replaced. */
export const TYPECHECK_TIMEOUT_MS = 10_000;

const WORKER_ENTRY = new URL(
  `../../sdk-gen/check-program-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

export type TypeCheckOutcome =
  | { readonly ok: true; readonly diagnostics: readonly ProgramDiagnostic[] }
  | { readonly ok: false; readonly reason: string };

export interface ProgramTypeChecker {
  /** Checks `program` against `sdk`. Never rejects: a failure or timeout is `{ ok: false }`. */
  check(sdk: string, program: string): Promise<TypeCheckOutcome>;
  /** Starts the worker (TypeScript loads in it) ahead of the first check. */
  warm(): void;
  close(): Promise<void>;
}

interface Pending {
  readonly worker: Worker;
  readonly resolve: (outcome: TypeCheckOutcome) => void;
  readonly timer: NodeJS.Timeout;
}

export function createProgramTypeChecker(options: { readonly timeoutMs?: number } = {}): ProgramTypeChecker {
  const timeoutMs = options.timeoutMs ?? TYPECHECK_TIMEOUT_MS;
  let worker: Worker | undefined;
  let sentSdk: string | undefined;
  let nextId = 0;
  const pending = new Map<number, Pending>();
  // One check at a time: the worker is single-threaded anyway, and a timeout then
  // only ever abandons the check that caused it.
  let queue: Promise<unknown> = Promise.resolve();

  const settleAll = (reason: string, of?: Worker): void => {
    for (const [id, entry] of pending) {
      if (of !== undefined && entry.worker !== of) continue;
      clearTimeout(entry.timer);
      entry.resolve({ ok: false, reason });
      pending.delete(id);
    }
  };
  const stop = (): void => {
    const current = worker;
    worker = undefined;
    sentSdk = undefined;
    void current?.terminate();
  };
  const start = (): Worker => {
    if (worker !== undefined) return worker;
    const created = new Worker(WORKER_ENTRY);
    created.unref();
    created.on('message', (response: CheckResponse) => {
      const entry = pending.get(response.id);
      if (entry === undefined) return;
      pending.delete(response.id);
      clearTimeout(entry.timer);
      entry.resolve(
        'error' in response ? { ok: false, reason: response.error } : { ok: true, diagnostics: response.diagnostics },
      );
    });
    const fail = (reason: string): void => {
      if (worker === created) stop();
      settleAll(reason, created);
    };
    created.on('error', (error) => fail(`the type checker failed: ${error.message}`));
    created.on('exit', () => fail('the type checker stopped'));
    worker = created;
    return created;
  };

  const checkNow = (sdk: string, program: string): Promise<TypeCheckOutcome> =>
    new Promise((resolve) => {
      const target = start();
      const id = ++nextId;
      const timer = setTimeout(() => {
        pending.delete(id);
        stop(); // the only way to stop TypeScript mid-check
        resolve({ ok: false, reason: `the type check took longer than ${timeoutMs} ms and was stopped` });
      }, timeoutMs);
      pending.set(id, { worker: target, resolve, timer });
      const request: CheckRequest = sdk === sentSdk ? { id, program } : { id, program, sdk };
      sentSdk = sdk;
      target.postMessage(request);
    });

  return {
    check(sdk, program) {
      const result = queue.then(() => checkNow(sdk, program));
      queue = result;
      return result;
    },
    warm() {
      start();
    },
    async close() {
      settleAll('the runtime was closed');
      const current = worker;
      worker = undefined;
      await current?.terminate();
    },
  };
}
