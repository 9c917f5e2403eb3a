// The isolate pool prepares a bounded number of isolates at once: a burst of runs takes
// its isolates a few at a time, in arrival order, instead of all advancing in lockstep.
// A pool holds PROMPT_REFILL isolates from the start and refills them at once; beyond
// them it grows, in idle time only, to the most runs it has seen at once (its size at
// most), so isolates no run takes are never prepared. warm() fills it all.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from '@jest/globals';
import {
  IsolatePool,
  MAX_PREPARING,
  PreparedIsolate as PreparedIsolateClass,
  PROMPT_REFILL,
  type PreparedIsolate,
} from '../../sandbox/isolate-pool.ts';

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await sleep(10);
  }
}

/** `runs` runs take their isolates at once, then each ends (its isolate disposed, the pool replenished). */
async function burst(pool: IsolatePool, runs: number): Promise<void> {
  const taken = await Promise.all(Array.from({ length: runs }, () => pool.take(32)));
  for (const prepared of taken) {
    prepared.dispose();
    pool.replenish();
  }
}

describe('isolate pool', () => {
  it('prepares at most maxPreparing isolates at once; the others wait their turn and all get one', async () => {
    const pool = new IsolatePool({ size: 0, memoryMb: 32, maxPreparing: 2 });
    const order: number[] = [];
    const takes = Array.from({ length: 6 }, (_, i) =>
      pool.take(32).then((prepared) => {
        order.push(i);
        return prepared;
      }),
    );
    expect(pool.preparing).toStrictEqual({ now: 2, waiting: 4 });
    const prepared: PreparedIsolate[] = await Promise.all(takes);
    try {
      expect(new Set(prepared.map((p) => p.isolate)).size).toBe(6);
      expect(pool.preparing).toStrictEqual({ now: 0, waiting: 0 });
      // Turns go first come, first served: the last take starts only once four earlier
      // ones have finished (two at a time), so at least four finish before it.
      expect(order.indexOf(5)).toBeGreaterThanOrEqual(4);
    } finally {
      for (const p of prepared) p.dispose();
      pool.close();
    }
  });

  it('the default bound is small and a bad one is refused', () => {
    expect(MAX_PREPARING).toBeGreaterThanOrEqual(1);
    expect(MAX_PREPARING).toBeLessThanOrEqual(8);
    expect(() => new IsolatePool({ size: 0, memoryMb: 32, maxPreparing: 0 })).toThrow(/maxPreparing/);
  });

  it('a take still waiting for its turn when the pool closes is refused, and nothing is left preparing', async () => {
    const pool = new IsolatePool({ size: 0, memoryMb: 32, maxPreparing: 1 });
    const first = pool.take(32);
    const second = pool.take(32);
    expect(pool.preparing).toStrictEqual({ now: 1, waiting: 1 });
    pool.close();
    (await first).dispose();
    await expect(second).rejects.toThrow(/closed/);
    expect(pool.preparing).toStrictEqual({ now: 0, waiting: 0 });
  });

  it('holds PROMPT_REFILL from the start, and no more while runs come one at a time however idle it is', async () => {
    const pool = new IsolatePool({ size: PROMPT_REFILL + 4, memoryMb: 32, idleFillMs: 0 });
    try {
      pool.replenish();
      await until(() => pool.readyCount === PROMPT_REFILL, 30_000);
      for (let i = 0; i < 3; i += 1) {
        (await pool.take(32)).dispose();
        pool.replenish();
        await until(() => pool.readyCount === PROMPT_REFILL, 20_000);
      }
      // Idle all along (idleFillMs 0), yet nothing beyond what one run at a time needs.
      await sleep(300);
      expect(pool.readyCount).toBe(PROMPT_REFILL);
      expect(pool.preparing).toStrictEqual({ now: 0, waiting: 0 });
    } finally {
      pool.close();
    }
  });

  it('grows in idle time to the most runs it has seen at once, and no further', async () => {
    const atOnce = PROMPT_REFILL + 2;
    const pool = new IsolatePool({ size: atOnce + 3, memoryMb: 32, idleFillMs: 50 });
    try {
      await burst(pool, atOnce);
      await until(() => pool.readyCount === atOnce, 30_000);
      await sleep(300);
      expect(pool.readyCount).toBe(atOnce);
    } finally {
      pool.close();
    }
  });

  it('after a burst: PROMPT_REFILL at once, the rest in idle time only; warm() fills the whole pool', async () => {
    const size = PROMPT_REFILL + 2;
    const pool = new IsolatePool({ size, memoryMb: 32, idleFillMs: 60_000 });
    try {
      await burst(pool, size);
      // Idle time counts from each take: no more than PROMPT_REFILL for a minute.
      await until(() => pool.readyCount === PROMPT_REFILL, 20_000);
      await sleep(300);
      expect(pool.readyCount).toBe(PROMPT_REFILL);
      expect(pool.preparing).toStrictEqual({ now: 0, waiting: 0 });
      // warm() fills the whole pool at once.
      await pool.warm();
      expect(pool.readyCount).toBe(size);
    } finally {
      pool.close();
    }
  });

  it('a run that comes while the pool fills at its start gets an isolate at once', async () => {
    const pool = new IsolatePool({ size: 16, memoryMb: 32, idleFillMs: 60_000 });
    try {
      pool.replenish();
      await until(() => pool.readyCount >= 1, 20_000);
      // The fill never holds more than one preparation; a take finds a ready isolate.
      expect(pool.preparing.now).toBeLessThanOrEqual(1);
      expect(pool.preparing.waiting).toBe(0);
      const ready = pool.readyCount;
      const prepared = await pool.take(32);
      prepared.dispose();
      // The take stopped the fill: at most the preparation in progress then is added.
      await sleep(300);
      expect(pool.readyCount).toBeLessThanOrEqual(Math.max(ready, PROMPT_REFILL + 1));
    } finally {
      pool.close();
    }
  });

  it('fills to its full size once no run has taken an isolate for idleFillMs, after a burst as large', async () => {
    const size = PROMPT_REFILL + 3;
    const pool = new IsolatePool({ size, memoryMb: 32, idleFillMs: 50 });
    try {
      // More at once than it holds: it grows to its size, never past it.
      await burst(pool, size + 2);
      await until(() => pool.readyCount === size, 30_000);
      await sleep(100);
      expect(pool.readyCount).toBe(size);
    } finally {
      pool.close();
    }
  });

  it('an isolate that cannot be made is not tried again back to back: the next replenish tries once more', async () => {
    // Below isolated-vm's smallest heap: every isolate fails to be made.
    const pool = new IsolatePool({ size: 4, memoryMb: 1 });
    let attempts = 0;
    const create = PreparedIsolateClass.create;
    PreparedIsolateClass.create = (...args: Parameters<typeof create>) => {
      attempts += 1;
      return create.apply(PreparedIsolateClass, args);
    };
    try {
      pool.replenish();
      for (let hop = 0; hop < 200; hop++) await new Promise<void>((resolve) => setImmediate(resolve));
      expect([attempts, pool.readyCount]).toStrictEqual([1, 0]);
      pool.replenish();
      for (let hop = 0; hop < 200; hop++) await new Promise<void>((resolve) => setImmediate(resolve));
      expect([attempts, pool.readyCount]).toStrictEqual([2, 0]);
      await expect(pool.take(1)).rejects.toThrow();
    } finally {
      PreparedIsolateClass.create = create;
      pool.close();
    }
  });

  it('refuses a bad idleFillMs', () => {
    expect(() => new IsolatePool({ size: 4, memoryMb: 32, idleFillMs: Number.NaN })).toThrow(/idleFillMs/);
    expect(() => new IsolatePool({ size: 4, memoryMb: 32, idleFillMs: -1 })).toThrow(/idleFillMs/);
  });
});
