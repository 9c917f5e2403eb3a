// A Python run paused for approval is kept as Monty's saved state and its pending call;
// another process on the same journal continues it from that state: nothing before the
// pending call runs again (no body twice, no print() twice), on every journal store.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PausedRun, ToolResult } from '../../src/index.ts';
import {
  freshStore,
  STORE_KINDS,
  startStoreServers,
  stopStoreServers,
  type StoreKind,
} from '../durability/fixtures/stores.ts';
import { readBodyLog } from '../durable-runs/fixtures/gated-tools.ts';
import { spawnWatched } from '../support/watched-child.ts';

const HOST = fileURLToPath(new URL('./fixtures/python-host.ts', import.meta.url));
const HOST_STEP_BOUND_MS = 30_000;

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-python-durable-'));
  await startStoreServers();
}, 120_000);
afterAll(async () => {
  await stopStoreServers();
  await rm(dir, { recursive: true, force: true });
});

interface Report {
  readonly result?: ToolResult;
  readonly error?: { code: string; message: string };
}

async function host(args: readonly string[], killWhen?: () => boolean): Promise<Report | 'killed'> {
  const child = spawnWatched(dir, ['--no-node-snapshot', '--conditions=ptc-source', HOST, ...args]);
  const poll =
    killWhen === undefined ? undefined : setInterval(() => void (killWhen() && child.child.kill('SIGKILL')), 10);
  try {
    await child.within(`the host's "${args[3]}" to report and exit`, child.finished, HOST_STEP_BOUND_MS);
  } finally {
    clearInterval(poll);
  }
  const line = child.stdout().split('\n')[0] ?? '';
  if (line !== '') return JSON.parse(line) as Report;
  if ((await child.exited) === 'SIGKILL') return 'killed';
  throw new Error(`host exited without a report: ${child.stderr()}`);
}

async function reported(args: readonly string[]): Promise<Report> {
  const report = await host(args);
  if (report === 'killed') throw new Error('host was killed');
  return report;
}

const PROGRAM = [
  'base = read(n=1)',
  'print("before the gated call", base)',
  'w = write(v=base + 1)',
  'print("after it", w)',
  'after = read(n=2)',
  '{"base": base, "w": w, "after": after}',
].join('\n');

let counter = 0;

describe.each(STORE_KINDS)('a paused Python run resumes in another process (%s journal)', (kind: StoreKind) => {
  it('from its saved state: no body twice, nothing before the pending call runs again', async () => {
    counter += 1;
    const journal = await freshStore(dir, kind, `py${counter}`);
    const log = join(dir, `bodies-${counter}.log`);
    const first = await reported([kind, journal, log, 'start', `py-run-${counter}`, PROGRAM]);
    const paused = (first.result!.value as { paused?: PausedRun; logs?: string[] } | undefined)?.paused;
    if (paused === undefined) throw new Error(`not paused: ${JSON.stringify(first)}`);
    expect(paused.pending).toMatchObject([{ name: 'write', arguments: { v: 11 } }]);
    expect((first.result!.value as { logs: string[] }).logs).toEqual(['before the gated call 10']);
    expect(readBodyLog(log).map((b) => b.name)).toEqual(['read']);

    const second = await reported([
      kind,
      journal,
      log,
      'resume',
      paused.runId,
      JSON.stringify({ [paused.pending[0]!.callId]: 'approve' }),
    ]);
    expect(second.error).toBeUndefined();
    expect(second.result?.isError).toBe(false);
    const value = second.result!.value as { logs: string[]; result: unknown };
    expect(value.result).toEqual({ base: 10, w: { wrote: 11 }, after: 20 });
    // Continued from the saved state: the line printed before the pause is not printed again.
    expect(value.logs).toEqual(["after it {'wrote': 11}"]);
    expect(readBodyLog(log).map((b) => [b.name, b.args])).toEqual([
      ['read', { n: 1 }],
      ['write', { v: 11 }],
      ['read', { n: 2 }],
    ]);
    if (kind === 'file') {
      const rows = (await readFile(journal, 'utf8')).split('\n').filter((l) => l.includes('"run/paused"'));
      expect(rows).toHaveLength(1);
      const saved = JSON.parse(rows[0]!) as { guestState?: { python: string; seq: number } };
      expect(saved.guestState?.seq).toBe(2);
      expect(saved.guestState!.python.length).toBeGreaterThan(0);
    }
  }, 120_000);
});

describe('a saved state that does not load', () => {
  it('fails the resumed run with a clear message; no body runs', async () => {
    counter += 1;
    const journal = await freshStore(dir, 'file', `py-bad-${counter}`);
    const log = join(dir, `bodies-bad-${counter}.log`);
    const first = await reported(['file', journal, log, 'start', 'py-bad', PROGRAM]);
    const paused = (first.result!.value as { paused?: PausedRun }).paused!;
    const text = await readFile(journal, 'utf8');
    await writeFile(journal, text.replace(/"python":"[^"]*"/, '"python":"AAAA"'));
    const second = await reported([
      'file',
      journal,
      log,
      'resume',
      paused.runId,
      JSON.stringify({ [paused.pending[0]!.callId]: 'approve' }),
    ]);
    expect(second.result?.isError).toBe(true);
    expect(second.result?.error?.message).toContain('saved state could not be loaded');
    expect(readBodyLog(log).map((b) => b.name)).toEqual(['read']);
  }, 120_000);
});

describe('the saved state counts toward maxPausedRunBytes', () => {
  it('a program holding more than the bound cannot pause: kind pause-limit, the gated call did not run', async () => {
    const { gatedRuntime } = await import('../durable-runs/fixtures/gated-tools.ts');
    const log = join(dir, 'bodies-bound.log');
    const rt = gatedRuntime(join(dir, 'bound.jsonl'), log, { guest: 'python', maxPausedRunBytes: 200_000 });
    try {
      const result = await rt.execute({
        callId: 'py-bound',
        name: 'run_code',
        arguments: { description: 'big state', code: 'big = ["x" * 1000 for i in range(500)]\nwrite(v=1)\nlen(big)' },
      });
      expect(result.isError).toBe(true);
      expect(result.error?.info?.kind).toBe('pause-limit');
      expect(result.error?.message).toMatch(/of them the Python program's state/);
      expect(readBodyLog(log)).toEqual([]);
    } finally {
      await rt.close();
    }
  });
});

describe('a Python run whose host died', () => {
  it('killed inside a body: a fresh process runs it again from its start, completed calls answered from the journal', async () => {
    counter += 1;
    const journal = await freshStore(dir, 'file', `py-crash-${counter}`);
    const log = join(dir, `bodies-crash-${counter}.log`);
    const code = 'a = read(n=1)\nprint("started", a)\nh = hold(v=a + 1)\nb = read(n=2)\n[a, h, b]';
    const killed = await host(['file', journal, log, 'start', 'py-crash', code], () =>
      readBodyLog(log).some((b) => b.name === 'hold'),
    );
    expect(killed).toBe('killed');
    const listed = await reported(['file', journal, log, 'runs']);
    const runs = (listed as { runs?: { runId: string; status: string }[] }).runs ?? [];
    expect(runs.map((r) => r.status)).toEqual(['interrupted']);
    const final = await reported(['file', journal, log, 'resume', runs[0]!.runId, '{}']);
    expect(final.result?.isError).toBe(false);
    expect(final.result!.value).toEqual({ logs: ['started 10'], result: [10, 11, 20] });
    const bodies = readBodyLog(log);
    // The read before the kill is answered from the journal; the cut-short hold runs again with its key.
    expect(bodies.map((b) => b.name)).toEqual(['read', 'hold', 'hold', 'read']);
    expect(bodies[1]!.key).toBe(bodies[2]!.key);
  }, 120_000);
});

describe('a resumed Python run whose host died', () => {
  it('killed in the approved body: resumed again from the saved state, it asks again; approved, only that call runs again', async () => {
    counter += 1;
    const journal = await freshStore(dir, 'file', `py-crash2-${counter}`);
    const log = join(dir, `bodies-crash2-${counter}.log`);
    const code = 'a = read(n=1)\nw = write(v=a, hang=True)\nb = read(n=2)\n[w["wrote"], b]';
    const first = await reported(['file', journal, log, 'start', 'py-c2', code]);
    const paused = (first.result!.value as { paused?: PausedRun }).paused!;
    const approve = JSON.stringify({ 'py-c2:ptc:2': 'approve' });
    const killed = await host(['file', journal, log, 'resume', paused.runId, approve], () =>
      readBodyLog(log).some((b) => b.name === 'write'),
    );
    expect(killed).toBe('killed');
    // The approval went with the process that died: the run pauses on the same call again.
    const again = await reported(['file', journal, log, 'resume', paused.runId, '{}']);
    expect((again.result!.value as { paused?: PausedRun }).paused?.pending.map((p) => p.callId)).toEqual([
      'py-c2:ptc:2',
    ]);
    const final = await reported(['file', journal, log, 'resume', paused.runId, approve]);
    expect((final.result!.value as { result: unknown }).result).toEqual([10, 20]);
    const bodies = readBodyLog(log);
    expect(bodies.map((b) => b.name)).toEqual(['read', 'write', 'write', 'read']);
    expect(bodies[1]!.key).toBe(bodies[2]!.key);
  }, 150_000);
});
