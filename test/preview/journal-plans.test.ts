// Plans in the journal: a plan previewed by one runtime is committed by another on the
// same journal file (their memory shares nothing) and by another process, once across all
// of them; without PTC_PLAN_KEY the sealing key is made once and kept in the journal.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ptcRuntimes } from '../ptc/helpers.ts';
import { spawnWatched } from '../support/watched-child.ts';
import { registerShop, REFUND_LATE, runCall } from './fixtures/shop.ts';

const runtime = ptcRuntimes();
const COMMIT_HOST = fileURLToPath(new URL('./fixtures/commit-host.ts', import.meta.url));

/** Commits `token` in a process of its own on `journal`; resolves with its report. */
async function commitInAnotherProcess(
  journal: string,
  token: string,
): Promise<{ log: string[]; applied?: number; error?: { code: string } }> {
  const child = spawnWatched(dir, ['--no-node-snapshot', COMMIT_HOST, journal, token]);
  await child.within('the commit process to report and exit', child.finished, 40_000);
  const line = child.stdout().split('\n')[0] ?? '';
  if (line === '') throw new Error(`the commit process printed nothing: ${child.stderr()}`);
  return JSON.parse(line) as { log: string[]; applied?: number; error?: { code: string } };
}
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-plans-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('a plan previewed on one runtime is committed on another runtime of the same journal, once', async () => {
  const journal = join(dir, 'plans.jsonl');
  const previewer = runtime({ journal });
  const previewShop = registerShop(previewer);
  const { plan } = await previewer.preview(runCall(REFUND_LATE));
  expect(previewShop.log).toStrictEqual([]);

  const committer = runtime({ journal });
  const commitShop = registerShop(committer);
  const { commit } = await committer.commit(plan.token);
  expect(commitShop.log).toStrictEqual(['refund:1', 'refund:3', 'refund:5']);
  expect(commit.applied).toHaveLength(3);

  // Used once, across both runtimes.
  await expect(previewer.commit(plan.token)).rejects.toMatchObject({ code: 'PLAN_USED' });
  await expect(committer.commit(plan.token)).rejects.toMatchObject({ code: 'PLAN_USED' });
  expect(previewShop.log).toStrictEqual([]);

  // One key row, written once, read by both.
  const rows = (await readFile(journal, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string });
  expect(rows.filter((r) => r.type === 'plan/key')).toHaveLength(1);
  expect(rows.filter((r) => r.type === 'plan/saved')).toHaveLength(1);
  expect(rows.filter((r) => r.type === 'plan/used')).toHaveLength(1);
  // The preview is no durable run: nothing to list or resume.
  expect(await previewer.runs()).toStrictEqual([]);
}, 60_000);

it('two commits of one plan racing on two runtimes: exactly one runs', async () => {
  const journal = join(dir, 'race.jsonl');
  const a = runtime({ journal });
  const b = runtime({ journal });
  const shopA = registerShop(a);
  const shopB = registerShop(b);
  const { plan } = await a.preview(runCall(REFUND_LATE));
  const outcomes = await Promise.allSettled([a.commit(plan.token), b.commit(plan.token)]);
  expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
  const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
  expect(refused.reason).toMatchObject({ code: 'PLAN_USED' });
  expect([...shopA.log, ...shopB.log]).toStrictEqual(['refund:1', 'refund:3', 'refund:5']);
}, 60_000);

it('a plan previewed here is committed by another process on the same journal, once', async () => {
  const journal = join(dir, 'process.jsonl');
  const rt = runtime({ journal });
  const shop = registerShop(rt);
  const { plan } = await rt.preview(runCall(REFUND_LATE));
  const first = await commitInAnotherProcess(journal, plan.token);
  expect(first).toStrictEqual({ log: ['refund:1', 'refund:3', 'refund:5'], applied: 3 });
  const second = await commitInAnotherProcess(journal, plan.token);
  expect(second).toStrictEqual({ log: [], error: expect.objectContaining({ code: 'PLAN_USED' }) });
  await expect(rt.commit(plan.token)).rejects.toMatchObject({ code: 'PLAN_USED' });
  expect(shop.log).toStrictEqual([]);
}, 120_000);
