// The isolates a sandbox keeps ready (filled in idle time, ~1.5 MiB each) are a cache
// runs start on: the memory a sandbox reports for admission leaves them out, so an idle
// runtime whose pool has filled admits the run it admitted before the fill.
import { afterAll, expect, it } from '@jest/globals';
import { InProcessSandbox } from '../../sandbox/in-process-sandbox.ts';
import { READY_ISOLATE_BYTES } from '../../sandbox/isolate-pool.ts';
import { DEFAULT_IN_PROCESS_POOL_SIZE } from '../../sandbox/pool-size.ts';
import { RunAdmission } from '../../src/ptc/run-admission.ts';
import { expectOk } from './helpers.ts';

const MiB = 1_048_576;
const sandbox = new InProcessSandbox();
afterAll(() => sandbox.close());

it('in-process: an idle runtime still admits, once its ready pool has filled, the run it admitted at start', async () => {
  const atStart = sandbox.memoryInUse();
  // Less headroom than the full pool holds (64 × 1.5 = 96 MiB).
  const admission = new RunAdmission({
    memoryBudgetBytes: atStart + 128 * MiB + 48 * MiB,
    measureMemory: () => sandbox.memoryInUse(),
    queueTimeoutMs: 500,
  });
  (await admission.admit(128 * MiB)).release();
  const rssBefore = process.memoryUsage.rss();
  await sandbox.warm();
  (await admission.admit(128 * MiB)).release();
  // The pool did take real memory, which the sandbox's figure leaves out.
  expect(process.memoryUsage.rss() - rssBefore).toBeGreaterThan(
    (DEFAULT_IN_PROCESS_POOL_SIZE * READY_ISOLATE_BYTES) / 4,
  );
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
