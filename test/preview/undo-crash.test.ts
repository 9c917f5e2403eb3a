// A crash during the undo of a failed commit: the commit's process is SIGKILLed while a
// revert runs (it holds until killed), and another process on the same journal finishes
// the undo: the revert recorded as done does not run again, the one the process died in
// runs again, the rest run, last first; the result says what was applied, undone and not
// undone. While the first process lives, its undo is neither listed nor taken. On the
// JSONL, SQLite and PostgreSQL stores (a throwaway cluster).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Journal } from '../../src/index.ts';
import { openJournalPath } from '../../src/journal/resolve-journal.ts';
import { ptcRuntimes } from '../ptc/helpers.ts';
import { startPostgres, type PostgresCluster } from '../support/postgres-cluster.ts';
import { spawnWatched, type WatchedChild } from '../support/watched-child.ts';
import { refundAllCall, registerUndoShop } from './fixtures/undo-shop.ts';

const runtime = ptcRuntimes();
const HOST = fileURLToPath(new URL('./fixtures/undo-host.ts', import.meta.url));

let dir = '';
let cluster: PostgresCluster;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-undo-crash-'));
  cluster = await startPostgres();
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

const planIdOf = (token: string): string =>
  (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { planId: string }).planId;

const host = (journal: string, ...args: string[]): WatchedChild =>
  spawnWatched(dir, ['--no-node-snapshot', HOST, journal, ...args]);

const logOf = (child: WatchedChild): string[] =>
  child
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('log '))
    .map((l) => l.slice(4));

async function resultOf(child: WatchedChild): Promise<Record<string, unknown>> {
  await child.within('the process to report and exit', child.finished);
  const line = child
    .stdout()
    .split('\n')
    .find((l) => l.startsWith('result '));
  if (line === undefined) throw new Error(`no result line: ${child.stdout()} ${child.stderr()}`);
  return JSON.parse(line.slice(7)) as Record<string, unknown>;
}

/** What a JSONL journal's claim records hold (other stores: only the committer's output), for a failure message. */
async function claimsOf(journal: string, committer: WatchedChild): Promise<string> {
  const root = `${journal}.runs`;
  const records: Record<string, string> = {};
  for (const run of await readdir(root).catch(() => []))
    for (const name of await readdir(join(root, run)).catch(() => []))
      records[`${run}/${name}`] = await readFile(join(root, run, name), 'utf8').catch((e: Error) => e.message);
  const pid = committer.child.pid;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch((e: Error) => e.message);
  return JSON.stringify({ pid, stat, records, stdout: committer.stdout(), stderr: committer.stderr() });
}

const write = (seq: number, name: string, args: object) => ({ seq, name, arguments: args });
const refund = (seq: number, order: number) => write(seq, 'refund', { order, amount: order * 10 });

async function planRows(journal: string): Promise<{ type: string; seq?: number; phase?: string }[]> {
  const store = openJournalPath(journal) as Journal & { close(): void | Promise<void> };
  try {
    return (await store.read()).events.filter((e) => e.type.startsWith('plan/')) as {
      type: string;
      seq?: number;
      phase?: string;
    }[];
  } finally {
    await store.close();
  }
}

describe.each([
  ['JSONL', async () => join(dir, 'undo.jsonl')],
  ['SQLite', async () => join(dir, 'undo.db')],
  ['PostgreSQL', async () => cluster.createDatabase('undo_crash')],
])('a crash during the undo, on %s', (_store, journalOf) => {
  it('is finished by another process: nothing reverted twice, last first, the outcome exact', async () => {
    const journal = await journalOf();
    const rt = runtime({ journal });
    const here: string[] = [];
    registerUndoShop(rt, (entry) => here.push(entry));
    const { plan } = await rt.preview(refundAllCall);
    expect(plan.writes.map((w) => w.seq)).toStrictEqual([2, 3, 4, 5, 6]);
    const planId = planIdOf(plan.token);

    const committer = host(journal, 'commit', plan.token);
    await committer.until('the undo to hold in the revert of order 3', () => logOf(committer).includes('reverting:3'));
    expect(logOf(committer)).toStrictEqual([
      'email:a@x',
      'refund:1',
      'refund:3',
      'refund:5',
      'revert:5',
      'reverting:3',
    ]);
    // Its process lives: the undo is not listed, and nobody else may take it.
    // (A failure here says what the store's claims held, and what the committer printed.)
    const busy = await rt.undos();
    if (busy.length > 0) throw new Error(`listed while its process lives: ${await claimsOf(journal, committer)}`);
    const taken = await rt.resumeUndo(planId).then(
      (outcome) => outcome,
      (error: unknown) => error,
    );
    if (!(taken instanceof Error))
      throw new Error(`taken while its process lives: ${await claimsOf(journal, committer)}`);
    expect(taken).toMatchObject({ code: 'UNDO_BUSY' });

    await committer.kill();
    expect(await rt.undos()).toStrictEqual([
      {
        planId,
        startedAt: expect.any(Number),
        applied: [write(2, 'email', { to: 'a@x' }), refund(3, 1), refund(4, 3), refund(5, 5)],
        undone: [refund(5, 5)],
        pending: [refund(4, 3), refund(3, 1)],
      },
    ]);

    const resumer = host(journal, 'resume', planId);
    const resumed = await resultOf(resumer);
    // The revert of order 5 was recorded as done: it does not run again. Order 3's ran
    // again (its process died in it), then order 1's.
    expect(logOf(resumer)).toStrictEqual(['revert:3', 'revert:1']);
    const outcome = {
      planId,
      applied: [write(2, 'email', { to: 'a@x' }), refund(3, 1), refund(4, 3), refund(5, 5)],
      undone: [refund(5, 5), refund(4, 3), refund(3, 1)],
      notUndone: [{ ...write(2, 'email', { to: 'a@x' }), reason: 'tools.email has no revert' }],
    };
    expect(resumed).toStrictEqual({ outcome });

    // Finished: no longer listed; asking again answers the recorded outcome and runs nothing.
    expect(await rt.undos()).toStrictEqual([]);
    expect(await rt.resumeUndo(planId)).toStrictEqual(outcome);
    expect(here).toStrictEqual([]);
    const reverts = (await planRows(journal)).filter((r) => r.type === 'plan/revert').map((r) => `${r.seq}:${r.phase}`);
    expect(reverts).toStrictEqual(['5:start', '5:done', '4:start', '4:start', '4:done', '3:start', '3:done']);
    expect((await planRows(journal)).filter((r) => r.type === 'plan/undone')).toHaveLength(1);
  }, 240_000);
});

describe('journaled undo in one process', () => {
  it('a failed commit records its undo and finishes it: nothing is left to resume', async () => {
    const journal = join(dir, 'one-process.jsonl');
    const rt = runtime({ journal });
    const here: string[] = [];
    registerUndoShop(rt, (entry) => here.push(entry));
    const { plan } = await rt.preview(refundAllCall);
    const failed = (await rt.commit(plan.token).catch((e: unknown) => e)) as {
      code: string;
      info: { commit: { planId: string; undone: unknown[] } };
    };
    expect(failed.code).toBe('COMMIT_FAILED');
    expect(here).toStrictEqual(['email:a@x', 'refund:1', 'refund:3', 'refund:5', 'revert:5', 'revert:3', 'revert:1']);
    expect(await rt.undos()).toStrictEqual([]);
    const planId = failed.info.commit.planId;
    expect(await rt.resumeUndo(planId)).toStrictEqual(failed.info.commit);
    expect(here).toHaveLength(7);
    await expect(rt.resumeUndo('no-such-plan')).rejects.toMatchObject({ code: 'UNDO_UNKNOWN' });
    // Scoped: an undo of the global scope is not another agent's.
    await expect(rt.resumeUndo(planId, { agent: 'other' })).rejects.toMatchObject({ code: 'UNDO_UNKNOWN' });
  }, 60_000);

  it('an undo row whose plan id the claims refuse is skipped, not the listing', async () => {
    const journal = join(dir, 'hostile.jsonl');
    const row = (planId: string) =>
      JSON.stringify({
        type: 'plan/undo',
        callId: `plan:${planId}`,
        name: 'run_code',
        planId,
        agent: null,
        principal: null,
        applied: [{ seq: 2, name: 'email', arguments: { to: 'a@x' } }],
        toRevert: [],
        notUndone: [{ seq: 2, name: 'email', arguments: { to: 'a@x' }, reason: 'tools.email has no revert' }],
        at: 1,
      });
    await writeFile(journal, `${row('../../outside')}\n${row('plan-ok')}\n`);
    const rt = runtime({ journal });
    registerUndoShop(rt, () => {});
    expect((await rt.undos()).map((u) => u.planId)).toStrictEqual(['plan-ok']);
    await expect(rt.resumeUndo('../../outside')).rejects.toThrow(/not a valid run id/);
    expect(await rt.resumeUndo('plan-ok')).toStrictEqual({
      planId: 'plan-ok',
      applied: [{ seq: 2, name: 'email', arguments: { to: 'a@x' } }],
      undone: [],
      notUndone: [{ seq: 2, name: 'email', arguments: { to: 'a@x' }, reason: 'tools.email has no revert' }],
    });
    expect(await rt.undos()).toStrictEqual([]);
  }, 60_000);

  it('without a journal there is nothing to list or resume', async () => {
    const rt = runtime();
    registerUndoShop(rt, () => {});
    expect(await rt.undos()).toStrictEqual([]);
    await expect(rt.resumeUndo('x')).rejects.toMatchObject({ code: 'UNDO_UNKNOWN' });
  }, 60_000);
});
