// The pool of ready isolates fills only within the sandbox's memory budget: it stops when
// one more ready isolate would take the sandbox's resident memory past it, fills again
// once there is room, and runs are admitted and run as before.
import { readFileSync } from 'node:fs';
import { expect, it } from '@jest/globals';
import { InProcessSandbox } from '../../sandbox/in-process-sandbox.ts';
import { IsolatePool, READY_ISOLATE_BYTES } from '../../sandbox/isolate-pool.ts';
import { ProcessSandbox } from '../../sandbox/process-sandbox.ts';
import { createToolRuntime } from '../../src/index.ts';
import { runCode, runValue } from '../ptc/helpers.ts';
import { childProcesses } from '../sandbox-security/helpers.ts';
import { expectOk, sleep } from './helpers.ts';

const MiB = 1_048_576;
const trivial = {
  code: 'return 1 + 1',
  toolNames: [],
  hostCall: async () => ({ ok: true as const, valueJson: 'null' }),
};

it('a pool stops filling where one more ready isolate would not fit, and fills again once there is room', async () => {
  let base = 100 * MiB;
  const pool: IsolatePool = new IsolatePool({
    size: 10,
    memoryMb: 16,
    idleFillMs: 0,
    // The process's memory as the pool would measure it: a base, and what its ready isolates hold.
    residentBytes: () => base + pool.readyCount * READY_ISOLATE_BYTES,
    fillBudgetBytes: 100 * MiB + 4 * READY_ISOLATE_BYTES,
  });
  try {
    await pool.warm();
    expect(pool.readyCount).toBe(4);
    expect(pool.stoppedForMemory).toBeGreaterThan(0);
    // Memory freed elsewhere: the next replenish fills up to the budget again.
    base -= 3 * READY_ISOLATE_BYTES;
    pool.replenish();
    for (let waited = 0; pool.readyCount < 7 && waited < 30_000; waited += 50) await sleep(50);
    expect(pool.readyCount).toBe(7);
    await sleep(300);
    expect(pool.readyCount).toBe(7);
    // A run still gets its isolate (the budget bounds the fill, not runs).
    (await pool.take(16)).dispose();
    expect(() => new IsolatePool({ size: 1, memoryMb: 16, fillBudgetBytes: 0 })).toThrow(
      'fillBudgetBytes must be a positive integer, got 0',
    );
  } finally {
    pool.close();
  }
}, 60_000);

it('in-process: with no room in the budget the pool stays empty, and runs still run (each on a fresh isolate)', async () => {
  // Below this process's memory already: not one ready isolate fits. (A budget with some room
  // is not measured here: this test process reuses memory freed by earlier sandboxes, so its
  // resident size does not show what a pool takes; sandbox processes below do.)
  const sandbox = new InProcessSandbox({ memoryBudgetBytes: process.memoryUsage.rss() - 16 * MiB });
  try {
    await sandbox.warm();
    expectOk(await sandbox.run(trivial), 2);
    await sleep(500);
    // Its figure leaves out ready isolates: none are, so it is the whole resident size.
    expect(process.memoryUsage.rss() - sandbox.memoryInUse()).toBeLessThan(READY_ISOLATE_BYTES);
    expectOk(await sandbox.run(trivial), 2);
  } finally {
    await sandbox.close();
  }
}, 60_000);

/** Resident memory of a process, read from /proc (Linux). */
function residentOf(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1] ?? 0) * 1_024;
}

/** Waits until a process's resident memory stops growing (its pool's idle fill is over). */
async function settled(pid: number): Promise<number> {
  let last = residentOf(pid);
  for (let waited = 0; waited < 30_000; waited += 1_000) {
    await sleep(1_000);
    const now = residentOf(pid);
    if (waited >= 2_000 && Math.abs(now - last) < MiB) return now;
    last = now;
  }
  return residentOf(pid);
}

/** What a sandbox process with no pool holds after a run, before any ready isolate (measured once). */
let bareResident: Promise<number> | undefined;
function bareProcessResident(): Promise<number> {
  bareResident ??= measureBareProcess();
  return bareResident;
}
async function measureBareProcess(): Promise<number> {
  const bare = new ProcessSandbox({ processes: 1, poolSize: 0 });
  try {
    expectOk(await bare.run(trivial), 2);
    return await settled(bare.childPids[0]!);
  } finally {
    await bare.close();
  }
}

it('process mode: each sandbox process fills its pool within its share of the budget', async () => {
  // A sandbox process with no pool: what one holds before any ready isolate.
  const baseline = await bareProcessResident();
  // Two processes share the budget: room for about 10 ready isolates each, not 32.
  const box = new ProcessSandbox({ processes: 2, poolSize: 32, memoryBudgetBytes: 2 * (baseline + 16 * MiB) });
  try {
    expectOk(await box.run(trivial), 2);
    // Both fill at once: they settle side by side.
    const resident = await Promise.all(box.childPids.map((pid) => settled(pid!)));
    for (const bytes of resident) expect(bytes).toBeLessThanOrEqual(baseline + 16 * MiB + 8 * MiB);
    expectOk(await box.run(trivial), 2);
  } finally {
    await box.close();
  }
}, 120_000);

it('createToolRuntime gives the sandbox it makes the admission memory budget, and runs are admitted', async () => {
  const baseline = await bareProcessResident();
  const budget = baseline + 16 * MiB;
  const before = new Set(sandboxProcesses());
  const runtime = createToolRuntime({
    mode: 'ptc',
    sandbox: { processes: 1, poolSize: 32 },
    limits: { memoryMb: 8 },
    admission: { memoryBudgetBytes: budget },
  });
  try {
    expect(runValue(await runCode(runtime, 'return 2;')).result).toBe(2);
    const [pid] = sandboxProcesses().filter((p) => !before.has(p));
    expect(await settled(pid!)).toBeLessThanOrEqual(budget + 8 * MiB);
    expect(runValue(await runCode(runtime, 'return 3;')).result).toBe(3);
  } finally {
    await runtime.close();
  }
}, 120_000);

/** Live sandbox processes that are children of this one (not esbuild's service). */
function sandboxProcesses(): number[] {
  return childProcesses().filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sandbox-process');
    } catch {
      return false; // the process ended meanwhile
    }
  });
}
