// Giving a body up: a body that ignores its aborted signal for the grace period no
// longer holds its caller (untilGivenUp), and what still runs after its call was given up
// on is tracked (BodyTracker) so a scheduler keeps later calls from overlapping it.
// Shared by the dispatch and body stages.
import { NEVER_ABORTED } from './never-aborted.ts';

/** The body of one call (and the dispatch around it): whether any still runs once its call was given up on. */
export class BodyTracker {
  #running = 0;
  readonly #all: Promise<unknown>[] = [];
  track<T>(promise: Promise<T>): Promise<T> {
    this.#running += 1;
    const done = (): void => {
      this.#running -= 1;
    };
    promise.then(done, done);
    this.#all.push(promise);
    return promise;
  }
  get running(): boolean {
    return this.#running > 0;
  }
  settled(): Promise<void> {
    return Promise.allSettled(this.#all).then(noop);
  }
}

export const GIVEN_UP: unique symbol = Symbol('given up');

const promiseThen = Promise.prototype.then;

/** A thenable a body returned, followed as an async function's return follows it. */
export function followThenable(value: object, then: (...args: unknown[]) => unknown): Promise<unknown> {
  if (value instanceof Promise && then === promiseThen) return value;
  return new Promise((resolve, reject) => {
    queueMicrotask(() => {
      try {
        Reflect.apply(then, value, [resolve, reject]);
      } catch (error) {
        reject(error);
      }
    });
  });
}

export const noop = (): void => {};

/**
 * Settles like `body`, or with GIVEN_UP when `signal` aborted `graceMs` ago and the body
 * still has not settled: a body that ignores its signal cannot hold its caller (a
 * cancelled turn, an ended run_code run) without bound.
 */
export function untilGivenUp<T>(body: Promise<T>, signal: AbortSignal, graceMs: number): Promise<T | typeof GIVEN_UP> {
  if (signal === NEVER_ABORTED) return body;
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = (): void => {
      timer = setTimeout(() => resolve(GIVEN_UP), graceMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const done = (): void => {
      signal.removeEventListener('abort', onAbort);
      clearTimeout(timer);
    };
    body.then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}
