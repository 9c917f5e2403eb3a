// Durable runs across real processes and SIGKILL, on every store (PostgreSQL: a
// throwaway cluster; its processes are the "hosts" of one database): a run paused in one
// process finishes in another after its host was killed; a host killed in the middle of
// an approved body leaves the run interrupted, and a resume (approved again: the decision
// belonged to the resume that died) runs that call again with the same idempotency key
// (at least once, with a stable key) and nothing else twice; of two
// processes resuming one run at once, exactly one proceeds.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DurableRunSummary, PausedRun, ToolResult } from '../../src/index.ts';
import {
  freshStore,
  STORE_KINDS,
  startStoreServers,
  stopStoreServers,
  type StoreKind,
} from '../durability/fixtures/stores.ts';
import { spawnWatched } from '../support/watched-child.ts';
import { readBodyLog } from './fixtures/gated-tools.ts';

const HOST = fileURLToPath(new URL('./fixtures/durable-host.ts', import.meta.url));

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-crash-'));
  await startStoreServers();
}, 120_000);
afterAll(async () => {
  await stopStoreServers();
  await rm(dir, { recursive: true, force: true });
});
let counter = 0;

interface Report {
  readonly result?: ToolResult;
  readonly runs?: DurableRunSummary[];
  readonly error?: { code: string; message: string };
}

// A host that neither reports nor exits within this fails its test naming the step, with
// what it printed, the bodies so far and where its JavaScript stood (watched-child.ts),
// instead of the whole test hanging until jest's timeout. Each start takes seconds on a
// loaded machine; four of them fit the test's 120 s.
const HOST_STEP_BOUND_MS = 25_000;

/** Runs the host; resolves with its first report line. `kill` SIGKILLs it once that line arrived (or `until` matched the body log). */
async function host(
  args: readonly string[],
  options: { killAfterReport?: boolean; killWhen?: () => boolean } = {},
): Promise<Report | 'killed'> {
  const [kind, , bodyLog, action] = args;
  const child = spawnWatched(dir, ['--no-node-snapshot', HOST, ...args]);
  // At once, not at the next poll: the host must not go on past its report.
  if (options.killAfterReport === true)
    child.child.stdout!.on('data', () => void (child.stdout().includes('\n') && child.child.kill('SIGKILL')));
  const { killWhen } = options;
  const poll =
    killWhen === undefined ? undefined : setInterval(() => void (killWhen() && child.child.kill('SIGKILL')), 10);
  try {
    // Its output read to the end: 'exit' may come before the report line is read.
    await child.within(`the ${kind} host's "${action}" to report and exit`, child.finished, HOST_STEP_BOUND_MS);
  } catch (error) {
    throw new Error(`${(error as Error).message}; bodies so far: ${JSON.stringify(readBodyLog(bodyLog!))}`);
  } finally {
    clearInterval(poll);
  }
  const line = child.stdout().split('\n')[0] ?? '';
  if (line.length > 0) return JSON.parse(line) as Report;
  if ((await child.exited) === 'SIGKILL') return 'killed';
  throw new Error(`host exited without a report: ${child.stderr()}`);
}

const pausedOf = (report: Report | 'killed'): PausedRun => {
  if (report === 'killed' || report.result === undefined) throw new Error(`no result: ${JSON.stringify(report)}`);
  const paused = (report.result.value as { paused?: PausedRun } | undefined)?.paused;
  if (paused === undefined) throw new Error(`not paused: ${JSON.stringify(report.result)}`);
  return paused;
};

const GATED_PROGRAM = `
  const base = await tools.read({ n: 1 });
  const all = await Promise.all([tools.write({ v: base + 1 }), tools.write({ v: base + 2 }), tools.write({ v: base + 3 })]);
  return all.map((w) => w.wrote);`;

describe.each(STORE_KINDS)('durable runs across processes (%s store)', (kind: StoreKind) => {
  const files = async (): Promise<string[]> => {
    counter += 1;
    return [kind, await freshStore(dir, kind, `k${counter}`), join(dir, `bodies-${kind}-${counter}.log`)];
  };

  it('three gated writes pause once, the host is SIGKILLed, a fresh process finishes the run with one decision call', async () => {
    const common = await files();
    const paused = pausedOf(await host([...common, 'start', 'call-1', GATED_PROGRAM], { killAfterReport: true }));
    expect(paused.pending).toHaveLength(3);
    const listed = await host([...common, 'runs']);
    expect(listed !== 'killed' && listed.runs?.map((r) => [r.runId, r.status])).toStrictEqual([
      [paused.runId, 'paused'],
    ]);
    const decisions = Object.fromEntries(paused.pending.map((p) => [p.callId, 'approve']));
    const final = await host([...common, 'resume', paused.runId, JSON.stringify(decisions)]);
    if (final === 'killed' || final.result === undefined) throw new Error(JSON.stringify(final));
    expect((final.result.value as { result: unknown }).result).toStrictEqual([11, 12, 13]);
    // No body ran twice: one read before the pause, three approved writes after.
    expect(readBodyLog(common[2]!).map((b) => `${b.name}:${JSON.stringify(b.args)}`)).toStrictEqual([
      'read:{"n":1}',
      'write:{"v":11}',
      'write:{"v":12}',
      'write:{"v":13}',
    ]);
  }, 120_000);

  it('SIGKILL in the middle of an approved body: the run is interrupted; re-approved, that call runs again with the same key, nothing else', async () => {
    const common = await files();
    const log = common[2]!;
    const code =
      'const a = await tools.read({ n: 1 }); const w = await tools.write({ v: a, hang: true }); const b = await tools.read({ n: 2 }); return [w.wrote, b];';
    const paused = pausedOf(await host([...common, 'start', 'call-2', code]));
    const killed = await host([...common, 'resume', paused.runId, JSON.stringify({ 'call-2:ptc:2': 'approve' })], {
      killWhen: () => readBodyLog(log).some((b) => b.name === 'write'),
    });
    expect(killed).toBe('killed');
    const listed = await host([...common, 'runs']);
    expect(listed !== 'killed' && listed.runs?.map((r) => [r.runId, r.status, r.callId])).toStrictEqual([
      [paused.runId, 'interrupted', 'call-2'],
    ]);
    // The approval was given to the resume that died: a journal row never approves, so the
    // recovery asks again and the run pauses on the same call.
    const again = pausedOf(await host([...common, 'resume', paused.runId, '{}']));
    expect(again.pending.map((p) => p.callId)).toStrictEqual(['call-2:ptc:2']);
    const final = await host([...common, 'resume', paused.runId, JSON.stringify({ 'call-2:ptc:2': 'approve' })]);
    if (final === 'killed' || final.result === undefined) throw new Error(JSON.stringify(final));
    expect((final.result.value as { result: unknown }).result).toStrictEqual([10, 20]);
    const bodies = readBodyLog(log);
    expect(bodies.map((b) => b.name)).toStrictEqual(['read', 'write', 'write', 'read']);
    // At least once, with a stable key: both attempts of the write carry the same key.
    expect(bodies[1]!.key).toBe(bodies[2]!.key);
    expect(bodies[1]!.key).toBe(`run:${paused.runId}:2`);
    expect(new Set(bodies.map((b) => b.key)).size).toBe(3);
  }, 150_000);

  it('two processes resume one run at once: exactly one proceeds, the other gets RUN_BUSY', async () => {
    const common = await files();
    // The approved body holds until the go file exists: the first resume is still inside the
    // run however late the second process starts (each start takes seconds under load).
    const go = join(dir, `go-${kind}-${counter}`);
    const paused = pausedOf(
      await host([
        ...common,
        'start',
        'call-3',
        `return (await tools.write({ v: 1, waitFor: ${JSON.stringify(go)} })).wrote;`,
      ]),
    );
    const decisions = JSON.stringify({ 'call-3:ptc:1': 'approve' });
    const resumes = [
      host([...common, 'resume', paused.runId, decisions]),
      host([...common, 'resume', paused.runId, decisions]),
    ];
    // The one that did not get the run reports first (the other is held in the body).
    await Promise.race(resumes);
    writeFileSync(go, '');
    const reports = (await Promise.all(resumes)) as Report[];
    const winners = reports.filter((r) => r.result !== undefined);
    const losers = reports.filter((r) => r.error !== undefined);
    expect(winners).toHaveLength(1);
    expect((winners[0]!.result!.value as { result: unknown }).result).toBe(1);
    expect(losers.map((r) => r.error!.code)).toStrictEqual(['RUN_BUSY']);
    expect(losers[0]!.error!.message).toMatch(/being continued by another process/);
    expect(readBodyLog(common[2]!).filter((b) => b.name === 'write')).toHaveLength(1);
  }, 120_000);
});
