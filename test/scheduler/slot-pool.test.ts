// The sequencer's bounded pool: never more than `limit` tasks at once, FIFO starts,
// a failing task rejects its own run and still frees its slot.
import { describe, expect, it } from '@jest/globals';
import { createSlotPool } from '../../src/scheduler/slot-pool.ts';
import { deferred, hops } from './helpers.ts';

describe('createSlotPool', () => {
  it('runs at most `limit` tasks at once and starts the waiting ones in FIFO order', async () => {
    const pool = createSlotPool(2);
    const gates = Array.from({ length: 5 }, () => deferred());
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const runs = gates.map((gate, i) =>
      pool.run(async () => {
        started.push(i);
        running += 1;
        most = Math.max(most, running);
        await gate.promise;
        running -= 1;
      }),
    );
    await hops(5);
    expect(started).toEqual([0, 1]);
    gates[1]!.resolve();
    await hops(5);
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.resolve();
    gates[2]!.resolve();
    await hops(5);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    gates[3]!.resolve();
    gates[4]!.resolve();
    await Promise.all(runs);
    expect(most).toBe(2);
  });

  it('a failing task rejects its own run and frees its slot', async () => {
    const pool = createSlotPool(1);
    const failing = pool.run(async () => {
      throw new Error('boom');
    });
    const next = pool.run(async () => {});
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBeUndefined();
    // The slot is free again: a later task starts right away.
    let ran = false;
    await pool.run(async () => {
      ran = true;
    });
    expect(ran).toBe(true);
  });

  it('with an unbounded limit every task starts at once', async () => {
    const pool = createSlotPool(Number.POSITIVE_INFINITY);
    const gate = deferred();
    let started = 0;
    const runs = Array.from({ length: 50 }, () =>
      pool.run(async () => {
        started += 1;
        await gate.promise;
      }),
    );
    await hops(2);
    expect(started).toBe(50);
    gate.resolve();
    await Promise.all(runs);
  });
});
