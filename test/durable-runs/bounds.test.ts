// The bounds of durable runs, each hit: a paused run expires (pausedRunTtlMs); a run
// whose record is too large cannot pause (maxPausedRunBytes) and its gated calls do not
// run; a runtime without a journal cannot pause (the error names the option) nor list or
// resume runs; a memory journal's pause says it does not survive a restart.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryJournal, type PausedRun, type ToolResult } from '../../src/index.ts';
import { gatedRuntime, readBodyLog, runCall } from './fixtures/gated-tools.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-bounds-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
const inProcess = { sandbox: { isolation: 'in-process' as const, poolSize: 1 } };
const pausedOf = (result: ToolResult): PausedRun => {
  const paused = (result.value as { paused?: PausedRun } | undefined)?.paused;
  if (paused === undefined) throw new Error(`not paused: ${JSON.stringify(result)}`);
  return paused;
};

it('a paused run expires after pausedRunTtlMs: resume refuses it, runs() no longer lists it', async () => {
  const log = join(dir, 'expiry.log');
  // 3 s: listing the run right after its pause must come before it expires on a loaded machine.
  const rt = gatedRuntime(join(dir, 'expiry.jsonl'), log, { ...inProcess, pausedRunTtlMs: 3_000 });
  const paused = pausedOf(await rt.execute(runCall('c1', 'return (await tools.write({ v: 1 })).wrote;')));
  expect(paused.expiresAt - Date.now()).toBeLessThanOrEqual(3_000);
  expect((await rt.runs()).map((r) => r.status)).toStrictEqual(['paused']);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, paused.expiresAt - Date.now()) + 100));
  expect(await rt.runs()).toStrictEqual([]);
  await expect(rt.resume(paused.runId, { 'c1:ptc:1': 'approve' })).rejects.toMatchObject({ code: 'RUN_EXPIRED' });
  // The expiry is journaled: the run has ended.
  await expect(rt.resume(paused.runId, { 'c1:ptc:1': 'approve' })).rejects.toMatchObject({ code: 'RUN_FINISHED' });
  expect(readBodyLog(log)).toStrictEqual([]);
  await rt.close();
}, 30_000);

it('a run whose record is over maxPausedRunBytes cannot pause: the run fails with pause-limit, the gated call never runs', async () => {
  const log = join(dir, 'limit.log');
  const rt = gatedRuntime(join(dir, 'limit.jsonl'), log, { ...inProcess, maxPausedRunBytes: 1000 });
  const small = await rt.execute(
    runCall('c1', 'await tools.read({ n: 1 }); return (await tools.write({ v: "x" })).wrote;'),
  );
  expect(pausedOf(small).pending).toHaveLength(1);
  const big = await rt.execute(
    runCall('c2', 'await tools.read({ n: 1, pad: "y".repeat(2000) }); return (await tools.write({ v: "x" })).wrote;'),
  );
  expect(big.isError).toBe(true);
  expect(big.error?.info).toMatchObject({ kind: 'pause-limit' });
  expect(big.error?.message).toMatch(/cannot pause: its record \(\d+ bytes.*maxPausedRunBytes \(1000\)/);
  expect(readBodyLog(log).map((b) => b.name)).toStrictEqual(['read', 'read']);
  expect(await rt.runs({ status: 'interrupted' })).toStrictEqual([]);
  await rt.close();
}, 30_000);

it('without a journal a run cannot pause (the error names the option), and runs()/resume() say why', async () => {
  const log = join(dir, 'nojournal.log');
  const rt = gatedRuntime(undefined, log, inProcess);
  const result = await rt.execute(
    runCall('c1', 'try { await tools.write({ v: 1 }); } catch (e) { return [e.code, e.message]; }'),
  );
  const [code, message] = (result.value as { result: [string, string] }).result;
  expect(code).toBe('APPROVAL_UNAVAILABLE');
  expect(message).toMatch(
    /answered 'pause', but a run can pause only on a runtime with a journal \(createToolRuntime\(\{ journal/,
  );
  await expect(rt.runs()).rejects.toMatchObject({ code: 'NO_JOURNAL' });
  await expect(rt.resume('x')).rejects.toMatchObject({ code: 'NO_JOURNAL' });
  await rt.close();
}, 30_000);

it('a model-direct call cannot pause, even with a journal', async () => {
  const rt = gatedRuntime(createMemoryJournal(), join(dir, 'direct.log'), { ...inProcess, mode: 'native' });
  const result = await rt.execute({ callId: 'd1', name: 'write', arguments: { v: 1 } });
  expect(result.error?.code).toBe('APPROVAL_UNAVAILABLE');
  expect(result.error?.message).toMatch(/only the calls a run_code program makes can pause/);
  await rt.close();
});

it('a memory journal pauses, and the paused result says it does not survive a restart', async () => {
  const rt = gatedRuntime(createMemoryJournal(), join(dir, 'memory.log'), inProcess);
  const result = await rt.execute(runCall('c1', 'return (await tools.write({ v: 1 })).wrote;'));
  const paused = pausedOf(result);
  expect(paused.survivesRestart).toBe(false);
  expect((result.content[0] as { text: string }).text).toMatch(/does not survive a restart/);
  const final = await rt.resume(paused.runId, { 'c1:ptc:1': 'deny' });
  expect(final.isError).toBe(true);
  expect(final.error?.message).toMatch(/DENIED/);
  await rt.close();
}, 30_000);

it('bad durable-run options are refused at creation', () => {
  expect(() => gatedRuntime(createMemoryJournal(), join(dir, 'x.log'), { pausedRunTtlMs: 0 })).toThrow(
    /pausedRunTtlMs must be a positive integer/,
  );
  expect(() => gatedRuntime(createMemoryJournal(), join(dir, 'x.log'), { maxPausedRunBytes: -1 })).toThrow(
    /maxPausedRunBytes must be a positive integer/,
  );
});
