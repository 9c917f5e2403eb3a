// Admission by resources (run-admission.ts): runs awaiting tools hold no CPU slot, a run
// CPU-active past its slice gives its slot up, memory is a budget, the queue has a time
// limit, and a refusal says why and when to retry. The clock is injected where a test
// needs time to pass; real timers only bound the queue.
import { describe, expect, it } from '@jest/globals';
import { getEventListeners } from 'node:events';
import os from 'node:os';
import {
  AdmissionRefusal,
  type AdmissionTicket,
  defaultMemoryBudgetBytes,
  RunAdmission,
} from '../../src/ptc/run-admission.ts';
import { NEVER_ABORTED } from '../../src/pipeline/never-aborted.ts';

const MiB = 1_048_576;

/** A clock the test moves by hand. */
function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let t = 0;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

/** Whether `promise` has settled after the microtasks queued so far (no timer involved). */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
  return settled;
}

describe('RunAdmission', () => {
  it('runs awaiting tools hold no CPU slot: 100 runs with 2 slots are all admitted once each awaits a call', async () => {
    const admission = new RunAdmission({ cpuSlots: 2, memoryBudgetBytes: 1024 * MiB, runFootprintBytes: MiB });
    const tickets: AdmissionTicket[] = [];
    for (let i = 0; i < 100; i += 1) {
      const ticket = await admission.admit(8 * MiB);
      ticket.waiting(); // its first nested call went out
      tickets.push(ticket);
    }
    expect(admission.inFlight).toBe(100);
    expect(admission.cpuActive).toBe(0);
    for (const ticket of tickets) ticket.release();
    expect(admission.inFlight).toBe(0);
  });

  it('a third CPU-active run waits for a slot; it gets one when a run awaits a tool, or ends', async () => {
    const admission = new RunAdmission({ cpuSlots: 2, memoryBudgetBytes: 1024 * MiB, sliceMs: 60_000 });
    const a = await admission.admit(MiB);
    const b = await admission.admit(MiB);
    const third = admission.admit(MiB);
    expect(await settledYet(third)).toBe(false);
    expect(admission.queued).toBe(1);
    a.waiting();
    const c = await third;
    expect(admission.cpuActive).toBe(2);
    // Back from its call, `a` executes again at once (it was admitted): 3 active over 2 slots.
    a.active();
    expect(admission.cpuActive).toBe(3);
    const fourth = admission.admit(MiB);
    expect(await settledYet(fourth)).toBe(false);
    b.release();
    expect(await settledYet(fourth)).toBe(false); // still 2 active (a, c)
    c.release();
    (await fourth).release();
    a.release();
  });

  it('a run CPU-active past its slice gives its slot up: CPU-bound runs never hold the queue behind them', async () => {
    const clock = manualClock();
    const admission = new RunAdmission({ cpuSlots: 1, sliceMs: 100, memoryBudgetBytes: 1024 * MiB }, clock.now);
    const runaway = await admission.admit(MiB);
    const next = admission.admit(MiB);
    expect(await settledYet(next)).toBe(false);
    clock.advance(100);
    expect(admission.cpuActive).toBe(0);
    // The queue is re-checked when a slice ends (a real timer) and whenever anything changes.
    const other = admission.admit(MiB);
    expect(await settledYet(next)).toBe(true); // first in the queue, first in
    expect(await settledYet(other)).toBe(false); // `next` holds the one slot now
    clock.advance(100);
    runaway.release();
    expect(await settledYet(other)).toBe(true);
    (await next).release();
    (await other).release();
  });

  it('memory: each run reserves its heap limit plus its footprint (or what is measured, if more); a run that does not fit waits', async () => {
    let measured: number | undefined;
    const admission = new RunAdmission({
      cpuSlots: 100,
      memoryBudgetBytes: 100 * MiB,
      runFootprintBytes: 10 * MiB,
      queueTimeoutMs: 60_000,
      measureMemory: () => measured,
    });
    const first = await admission.admit(30 * MiB, undefined, 'a'); // 0 + 40 <= 100
    expect(admission.reservedBytes).toBe(40 * MiB);
    const second = await admission.admit(30 * MiB, undefined, 'b'); // 40 + 40 <= 100
    expect(admission.reservedBytes).toBe(80 * MiB);
    measured = 90 * MiB; // the sandbox measured more than the reservations
    expect(admission.reservedBytes).toBe(90 * MiB);
    expect(admission.admittedBytes).toBe(80 * MiB);
    const third = admission.admit(10 * MiB, undefined, 'c'); // 90 + 20 > 100
    expect(await settledYet(third)).toBe(false);
    measured = undefined;
    first.release(); // 40 + 20 <= 100
    expect(await settledYet(third)).toBe(true);
    second.release();
    (await third).release();
    expect(admission.admittedBytes).toBe(0);
  });

  it('admitted reservations never exceed the budget, whatever the measure says: 30 runs of 90 MiB heaps under 384 MiB', async () => {
    // The measure lags (a fresh isolate is small until its program grows it): it cannot admit more.
    const admission = new RunAdmission({
      cpuSlots: 100,
      memoryBudgetBytes: 384 * MiB,
      queueTimeoutMs: 60_000,
      measureMemory: () => 0,
    });
    const runs = Array.from({ length: 30 }, () => admission.admit(90 * MiB));
    const admitted = [];
    for (const run of runs) if (await settledYet(run)) admitted.push(await run);
    // 94 MiB each (heap + 4 MiB off-heap); one tenant leaves room for another's run: 3.
    expect(admitted).toHaveLength(3);
    expect(admission.admittedBytes).toBe(3 * 94 * MiB);
    expect(admission.admittedBytes).toBeLessThanOrEqual(admission.memoryBudgetBytes);
    expect(admission.queued).toBe(27);
    for (const ticket of admitted) ticket.release();
    for (let i = 3; i < 30; i++) (await runs[i]!).release();
    expect(admission.admittedBytes).toBe(0);
  });

  it("fair share: one tenant's flood leaves room for another's first run, and freed memory goes to the tenant holding least", async () => {
    const admission = new RunAdmission({ cpuSlots: 1_000, memoryBudgetBytes: 384 * MiB, queueTimeoutMs: 60_000 });
    const flood = Array.from({ length: 150 }, () => admission.admit(90 * MiB, undefined, 'agent:a'));
    const floodAdmitted = [];
    for (const run of flood) if (await settledYet(run)) floodAdmitted.push(await run);
    expect(floodAdmitted).toHaveLength(3);
    // Another tenant's first run is admitted at once, ahead of 147 queued runs.
    const b = admission.admit(90 * MiB, undefined, 'agent:b');
    expect(await settledYet(b)).toBe(true);
    // A third tenant waits for memory; when a run of the flood ends, it goes first.
    const c = admission.admit(90 * MiB, undefined, 'agent:c');
    expect(await settledYet(c)).toBe(false);
    floodAdmitted[0]!.release();
    expect(await settledYet(c)).toBe(true);
    expect(admission.queued).toBe(147);
    expect(admission.admittedBytes).toBeLessThanOrEqual(admission.memoryBudgetBytes);
    (await b).release();
    (await c).release();
    for (const ticket of floodAdmitted.slice(1)) ticket.release();
    for (const run of flood.slice(3)) (await run).release();
  });

  it("a tenant's run held by its share is refused naming that budget and when to retry", async () => {
    const admission = new RunAdmission({ cpuSlots: 100, memoryBudgetBytes: 384 * MiB, queueTimeoutMs: 50 });
    const held = [];
    for (let i = 0; i < 3; i++) held.push(await admission.admit(90 * MiB, undefined, 'principal:alice'));
    const refused = await admission.admit(90 * MiB, undefined, 'principal:alice').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AdmissionRefusal);
    expect((refused as AdmissionRefusal).reason).toBe('tenant-share');
    expect((refused as AdmissionRefusal).retryAfterMs).toBeGreaterThanOrEqual(1_000);
    expect((refused as Error).message).toMatch(
      /^the 3 runs in flight of "principal:alice" reserve 282 MiB, and one tenant \(principal, else agent\) may hold at most the 384 MiB memory budget minus room for one run of another; this run did not fit within 50 ms and did not run\. Retry in about \d+ s, once your runs have finished\.$/,
    );
    for (const ticket of held) ticket.release();
  });

  it('a heap limit larger than the whole budget is refused at once, reason memory, with no retry hint', async () => {
    const admission = new RunAdmission({ memoryBudgetBytes: 64 * MiB });
    const refused = await admission.admit(128 * MiB).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AdmissionRefusal);
    expect(refused).toMatchObject({ reason: 'memory', retryAfterMs: 0 });
    expect((refused as Error).message).toBe(
      'its heap limit (128 MiB) and off-heap footprint (4 MiB) are larger than the memory budget of all runs (64 MiB); lower limits.memoryMb or raise admission.memoryBudgetBytes. Retrying will not help.',
    );
  });

  it('the queue has a time limit: a run that waited too long for a CPU slot is refused, reason queue-time, with when to retry', async () => {
    const admission = new RunAdmission({
      cpuSlots: 1,
      sliceMs: 60_000,
      queueTimeoutMs: 50,
      memoryBudgetBytes: 1024 * MiB,
    });
    const holder = await admission.admit(MiB);
    const refused = await admission.admit(MiB).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AdmissionRefusal);
    expect(refused).toMatchObject({ reason: 'queue-time', retryAfterMs: 60_000 });
    expect((refused as Error).message).toBe(
      'it waited 50 ms for a CPU slot (1 runs may execute at once; 0 more are queued) and did not run. Retry in about 60 s.',
    );
    expect(admission.queued).toBe(0);
    holder.release();
  });

  it('a run that waited too long for memory is refused, reason memory', async () => {
    const admission = new RunAdmission({
      cpuSlots: 10,
      queueTimeoutMs: 50,
      memoryBudgetBytes: 100 * MiB,
      runFootprintBytes: 30 * MiB,
    });
    const holder = await admission.admit(MiB, undefined, 'a');
    const refused = await admission.admit(64 * MiB, undefined, 'b').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AdmissionRefusal);
    expect((refused as AdmissionRefusal).reason).toBe('memory');
    expect((refused as Error).message).toMatch(
      /^the 1 runs in flight reserve 31 MiB of the 100 MiB memory budget, and this run's reservation \(heap limit 64 MiB \+ 30 MiB off-heap\) did not fit within 50 ms; it did not run\. Retry in about \d+ s, once runs have finished\.$/,
    );
    holder.release();
  });

  it('refused for memory with no run in flight: the text says the sandbox holds it and what to change', async () => {
    const admission = new RunAdmission({
      queueTimeoutMs: 50,
      memoryBudgetBytes: 100 * MiB,
      measureMemory: () => 70 * MiB,
    });
    const refused = await admission.admit(64 * MiB).catch((error: unknown) => error);
    expect((refused as AdmissionRefusal).reason).toBe('memory');
    expect((refused as Error).message).toMatch(
      /^no runs are in flight, yet the sandbox already holds 70 MiB of the 100 MiB memory budget \(its measured resident memory, not counting isolates kept ready for runs\), and this run's heap limit \(64 MiB\) did not fit within 50 ms; it did not run\. Raise admission\.memoryBudgetBytes or lower limits\.memoryMb; retrying may not help\.$/,
    );
  });

  it('a queued run whose caller aborts leaves the queue with the abort reason', async () => {
    const admission = new RunAdmission({ cpuSlots: 1, sliceMs: 60_000, memoryBudgetBytes: 1024 * MiB });
    const holder = await admission.admit(MiB);
    const controller = new AbortController();
    const queued = admission.admit(MiB, controller.signal).catch((error: unknown) => error);
    controller.abort(new Error('caller gave up'));
    expect(((await queued) as Error).message).toBe('caller gave up');
    expect(admission.queued).toBe(0);
    holder.release();
  });

  it('counts the CPU-active runs among many going from waiting to active and back, in any order', async () => {
    const clock = manualClock();
    const admission = new RunAdmission(
      { cpuSlots: 1_000, sliceMs: 50, memoryBudgetBytes: 1024 * MiB, runFootprintBytes: 1 },
      clock.now,
    );
    const runs: { ticket: AdmissionTicket; activeSince: number | undefined; released: boolean }[] = [];
    for (let i = 0; i < 60; i += 1)
      runs.push({ ticket: await admission.admit(1), activeSince: clock.now(), released: false });
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    for (let step = 0; step < 2_000; step += 1) {
      const run = runs[next(runs.length)]!;
      const op = next(4);
      if (run.released) continue;
      if (op === 0) {
        run.ticket.waiting();
        run.activeSince = undefined;
      } else if (op === 1) {
        run.ticket.active();
        run.activeSince ??= clock.now();
      } else if (op === 2 && next(10) === 0) {
        run.ticket.release();
        run.released = true;
      } else {
        clock.advance(1);
      }
      const expected = runs.filter(
        (r) => !r.released && r.activeSince !== undefined && clock.now() - r.activeSince < 50,
      ).length;
      expect(admission.cpuActive).toBe(expected);
    }
    expect(admission.inFlight).toBe(runs.filter((r) => !r.released).length);
  });

  it('queued runs given no signal (NEVER_ABORTED, shared by all) add no listener to it', async () => {
    const admission = new RunAdmission({ cpuSlots: 1, memoryBudgetBytes: 1024 * MiB, runFootprintBytes: MiB });
    const first = await admission.admit(MiB, NEVER_ABORTED);
    const queued = Array.from({ length: 3 }, () => admission.admit(MiB, NEVER_ABORTED));
    expect(getEventListeners(NEVER_ABORTED, 'abort')).toHaveLength(0);
    first.release();
    for (const next of queued) (await next).release();
  });

  it('release, waiting and active are idempotent, and checks its options', async () => {
    const admission = new RunAdmission({ cpuSlots: 1, memoryBudgetBytes: 1024 * MiB });
    const ticket = await admission.admit(MiB);
    ticket.waiting();
    ticket.waiting();
    ticket.active();
    ticket.active();
    expect(admission.cpuActive).toBe(1);
    ticket.release();
    ticket.release();
    ticket.active();
    expect(admission.inFlight).toBe(0);
    expect(admission.cpuActive).toBe(0);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => new RunAdmission({ cpuSlots: bad })).toThrow(
        `admission: cpuSlots must be a positive integer, got ${String(bad)}`,
      );
    }
  });
});

describe('the default memory budget', () => {
  const GiB = 1_073_741_824;
  it("is half of a container's memory limit when that is below the machine's memory", () => {
    expect(defaultMemoryBudgetBytes(64 * GiB, 2 * GiB)).toBe(GiB);
  });
  it("is half of the machine's memory when there is no limit (0, or an enormous number) or a larger one", () => {
    expect(defaultMemoryBudgetBytes(8 * GiB, 0)).toBe(4 * GiB);
    expect(defaultMemoryBudgetBytes(8 * GiB, 2 ** 64)).toBe(4 * GiB);
    expect(defaultMemoryBudgetBytes(8 * GiB, 16 * GiB)).toBe(4 * GiB);
  });
  it("reads this process's limit and this machine's memory", () => {
    const limit = process.constrainedMemory();
    const total = os.totalmem();
    expect(defaultMemoryBudgetBytes()).toBe(Math.floor((limit > 0 && limit < total ? limit : total) / 2));
  });
});
