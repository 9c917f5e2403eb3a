// The shared claims session of the PostgreSQL store under attack (a throwaway cluster, no
// mock): every durable-run claim of a process is an advisory lock on one session, so
// losing that session loses all of them at once, and closing the store ends them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openPostgresJournal } from '../../src/index.ts';
import { newClaim } from '../../src/journal/run-claims.ts';
import { startPostgres, type PostgresCluster } from '../support/postgres-cluster.ts';

const LANES = fileURLToPath(new URL('./fixtures/claim-lanes.ts', import.meta.url));
let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

/** Backend pids of the database's sessions holding advisory locks. */
async function advisoryHolders(database: string): Promise<number[]> {
  const rows = (await cluster.sql(
    `SELECT DISTINCT l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.database
     WHERE l.locktype = 'advisory' AND l.granted AND d.datname = '${database}'`,
  )) as { pid: number }[];
  return rows.map((r) => r.pid);
}

describe('run claims on one shared PostgreSQL session', () => {
  it('a lost claims session: the process is warned which runs it lost, another process takes them, a late release ends nothing of theirs', async () => {
    const url = await cluster.createDatabase('claims_lost');
    const warnings: string[] = [];
    const emitWarning = process.emitWarning;
    process.emitWarning = ((warning: string | Error) => {
      warnings.push(String(warning));
    }) as typeof process.emitWarning;
    const a = openPostgresJournal(url);
    const b = openPostgresJournal(url);
    try {
      for (const run of ['lost-1', 'lost-2', 'lost-3'])
        expect(await a.claims.claimRun(newClaim(run, `a-${run}`))).toBeUndefined();
      const holders = await advisoryHolders('claims_lost');
      expect(holders).toHaveLength(1); // one session holds all three
      await cluster.sql(`SELECT pg_terminate_backend(${holders[0]!})`);
      // Another process takes a lost run (its claim may wait for the server to end the session).
      let taken = await b.claims.claimRun(newClaim('lost-1', 'b-lost-1'));
      for (let i = 0; taken !== undefined && i < 400; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        taken = await b.claims.claimRun(newClaim('lost-1', 'b-lost-1'));
      }
      expect(taken).toBeUndefined();
      // The first journal hears of its lost session on its own connection: not necessarily before b's claim.
      for (let i = 0; !warnings.some((m) => m.includes('claim')) && i < 400; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(warnings.filter((m) => m.includes('claim'))).toEqual([
        expect.stringMatching(/the session holding the claims of 3 durable runs \(lost-1, lost-2, lost-3\) was lost/u),
      ]);
      // The first process sees the run as another's; its late release leaves that claim alone.
      expect((await a.claims.runClaim('lost-1'))?.owner).toBe('b-lost-1');
      expect((await a.claims.claimRun(newClaim('lost-1', 'a-again')))?.owner).toBe('b-lost-1');
      await a.claims.releaseRun('lost-1', 'a-lost-1');
      expect((await b.claims.runClaim('lost-1'))?.owner).toBe('b-lost-1');
      // A run nobody took is claimed again on a new session.
      expect(await a.claims.claimRun(newClaim('lost-2', 'a-lost-2-again'))).toBeUndefined();
    } finally {
      process.emitWarning = emitWarning;
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('close() while claims are in flight: every claim settles, and another process can take every run', async () => {
    const url = await cluster.createDatabase('claims_close');
    const a = openPostgresJournal(url);
    const runs = Array.from({ length: 20 }, (_, i) => `closing-${i}`);
    await a.claims.claimRun(newClaim('warm-up', 'a')); // connected and migrated
    const inFlight = runs.map((run) => a.claims.claimRun(newClaim(run, `a-${run}`)));
    await a.close();
    const settled = await Promise.allSettled(inFlight);
    expect(settled).toHaveLength(runs.length);
    const b = openPostgresJournal(url);
    try {
      for (const run of [...runs, 'warm-up'])
        expect(await b.claims.claimRun(newClaim(run, `b-${run}`))).toBeUndefined();
    } finally {
      await b.close();
    }
  }, 60_000);

  it('claims, releases and resource locks of many runs and keys at once on the shared sessions finish before the process may exit, without a warning', async () => {
    const url = await cluster.createDatabase('claims_lanes');
    // Without jest's NODE_OPTIONS, whose --no-warnings would hide the child's warnings.
    const child = spawn(process.execPath, ['--no-node-snapshot', LANES, url, '3', '40'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => void (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => void (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    // Exit code 13 and no "done": the loop emptied while a release was still running. No
    // warning either (node-postgres deprecates a query given while another runs on a client).
    expect({ code, out, err }).toEqual({
      code: 0,
      out: 'done\n',
      err: '',
    });
  }, 60_000);

  it('a claim that fails at the database says which store and which run, and why', async () => {
    const url = await cluster.createDatabase('claims_refused');
    const a = openPostgresJournal(url);
    try {
      await a.claims.runClaim('warm-up'); // connected and migrated; no claims session yet
      // No new connection, and the open ones ended (the pool keeps idle ones).
      await cluster.sql(`ALTER DATABASE claims_refused ALLOW_CONNECTIONS false`);
      await cluster.sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'claims_refused'`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const failed = await a.claims.claimRun(newClaim('refused-run', 'a')).then(
        () => 'claimed',
        (error: unknown) => (error as Error).message,
      );
      expect(failed).toMatch(
        /^journal postgres:\/\/\S+: claiming durable run refused-run failed \(.+\); it was not claimed, try again$/u,
      );
    } finally {
      await cluster.sql(`ALTER DATABASE claims_refused ALLOW_CONNECTIONS true`);
      await a.close();
    }
  }, 60_000);
});
