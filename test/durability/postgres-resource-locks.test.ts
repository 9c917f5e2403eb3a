// Resource locks across hosts on PostgreSQL (a throwaway cluster, no mock): two host
// processes on one database each run 10 concurrent read-modify-write deposits on one
// account; with `resourceKey` the balance is exact (20), without it updates are lost
// (the control). Neither is left to timing: the hosts hold each deposit's read until
// another could have overlapped it (deposit-host.ts), so a lock that does not hold across
// hosts loses an update even when one host starts late. A lock wait ends with the call's abort.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPostgresJournal } from '../../src/index.ts';
import { startPostgres, type PostgresCluster } from '../support/postgres-cluster.ts';
import { spawnWatched } from '../support/watched-child.ts';

const HOST = fileURLToPath(new URL('./fixtures/deposit-host.ts', import.meta.url));
let cluster: PostgresCluster;
let dir = '';
beforeAll(async () => {
  cluster = await startPostgres();
  dir = await mkdtemp(join(tmpdir(), 'ptc-pg-locks-'));
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** A deposit host: `ready` once it is connected; `done()` its stdout once it ran its deposits and exited (each bounded: a failure names the step). */
function host(args: readonly string[]): { ready: Promise<void>; done: () => Promise<string> } {
  const child = spawnWatched(dir, ['--no-node-snapshot', HOST, ...args]);
  const ready = child.until('a deposit host to connect and say ready', () => child.stdout().includes('ready\n'));
  const done = (): Promise<string> =>
    child.within(
      'a deposit host to run its deposits and exit',
      child.finished.then(() => {
        if (child.child.exitCode !== 0) throw new Error(`host exited ${child.child.exitCode}: ${child.stderr()}`);
        return child.stdout();
      }),
    );
  return { ready, done };
}

async function depositRace(mode: 'keyed' | 'unkeyed'): Promise<{ balance: number; codes: string[] }> {
  const url = await cluster.createDatabase(`locks_${mode}`);
  const balance = join(dir, `${mode}.balance`);
  const go = join(dir, `${mode}.go`);
  await writeFile(balance, '0');
  const hosts = [host([url, balance, go, '10', mode]), host([url, balance, go, '10', mode])];
  await Promise.all(hosts.map((h) => h.ready));
  await writeFile(go, '');
  const outputs = await Promise.all(hosts.map((h) => h.done()));
  const codes = outputs.flatMap((o) => JSON.parse(o.split('\n').find((l) => l.startsWith('['))!) as string[]);
  return { balance: Number(await readFile(balance, 'utf8')), codes };
}

describe('resource locks across hosts (PostgreSQL)', () => {
  it('2 hosts × 10 concurrent deposits on one resourceKey give the exact balance', async () => {
    const { balance, codes } = await depositRace('keyed');
    expect(codes).toEqual(Array.from({ length: 20 }, () => 'ok'));
    expect(balance).toBe(20);
  }, 60_000);

  it('without resourceKey the same deposits lose updates (the control)', async () => {
    const { balance, codes } = await depositRace('unkeyed');
    expect(codes).toEqual(Array.from({ length: 20 }, () => 'ok'));
    expect(balance).toBeLessThan(20);
  }, 60_000);

  it('a wait for a key another host holds ends with the signal; the holder dying frees the key', async () => {
    const url = await cluster.createDatabase('locks_abort');
    const a = openPostgresJournal(url);
    const b = openPostgresJournal(url);
    const release = await a.lockResource('k', new AbortController().signal);
    const stop = new AbortController();
    const waiting = b.lockResource('k', stop.signal);
    setTimeout(() => stop.abort(new Error('gave up')), 100);
    await expect(waiting).rejects.toThrow('gave up');
    // Another key is free meanwhile.
    await (await b.lockResource('other', new AbortController().signal))();
    // The holder's session ends (as when its host dies): the key is free.
    const next = b.lockResource('k', new AbortController().signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [holder] = (await cluster.sql("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted")) as {
      pid: number;
    }[];
    await cluster.sql(`SELECT pg_terminate_backend(${holder!.pid})`);
    await (await next)();
    await release();
    await Promise.all([a.close(), b.close()]);
  });
});
