// Pause and resume in one process, on every store: a Promise.all of gated writes pauses
// once with all of them pending; resume approves and denies; completed calls are answered
// from the journal (no body twice); randomness and time are the same after the resume.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunResumeError, type PausedRun, type ToolResult, type ToolRuntime } from '../../src/index.ts';
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
  dir = await mkdtemp(join(tmpdir(), 'ptc-pause-'));
  await startStoreServers();
}, 120_000);
afterAll(async () => {
  await stopStoreServers();
  await rm(dir, { recursive: true, force: true });
});
let counter = 0;

const pausedOf = (result: ToolResult): PausedRun => {
  expect(result.isError).toBe(false);
  const paused = (result.value as { paused?: PausedRun }).paused;
  if (paused === undefined) throw new Error(`not paused: ${JSON.stringify(result)}`);
  return paused;
};

describe.each(STORE_KINDS)('pause and resume (%s store)', (kind: StoreKind) => {
  const open = async (): Promise<{ rt: ToolRuntime; log: string; close: () => Promise<void> }> => {
    counter += 1;
    const store = openStore(kind, await freshStore(dir, kind, `p${counter}`));
    const log = join(dir, `bodies-${counter}.log`);
    const rt = gatedRuntime(store.journal, log);
    return {
      rt,
      log,
      close: async () => {
        await rt.close();
        await store.close();
      },
    };
  };

  it('three gated writes in a Promise.all pause once with three pending; approve two, deny one', async () => {
    const { rt, log, close } = await open();
    const code = `
      const base = await tools.read({ n: 1 });
      const r = Math.random(); const t = Date.now();
      const all = await Promise.allSettled([tools.write({ v: base + 1 }), tools.write({ v: base + 2 }), tools.write({ v: base + 3 })]);
      const after = await tools.read({ n: 2 });
      return { all: all.map((s) => s.status === 'fulfilled' ? s.value.wrote : s.reason.code), after, r, t, later: Date.now() >= t };`;
    const first = await rt.execute(runCall('call-1', code));
    const paused = pausedOf(first);
    expect(paused.pending.map((p) => [p.callId, p.name, p.arguments])).toStrictEqual([
      ['call-1:ptc:2', 'write', { v: 11 }],
      ['call-1:ptc:3', 'write', { v: 12 }],
      ['call-1:ptc:4', 'write', { v: 13 }],
    ]);
    expect(paused.pending[0]!.title).toBe('Write 11?');
    const text = (first.content[0] as { text: string }).text;
    expect(text).toContain(`run ${paused.runId}`);
    expect(text).toContain('3 tool calls await');
    expect(text).toContain('tools.write({"v":12})');
    // Nothing gated ran; the read before ran once.
    expect(readBodyLog(log).map((b) => b.name)).toStrictEqual(['read']);

    const listed = await rt.runs();
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ runId: paused.runId, status: 'paused', callId: 'call-1' });
    expect(listed[0]!.pending).toHaveLength(3);

    const final = await rt.resume(paused.runId, {
      'call-1:ptc:2': 'approve',
      'call-1:ptc:3': 'deny',
      'call-1:ptc:4': 'approve',
    });
    expect(final.isError).toBe(false);
    const result = (final.value as { result: { all: unknown[]; after: number; r: number; t: number } }).result;
    expect(result.all).toStrictEqual([11, 'DENIED', 13]);
    expect(result.after).toBe(20);
    const bodies = readBodyLog(log);
    expect(bodies.map((b) => `${b.name}:${JSON.stringify(b.args)}`)).toStrictEqual([
      'read:{"n":1}',
      'write:{"v":11}',
      'write:{"v":13}',
      'read:{"n":2}',
    ]);
    // Keys: non-empty, one per call, the run's id in each.
    const keys = bodies.map((b) => b.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) expect(key.startsWith(`run:${paused.runId}:`)).toBe(true);
    expect(await rt.runs()).toStrictEqual([]);
    await close();
  }, 60_000);

  it('randomness and time seen before the pause are the same after it; a run paused twice resumes twice', async () => {
    const { rt, log, close } = await open();
    const code = `
      const r = Math.random(); const t = Date.now();
      const a = await tools.write({ v: r });
      const b = await tools.write({ v: t });
      return { r, t, a: a.wrote, b: b.wrote, again: Math.random() };`;
    const one = pausedOf(await rt.execute(runCall('call-2', code)));
    expect(one.pending).toHaveLength(1);
    const r = (one.pending[0]!.arguments as { v: number }).v;
    const two = pausedOf(await rt.resume(one.runId, { [one.pending[0]!.callId]: 'approve' }));
    expect(two.runId).toBe(one.runId);
    expect(two.pending.map((p) => p.callId)).toStrictEqual(['call-2:ptc:2']);
    const t = (two.pending[0]!.arguments as { v: number }).v;
    const final = await rt.resume(two.runId, { 'call-2:ptc:2': 'approve' });
    const result = (final.value as { result: { r: number; t: number; a: number; b: number } }).result;
    expect(result).toMatchObject({ r, t, a: r, b: t });
    expect(readBodyLog(log).map((b) => b.name)).toStrictEqual(['write', 'write']);
    await close();
  }, 60_000);

  it('clear errors: unknown run, a decision for a call that is not pending, a finished run, a bad decision', async () => {
    const { rt, close } = await open();
    await expect(rt.resume('no-such-run', {})).rejects.toMatchObject({ code: 'UNKNOWN_RUN' });
    const paused = pausedOf(await rt.execute(runCall('call-3', 'return (await tools.write({ v: 1 })).wrote;')));
    await expect(rt.resume(paused.runId, { 'call-3:ptc:9': 'approve' })).rejects.toThrow(
      /"call-3:ptc:9" is not pending in run .*; pending: call-3:ptc:1/,
    );
    await expect(rt.resume(paused.runId, { 'call-3:ptc:1': 'maybe' as never })).rejects.toMatchObject({
      code: 'INVALID_DECISION',
    });
    const final = await rt.resume(paused.runId, { 'call-3:ptc:1': 'approve' });
    expect((final.value as { result: number }).result).toBe(1);
    const again = rt.resume(paused.runId, {});
    await expect(again).rejects.toBeInstanceOf(RunResumeError);
    await expect(again).rejects.toMatchObject({ code: 'RUN_FINISHED' });
    await close();
  }, 60_000);
});
