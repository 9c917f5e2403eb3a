// The pool that bounds how many concurrency-safe bodies run at once. A task starts at
// once (synchronously, inside `run`) while a slot is free; otherwise it waits in FIFO
// order, and a finishing task starts the longest waiter itself, in the same tick, with
// the slot it frees: tasks start in submission order and never past the limit. A waiting
// task starts in the async context of its own `run` call, not of the task that freed it.
// Not p-queue: per task it builds an AsyncResource, reads the clock twice and dispatches
// about five DOM events nobody listens to — microseconds on every nested call. Here only
// a task that has to wait pays for keeping its context.
import { AsyncResource } from 'node:async_hooks';

export class ConcurrencyPool {
  readonly #limit: number;
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Runs `task` once a slot is free; settles like it. */
  run(task: () => Promise<void>): Promise<void> {
    if (this.#active < this.#limit) {
      this.#active += 1;
      return this.#start(task);
    }
    return new Promise<void>((resolve, reject) => {
      const context = new AsyncResource('ConcurrencyPoolTask');
      this.#waiting.push(() => {
        context.runInAsyncScope(() => this.#start(task)).then(resolve, reject);
        context.emitDestroy();
      });
    });
  }

  async #start(task: () => Promise<void>): Promise<void> {
    try {
      await task();
    } finally {
      const next = this.#waiting.shift();
      // The slot passes to the next waiter as it is; only an idle slot is given back.
      if (next === undefined) this.#active -= 1;
      else next();
    }
  }
}
