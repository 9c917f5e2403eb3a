// Plans in the journal: a plan previewed by one runtime is committed by another on the
// same journal file (their memory shares nothing), once across both; without PTC_PLAN_KEY
// the sealing key is made once and kept in the journal.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ptcRuntimes } from '../ptc/helpers.ts';
import { registerShop, REFUND_LATE, runCall } from './fixtures/shop.ts';

const runtime = ptcRuntimes();
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
