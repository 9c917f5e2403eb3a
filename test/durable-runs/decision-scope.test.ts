// A decision belongs to one call of one run. Two conversations whose run_code calls got
// the same id (`toolu_1`, as providers number ids per response) pause on one journal; while
// the first run's approved write is running, a third run with that id and a direct call
// whose id is the first run's pending call (`toolu_1:ptc:1`) are made: none of them is
// approved by it, and the second run's pending call stays pending. On every store.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PausedRun, ToolResult } from '../../src/index.ts';
import {
  freshStore,
  openStore,
  STORE_KINDS,
  startStoreServers,
  stopStoreServers,
  type StoreKind,
} from '../durability/fixtures/stores.ts';
import { gatedRuntime, readBodyLog, runCall } from './fixtures/gated-tools.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-scope-'));
  await startStoreServers();
}, 120_000);
afterAll(async () => {
  await stopStoreServers();
  await rm(dir, { recursive: true, force: true });
});

/** Polls `ok` until it holds; fails after `ms` naming what it waited for. */
async function until(ok: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`still waiting after ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const pausedOf = (result: ToolResult): PausedRun => {
  const paused = (result.value as { paused?: PausedRun } | undefined)?.paused;
  if (paused === undefined) throw new Error(`not paused: ${JSON.stringify(result)}`);
  return paused;
};

describe.each(STORE_KINDS)('a decision is one call of one run (%s store)', (kind: StoreKind) => {
  it('two runs with run_code id toolu_1 and a direct call toolu_1:ptc:1 are unaffected by the first run approval', async () => {
    const store = openStore(kind, await freshStore(dir, kind, `scope-${kind}`));
    const log = join(dir, `bodies-${kind}.log`);
    const go = join(dir, `go-${kind}`);
    // mode 'both': the direct call reaches the gated tool (ptc mode would refuse it first).
    const rt = gatedRuntime(store.journal, log, { mode: 'both' });
    try {
      const held = JSON.stringify(go);
      const first = pausedOf(
        await rt.execute(runCall('toolu_1', `return (await tools.write({ v: 'ann', waitFor: ${held} })).wrote;`)),
      );
      const second = pausedOf(
        await rt.execute(runCall('toolu_1', `return (await tools.write({ v: 'payment' })).wrote;`)),
      );
      expect(first.pending.map((p) => p.callId)).toStrictEqual(['toolu_1:ptc:1']);
      expect(second.pending.map((p) => p.callId)).toStrictEqual(['toolu_1:ptc:1']);

      // The first run's approved write holds its body (and the resume) until `go` exists.
      const resumed = rt.resume(first.runId, { 'toolu_1:ptc:1': 'approve' });
      await until(() => readBodyLog(log).some((b) => b.args.v === 'ann'), 'the approved write to start');

      const third = await rt.execute(runCall('toolu_1', `return (await tools.write({ v: 'third' })).wrote;`));
      expect(pausedOf(third).pending.map((p) => p.callId)).toStrictEqual(['toolu_1:ptc:1']);
      const direct = await rt.execute({ callId: 'toolu_1:ptc:1', name: 'write', arguments: { v: 'direct' } });
      expect(direct.isError).toBe(true);
      expect(direct.error?.code).toBe('APPROVAL_UNAVAILABLE');
      // The second run, resumed without decisions, asks again and pauses on the same call.
      const secondAgain = pausedOf(await rt.resume(second.runId));
      expect(secondAgain.pending.map((p) => [p.callId, p.arguments])).toStrictEqual([
        ['toolu_1:ptc:1', { v: 'payment' }],
      ]);

      writeFileSync(go, '');
      const final = await resumed;
      expect((final.value as { result: unknown }).result).toBe('ann');
      // Only the approved call ran.
      expect(readBodyLog(log).map((b) => b.args.v)).toStrictEqual(['ann']);
      // The other two runs are still paused on their own calls, with their own arguments.
      const listed = await rt.runs();
      expect(listed.map((r) => [r.runId, r.status, r.pending.map((p) => p.arguments)]).sort()).toStrictEqual(
        [
          [second.runId, 'paused', [{ v: 'payment' }]],
          [pausedOf(third).runId, 'paused', [{ v: 'third' }]],
        ].sort(),
      );
    } finally {
      await rt.close();
      await store.close();
    }
  }, 90_000);
});
