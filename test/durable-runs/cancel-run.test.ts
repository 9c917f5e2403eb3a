// rt.runOfCall and rt.cancelRun on a JSONL journal: a paused run is found by its run_code
// callId (status, pending calls, latest result), only in its scope; cancelling ends it in
// the journal as cancelled (nothing of it runs, a resume is RUN_FINISHED); a run being
// resumed right now is RUN_BUSY; a run outside the scope is UNKNOWN_RUN.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolRuntime, type PausedRun } from '../../src/index.ts';
import { gatedRuntime, readBodyLog, runCall } from './fixtures/gated-tools.ts';

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-cancel-run-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pausedOf = (value: unknown): PausedRun => (value as { paused: PausedRun }).paused;

describe('rt.runOfCall and rt.cancelRun', () => {
  it('finds a paused run by its callId, in its scope only, and cancels it for good', async () => {
    const log = join(dir, 'body-1.log');
    const rt = gatedRuntime(join(dir, 'journal-1.jsonl'), log);
    try {
      const first = await rt.execute({
        ...runCall('c1', 'return (await tools.write({ v: 1 })).wrote;'),
        principal: 'ann',
      });
      const { runId } = pausedOf(first.value);
      const found = await rt.runOfCall('c1');
      expect(found).toMatchObject({ runId, status: 'paused', principal: 'ann' });
      expect(found?.pending.map((p) => p.arguments)).toEqual([{ v: 1 }]);
      expect(pausedOf(found?.result?.value).runId).toBe(runId);
      expect(await rt.runOfCall('c1', { principal: 'bob' })).toBeUndefined();
      expect(await rt.runOfCall('no-such-call')).toBeUndefined();
      await expect(rt.cancelRun(runId, { principal: 'bob' })).rejects.toMatchObject({ code: 'UNKNOWN_RUN' });
      await rt.cancelRun(runId, { principal: 'ann' });
      expect((await rt.runOfCall('c1'))?.status).toBe('cancelled');
      expect(await rt.runs()).toEqual([]);
      await expect(rt.resume(runId, {})).rejects.toMatchObject({ code: 'RUN_FINISHED' });
      await expect(rt.cancelRun(runId)).rejects.toMatchObject({ code: 'RUN_FINISHED' });
      expect(readBodyLog(log)).toEqual([]);
    } finally {
      await rt.close();
    }
  });

  it('a run being resumed is RUN_BUSY; once it ends, it is completed', async () => {
    const log = join(dir, 'body-2.log');
    const release = join(dir, 'release-2');
    const rt = gatedRuntime(join(dir, 'journal-2.jsonl'), log);
    try {
      const code = `return (await tools.write({ v: 2, waitFor: ${JSON.stringify(release)} })).wrote;`;
      const paused = pausedOf((await rt.execute(runCall('c2', code))).value);
      const resumed = rt.resume(paused.runId, { [paused.pending[0]!.callId]: 'approve' });
      const deadline = Date.now() + 60_000;
      while (readBodyLog(log).length === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(readBodyLog(log)).toHaveLength(1);
      expect((await rt.runOfCall('c2'))?.status).toBe('running');
      await expect(rt.cancelRun(paused.runId)).rejects.toMatchObject({ code: 'RUN_BUSY' });
      writeFileSync(release, '');
      expect(((await resumed).value as { result: unknown }).result).toBe(2);
      expect(await rt.runOfCall('c2')).toMatchObject({ status: 'completed' });
    } finally {
      await rt.close();
    }
  });

  it('without a journal there are no durable runs to find or cancel', async () => {
    const rt = createToolRuntime();
    try {
      await expect(rt.runOfCall('c')).rejects.toMatchObject({ code: 'NO_JOURNAL' });
      await expect(rt.cancelRun('r')).rejects.toMatchObject({ code: 'NO_JOURNAL' });
      expect(rt.pausedRunTtlMs).toBeUndefined();
    } finally {
      await rt.close();
    }
  });
});
