// Durable runs at capacity: with a journal of every shipped store (PostgreSQL on a
// throwaway cluster), 100 concurrent run_code runs that each await a tool are all in
// flight at once and all finish: claiming a run (one per run, held while it runs) does
// not cap how many runs one process can hold.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolRuntime } from '../../src/index.ts';
import {
  freshStore,
  openStore,
  STORE_KINDS,
  startStoreServers,
  stopStoreServers,
} from '../durability/fixtures/stores.ts';
import { allDone, allInside } from '../capacity/fixtures/all-inside.ts';
import { probeTool, runCode, runValue } from '../ptc/helpers.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-durable-capacity-'));
  await startStoreServers();
}, 120_000);
afterAll(async () => {
  await stopStoreServers();
  await rm(dir, { recursive: true, force: true });
});

describe.each(STORE_KINDS)('durable runs at capacity (%s store)', (kind) => {
  it('100 concurrent runs each awaiting a tool are all in flight together and all finish', async () => {
    const RUNS = 100;
    const store = openStore(kind, await freshStore(dir, kind, `capacity_${kind}`));
    // Admission reserves each run's heap limit: small heaps give 100 waiting runs room.
    const rt = createToolRuntime({
      mode: 'ptc',
      journal: store.journal,
      limits: { memoryMb: 16 },
      admission: { memoryBudgetBytes: 2_560 * 1_048_576 },
    });
    // Each tool call answers 'done' once all 100 are inside it together, else how many got in.
    const gate = allInside(RUNS);
    try {
      rt.register(probeTool({ name: 'wait', safe: true, body: () => gate.enter() }));
      const runs = Array.from({ length: RUNS }, (_, i) =>
        runCode(rt, 'return await tools.wait({})', { callId: `durable-${i}` }),
      );
      const results = await Promise.all(runs);
      expect(results.map((r) => (r.isError ? (r.error?.message ?? 'error') : runValue(r).result))).toEqual(
        allDone(RUNS),
      );
    } finally {
      await rt.close();
      await store.close();
    }
  }, 120_000);
});
