// Plans in the SQLite and PostgreSQL stores (a throwaway cluster, no mock), as in the JSONL
// one: a plan previewed on one runtime is committed on another runtime of the same
// database (their memory shares nothing), once: a second commit on either is PLAN_USED.
// Without PTC_PLAN_KEY both runtimes seal with the one key the store keeps.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Journal } from '../../src/index.ts';
import { openJournalPath } from '../../src/journal/resolve-journal.ts';
import { ptcRuntimes } from '../ptc/helpers.ts';
import { startPostgres, type PostgresCluster } from '../support/postgres-cluster.ts';
import { registerShop, REFUND_LATE, runCall } from './fixtures/shop.ts';

const runtime = ptcRuntimes();
let dir = '';
let cluster: PostgresCluster;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-plan-stores-'));
  cluster = await startPostgres();
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function planRowTypes(journal: string): Promise<string[]> {
  const store = openJournalPath(journal) as Journal & { close(): void | Promise<void> };
  try {
    return (await store.read()).events.map((e) => e.type).filter((t) => t.startsWith('plan/'));
  } finally {
    await store.close();
  }
}

describe.each([
  ['SQLite', async () => join(dir, 'plans.db')],
  ['PostgreSQL', async () => cluster.createDatabase('plans')],
])('plans on %s', (_store, journalOf) => {
  it('a plan previewed on one runtime is committed on another, once', async () => {
    const journal = await journalOf();
    const previewer = runtime({ journal });
    const previewShop = registerShop(previewer);
    const { plan } = await previewer.preview(runCall(REFUND_LATE));
    expect(plan.writes.map((w) => w.arguments)).toStrictEqual([
      { order: 1, amount: 100 },
      { order: 3, amount: 62.5 },
      { order: 5, amount: 250 },
    ]);

    const committer = runtime({ journal });
    const commitShop = registerShop(committer);
    const { commit } = await committer.commit(plan.token);
    expect(commitShop.log).toStrictEqual(['refund:1', 'refund:3', 'refund:5']);
    expect(commit.applied.map((w) => w.seq)).toStrictEqual([2, 3, 4]);

    await expect(committer.commit(plan.token)).rejects.toMatchObject({ code: 'PLAN_USED' });
    await expect(previewer.commit(plan.token)).rejects.toMatchObject({ code: 'PLAN_USED' });
    expect(previewShop.log).toStrictEqual([]);
    expect(commitShop.log).toHaveLength(3);
    expect((await planRowTypes(journal)).sort()).toStrictEqual(['plan/key', 'plan/saved', 'plan/used']);
  }, 60_000);
});
