// With PTC_JOURNAL_KEY set, every journal row is sealed (HMAC-SHA256 over its canonical
// JSON) and checked when read: a paused run resumes as usual on every store; a row
// written without the key (an injected run/resumed) or changed after it was sealed (a
// rewritten call's arguments) stops that run — skipped in listings with a warning naming
// the row, refused by resume (RUN_TAMPERED) — while the journal's other runs stay usable.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
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

const KEY = 'k'.repeat(40);
let dir = '';
let counter = 0;
const before = process.env.PTC_JOURNAL_KEY;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-seal-'));
  process.env.PTC_JOURNAL_KEY = KEY;
  await startStoreServers();
}, 120_000);
afterAll(async () => {
  if (before === undefined) delete process.env.PTC_JOURNAL_KEY;
  else process.env.PTC_JOURNAL_KEY = before;
  await stopStoreServers();
  await rm(dir, { recursive: true, force: true });
});

const sandbox = { sandbox: { isolation: 'in-process' as const, poolSize: 1 } };

const pausedOf = (result: ToolResult): PausedRun => {
  const paused = (result.value as { paused?: PausedRun } | undefined)?.paused;
  if (paused === undefined) throw new Error(`not paused: ${JSON.stringify(result)}`);
  return paused;
};

/** Collects process warnings while `body` runs. */
async function warningsOf<T>(body: () => Promise<T>): Promise<{ value: T; warnings: string[] }> {
  const warnings: string[] = [];
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error) =>
    void warnings.push(typeof warning === 'string' ? warning : warning.message)) as typeof process.emitWarning;
  try {
    return { value: await body(), warnings };
  } finally {
    process.emitWarning = emitWarning;
  }
}

describe.each(STORE_KINDS)('a sealed journal (%s store)', (kind: StoreKind) => {
  it('pauses and resumes as usual; every row carries a seal', async () => {
    counter += 1;
    const store = openStore(kind, await freshStore(dir, kind, `seal${counter}`));
    const log = join(dir, `seal-bodies${counter}.log`);
    const rt = gatedRuntime(store.journal, log, sandbox);
    try {
      const code = "const r = await tools.read({ n: 1 }); return (await tools.write({ v: { b: r, a: 'x' } })).wrote;";
      const paused = pausedOf(await rt.execute(runCall('toolu_1', code)));
      expect((await rt.runs()).map((r) => r.status)).toStrictEqual(['paused']);
      const final = await rt.resume(paused.runId, { 'toolu_1:ptc:2': 'approve' });
      expect((final.value as { result: unknown }).result).toStrictEqual({ b: 10, a: 'x' });
      expect(readBodyLog(log).map((b) => b.name)).toStrictEqual(['read', 'write']);
      // The store itself (not through the runtime): every row has its seal.
      const { events } = await store.journal.read();
      expect(events.length).toBeGreaterThan(5);
      for (const event of events) expect((event as { seal?: unknown }).seal).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await rt.close();
      await store.close();
    }
  }, 60_000);
});

/** A JSONL journal with two runs paused on a write each. */
async function twoPausedRuns(): Promise<{ journal: string; log: string; a: PausedRun; b: PausedRun }> {
  counter += 1;
  const journal = join(dir, `j${counter}.jsonl`);
  const log = join(dir, `bodies${counter}.log`);
  const rt = gatedRuntime(journal, log, sandbox);
  const a = pausedOf(await rt.execute(runCall('toolu_1', "return (await tools.write({ v: 'ann 5' })).wrote;")));
  const b = pausedOf(await rt.execute(runCall('toolu_2', "return (await tools.write({ v: 'bob 7' })).wrote;")));
  await rt.close();
  return { journal, log, a, b };
}

it('an injected row (written without the key) stops its run only: skipped with a warning naming it, RUN_TAMPERED on resume', async () => {
  const { journal, log, a, b } = await twoPausedRuns();
  const row =
    readFileSync(journal, 'utf8')
      .split('\n')
      .filter((l) => l.length > 0).length + 1;
  appendFileSync(
    journal,
    `${JSON.stringify({ type: 'run/resumed', callId: 'toolu_1', name: 'run_code', runId: a.runId, decisions: { 'toolu_1:ptc:1': 'approve' }, at: Date.now() })}\n`,
  );
  const rt = gatedRuntime(journal, log, sandbox);
  try {
    const { value: listed, warnings } = await warningsOf(() => rt.runs());
    expect(listed.map((r) => r.runId)).toStrictEqual([b.runId]);
    expect(warnings).toStrictEqual([
      `journal event 2 (run/start of run "${a.runId}", call "toolu_1"): this run was skipped: journal event ${row} (run/resumed) ` +
        'failed its integrity check (PTC_JOURNAL_KEY): it was written without the key or changed since',
    ]);
    const refused = rt.resume(a.runId, { 'toolu_1:ptc:1': 'approve' });
    await expect(refused).rejects.toMatchObject({ code: 'RUN_TAMPERED' });
    await expect(refused).rejects.toThrow(
      `run ${a.runId} cannot be resumed: journal event ${row} (run/resumed) failed its integrity check`,
    );
    // The other run is untouched.
    const final = await rt.resume(b.runId, { 'toolu_2:ptc:1': 'approve' });
    expect((final.value as { result: unknown }).result).toBe('bob 7');
    expect(readBodyLog(log).map((x) => x.args.v)).toStrictEqual(['bob 7']);
  } finally {
    await rt.close();
  }
}, 30_000);

it('a sealed row changed afterwards (the pending call arguments) is detected', async () => {
  const { journal, log, a } = await twoPausedRuns();
  const rows = readFileSync(journal, 'utf8').split('\n');
  writeFileSync(
    journal,
    rows.map((r) => (r.includes('"run/paused"') ? r.replace('ann 5', 'mallory 50000') : r)).join('\n'),
  );
  const rt = gatedRuntime(journal, log, sandbox);
  try {
    await expect(rt.resume(a.runId, { 'toolu_1:ptc:1': 'approve' })).rejects.toThrow(
      /\(run\/paused\) failed its integrity check/,
    );
    expect(readBodyLog(log)).toStrictEqual([]);
  } finally {
    await rt.close();
  }
}, 30_000);

it('a key shorter than 32 characters is refused at start, naming the variable', () => {
  process.env.PTC_JOURNAL_KEY = 'short';
  try {
    expect(() => gatedRuntime(join(dir, 'short.jsonl'), join(dir, 'short.log'), sandbox)).toThrow(
      'PTC_JOURNAL_KEY is 5 characters; a journal key needs at least 32 (e.g. openssl rand -hex 32)',
    );
  } finally {
    process.env.PTC_JOURNAL_KEY = KEY;
  }
});
