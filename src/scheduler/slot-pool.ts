// The bounded pool of concurrency-safe bodies: at most `limit` tasks run at once and
// the rest start in FIFO order as slots free up. A task that finds a free slot starts
// synchronously (no queue hand-off, no extra promise): the common case of a program
// that awaits its calls one by one.
export interface SlotPool {
  /** Runs `task` once a slot is free and settles like it. */
  run(task: () => Promise<void>): Promise<void>;
}

export function createSlotPool(limit: number): SlotPool {
  let running = 0;
  // Waiters are handed a slot directly on release, so `running` never drops below
  // `limit` while someone waits (no task can jump the queue).
  const waiting: Array<() => void> = [];
  let head = 0;
  const release = (): void => {
    if (head < waiting.length) {
      const next = waiting[head]!;
      waiting[head] = noop;
      head += 1;
      if (head === waiting.length) {
        waiting.length = 0;
        head = 0;
      }
      next();
    } else {
      running -= 1;
    }
  };
  const runNow = async (task: () => Promise<void>): Promise<void> => {
    try {
      await task();
    } finally {
      release();
    }
  };
  return {
    run(task) {
      if (running < limit) {
        running += 1;
        return runNow(task);
      }
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
      }).then(() => runNow(task));
    },
  };
}

const noop = (): void => {};
