// The isolates a sandbox keeps ready (filled in idle time after a burst, ~1.5 MiB each) are a cache
// runs start on: the memory a sandbox reports for admission leaves them out, so an idle
// runtime whose pool has filled admits the run it admitted before the fill.
import { readFileSync } from 'node:fs';
import { afterAll, expect, it } from '@jest/globals';
import { InProcessSandbox } from '../../sandbox/in-process-sandbox.ts';
import { READY_ISOLATE_BYTES } from '../../sandbox/isolate-pool.ts';
import { DEFAULT_IN_PROCESS_POOL_SIZE } from '../../sandbox/pool-size.ts';
import { ProcessSandbox } from '../../sandbox/process-sandbox.ts';
import { RunAdmission } from '../../src/ptc/run-admission.ts';
import { gate } from '../support/gate.ts';
import { untilArrived } from '../support/until-arrived.ts';
import { expectOk, sleep } from './helpers.ts';

const MiB = 1_048_576;
const sandboxes: InProcessSandbox[] = [];
afterAll(() => Promise.all(sandboxes.map((s) => s.close())));

it('in-process: an idle runtime still admits, once its ready pool has filled, the run it admitted at start', async () => {
  const sandbox = new InProcessSandbox();
  sandboxes.push(sandbox);
  const atStart = sandbox.memoryInUse();
  // Less headroom than the full pool holds (64 × 1.5 = 96 MiB).
  const admission = new RunAdmission({
    memoryBudgetBytes: atStart + 128 * MiB + 48 * MiB,
    measureMemory: () => sandbox.memoryInUse(),
    queueTimeoutMs: 500,
  });
  (await admission.admit(128 * MiB)).release();
  await sandbox.warm();
  (await admission.admit(128 * MiB)).release();
  // The full pool is left out of the sandbox's figure. (How much the process's RSS grows
  // for it is not asserted: in a jest worker the pool reuses memory freed by earlier
  // suites' isolates, so the growth ranged from ~10 to ~100 MiB.)
  expect(process.memoryUsage.rss() - sandbox.memoryInUse()).toBeGreaterThanOrEqual(
    DEFAULT_IN_PROCESS_POOL_SIZE * READY_ISOLATE_BYTES - READY_ISOLATE_BYTES,
  );
  const ran = await sandbox.run({
    code: 'return 1 + 1',
    toolNames: [],
    hostCall: async () => ({ ok: true, valueJson: 'null' }),
  });
  expectOk(ran, 2);
}, 60_000);

/** Resident memory of a process, read from /proc (Linux). */
function residentOf(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1] ?? 0) * 1_024;
}

it('process mode: a sandbox process reports its memory less the ready isolates it filled in idle time', async () => {
  const box = new ProcessSandbox({ processes: 1, poolSize: 32 });
  try {
    const trivial = {
      code: 'return 1',
      toolNames: [],
      hostCall: async () => ({ ok: true as const, valueJson: 'null' }),
    };
    // The pool grows to the most runs seen at once: 32 runs inside a tool call together.
    const held = gate();
    let inside = 0;
    const burst = Array.from({ length: 32 }, () =>
      box.run({
        code: 'return await tools.wait({})',
        toolNames: ['wait'],
        hostCall: async () => {
          inside += 1;
          await held.passed;
          return { ok: true as const, valueJson: '1' };
        },
      }),
    );
    await untilArrived(() => inside === 32, burst, 60_000);
    held.open();
    for (const outcome of await Promise.all(burst)) expectOk(outcome, 1);
    const pid = box.childPids[0]!;
    // The idle fill (it may have begun before the first run ended) is slow under load, and
    // a pause in its growth is no sign it is over: the figure reported with a run's end is
    // watched until the ready isolates (31 of the 32 once full) are left out of it. Each
    // check's run takes one isolate: 2 s of idle time between them lets the fill get ahead.
    const leftOut = (): number => residentOf(pid) - box.memoryInUse();
    const enough = 30 * READY_ISOLATE_BYTES - 4 * MiB;
    for (const end = Date.now() + 60_000; Date.now() < end; await sleep(2_000)) {
      expectOk(await box.run(trivial), 1);
      if (leftOut() >= enough) break;
    }
    expect(leftOut()).toBeGreaterThanOrEqual(enough);
  } finally {
    await box.close();
  }
}, 90_000);
