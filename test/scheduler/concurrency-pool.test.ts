// ConcurrencyPool: at most `limit` tasks at once, the rest in FIFO order, a freed slot
// handed to the longest waiter (a task arriving meanwhile cannot overtake it), a failed
// task frees its slot, and a task keeps its caller's async context.
import { describe, expect, it } from '@jest/globals';
import { AsyncLocalStorage } from 'node:async_hooks';
import fc from 'fast-check';
import { ConcurrencyPool } from '../../src/scheduler/concurrency-pool.ts';
import { deferred, type Deferred } from '../../src/scheduler/deferred.ts';

const ticks = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i += 1) await Promise.resolve();
};

describe('ConcurrencyPool', () => {
  it('starts a task synchronously while a slot is free', () => {
    const pool = new ConcurrencyPool(2);
    const started: number[] = [];
    void pool.run(async () => {
      started.push(1);
    });
    void pool.run(async () => {
      started.push(2);
    });
    expect(started).toEqual([1, 2]);
  });

  it('never runs more than the limit, starts waiters in submission order, and runs every task (random schedules)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.record({ hops: fc.nat({ max: 6 }), fails: fc.boolean(), gap: fc.nat({ max: 3 }) }), {
          minLength: 1,
          maxLength: 25,
        }),
        async (limit, tasks) => {
          const pool = new ConcurrencyPool(limit);
          let active = 0;
          let most = 0;
          const started: number[] = [];
          const runs: Promise<string>[] = [];
          for (const [i, task] of tasks.entries()) {
            runs.push(
              pool
                .run(async () => {
                  active += 1;
                  most = Math.max(most, active);
                  started.push(i);
                  await ticks(task.hops);
                  active -= 1;
                  if (task.fails) throw new Error(`task ${i} failed`);
                })
                .then(
                  () => 'ok',
                  (error: Error) => error.message,
                ),
            );
            await ticks(task.gap); // later tasks arrive while earlier ones finish and hand over
          }
          const outcomes = await Promise.all(runs);
          expect(most).toBeLessThanOrEqual(limit);
          expect(started).toEqual(tasks.map((_, i) => i));
          expect(outcomes).toEqual(tasks.map((t, i) => (t.fails ? `task ${i} failed` : 'ok')));
          // Every slot came back: a full batch starts at once.
          const again: number[] = [];
          for (let i = 0; i < limit; i += 1)
            void pool.run(async () => {
              again.push(i);
            });
          expect(again).toHaveLength(limit);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('hands a freed slot to the waiter, whatever tick a new task arrives in', async () => {
    for (let gap = 0; gap <= 8; gap += 1) {
      const pool = new ConcurrencyPool(1);
      const order: string[] = [];
      const first: Deferred<void> = deferred();
      void pool.run(async () => {
        order.push('first');
        await first.promise;
      });
      const waiter = pool.run(async () => {
        order.push('waiter');
      });
      first.resolve();
      await ticks(gap);
      const late = pool.run(async () => {
        order.push('late');
      });
      await Promise.all([waiter, late]);
      expect(order).toEqual(['first', 'waiter', 'late']);
    }
  });

  it('frees the slot of a task that throws synchronously', async () => {
    const pool = new ConcurrencyPool(1);
    await expect(
      pool.run(() => {
        throw new Error('sync');
      }),
    ).rejects.toThrow('sync');
    let ran = false;
    void pool.run(async () => {
      ran = true;
    });
    expect(ran).toBe(true);
  });

  it('runs a waiting task in the async context of its caller', async () => {
    const pool = new ConcurrencyPool(1);
    const storage = new AsyncLocalStorage<string>();
    const gate: Deferred<void> = deferred();
    const seen: (string | undefined)[] = [];
    const a = storage.run('a', () =>
      pool.run(async () => {
        seen.push(storage.getStore());
        await gate.promise;
      }),
    );
    const b = storage.run('b', () =>
      pool.run(async () => {
        seen.push(storage.getStore());
      }),
    );
    gate.resolve();
    await Promise.all([a, b]);
    expect(seen).toEqual(['a', 'b']);
  });
});
