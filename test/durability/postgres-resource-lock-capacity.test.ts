// Resource locks on PostgreSQL at capacity (a throwaway cluster, no mock): keys nobody
// else holds share one session connection per process, so a process can hold any number
// of distinct keys at once (a connection per key capped it at the session pool: the 21st
// call failed after the connect timeout). Keys another process holds are still waited
// for, exclusively, on a dedicated connection; when those waits exhaust the session pool
// the error names the limit. The shared session goes back to the pool when it holds
// nothing (an idle process exits), and losing it is survived.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createToolRuntime, defineTool, openPostgresJournal } from '../../src/index.ts';
import { startPostgres, type PostgresCluster } from '../support/postgres-cluster.ts';
import { gate } from '../support/gate.ts';

const LOCKER = fileURLToPath(new URL('./fixtures/lock-and-release.ts', import.meta.url));
let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

const never = new AbortController().signal;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Connections of the database's sessions holding advisory locks, by backend pid. */
async function advisoryHolders(database: string): Promise<Map<number, number>> {
  const rows = (await cluster.sql(
    `SELECT l.pid, count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
     WHERE l.locktype = 'advisory' AND l.granted AND d.datname = '${database}' GROUP BY l.pid`,
  )) as { pid: number; n: number }[];
  return new Map(rows.map((r) => [r.pid, r.n]));
}

/** Whether `check` holds within 10 s (polled). */
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (const start = Date.now(); Date.now() - start < 10_000; await sleep(50)) if (await check()) return true;
  return false;
}

/** Resolves whether `promise` settled within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const settled = await Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  return settled;
}

describe('resource locks at capacity (PostgreSQL)', () => {
  it('100 concurrent calls, each on its own key, all hold their keys at once and all succeed', async () => {
    const CALLS = 100;
    // A call that cannot get a connection fails well inside the test's time (100 calls'
    // connections and appends can take seconds on a loaded machine: no shorter bound).
    const journal = openPostgresJournal(await cluster.createDatabase('capacity_keys'), { connectTimeoutMs: 10_000 });
    const rt = createToolRuntime({ sandbox: false, journal });
    let entered = 0;
    const everyoneIn = gate();
    const finished = gate();
    rt.register(
      defineTool({
        name: 'hold',
        description: 'Holds its key until every call holds its own.',
        parameters: { key: { type: 'string', required: true } },
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        isConcurrencySafe: () => true,
        resourceKey: (args: { key: string }) => args.key,
        execute: async ({ key }) => {
          entered += 1;
          if (entered === CALLS) everyoneIn.open();
          await finished.passed;
          return key;
        },
      }),
    );
    try {
      const calls = Array.from({ length: CALLS }, (_, i) =>
        rt.execute({ callId: `c${i}`, name: 'hold', arguments: { key: `key-${i}` } }),
      );
      // Every call entered its body while none had finished (one refused or failed ends the race).
      const early = Promise.race(calls);
      const first = await Promise.race([everyoneIn.passed.then(() => undefined), early]);
      expect(first === undefined ? undefined : (first.error?.message ?? 'finished early')).toBeUndefined();
      // All 100 keys are held at once by this process, on one session.
      const holders = await advisoryHolders('capacity_keys');
      expect([...holders.values()]).toEqual([CALLS]);
      finished.open();
      const results = await Promise.all(calls);
      expect(results.map((r) => r.error?.message ?? r.content[0])).toEqual(
        Array.from({ length: CALLS }, (_, i) => ({ type: 'text', text: `key-${i}` })),
      );
      // Nothing stays held (a lock is released as its body settles, beside the result).
      expect(await eventually(async () => (await advisoryHolders('capacity_keys')).size === 0)).toBe(true);
    } finally {
      finished.open();
      await rt.close();
      await journal.close();
    }
  }, 120_000);

  it('keys one process holds on its shared session exclude another process until released', async () => {
    const KEYS = 30; // more than the session pool (20): held on one session
    const url = await cluster.createDatabase('capacity_cross');
    const a = openPostgresJournal(url);
    const b = openPostgresJournal(url);
    try {
      const releases = await Promise.all(Array.from({ length: KEYS }, (_, i) => a.lockResource(`shared-${i}`, never)));
      // b waits for the first 5 (on connections of its own); none is granted while a holds them.
      let granted = 0;
      const waits = Array.from({ length: 5 }, (_, i) =>
        b.lockResource(`shared-${i}`, never).then((release) => {
          granted += 1;
          return release;
        }),
      );
      await sleep(500);
      expect(granted).toBe(0);
      // A key a does not hold is b's at once, even while it waits for others.
      await (await b.lockResource('free', never))();
      // Released one at a time: each wait is granted once its key is free, not before.
      for (let i = 0; i < 5; i += 1) {
        await releases[i]!();
        expect(await settlesWithin(waits[i]!, 10_000)).toBe(true);
        expect(granted).toBe(i + 1);
      }
      for (const release of await Promise.all(waits)) await release();
      for (const release of releases.slice(5)) await release();
      // Release is idempotent: a second call does nothing (and does not fail).
      await releases[0]!();
      expect((await advisoryHolders('capacity_cross')).size).toBe(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('two holders of one key in one process (one journal) never overlap', async () => {
    const journal = openPostgresJournal(await cluster.createDatabase('capacity_local'));
    try {
      const first = await journal.lockResource('same', never);
      const second = journal.lockResource('same', never);
      expect(await settlesWithin(second, 300)).toBe(false);
      await first();
      await (await second)();
    } finally {
      await journal.close();
    }
  }, 30_000);

  it('a wait for a key another process holds ends with its abort; the holder is unaffected', async () => {
    const url = await cluster.createDatabase('capacity_abort');
    const a = openPostgresJournal(url);
    const b = openPostgresJournal(url);
    try {
      const held = await Promise.all(Array.from({ length: 25 }, (_, i) => a.lockResource(`k${i}`, never)));
      const stop = new AbortController();
      const waiting = b.lockResource('k3', stop.signal);
      setTimeout(() => stop.abort(new Error('gave up')), 200);
      await expect(waiting).rejects.toThrow('gave up');
      // The cancelled wait took nothing: a still holds k3, b's retry waits again.
      const retry = new AbortController();
      const again = b.lockResource('k3', retry.signal);
      expect(await settlesWithin(again, 300)).toBe(false);
      retry.abort(new Error('again'));
      await expect(again).rejects.toThrow('again');
      for (const release of held) await release();
      await (await b.lockResource('k3', never))();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('waits on keys another process holds that exhaust the session pool fail naming sessionPoolSize', async () => {
    const url = await cluster.createDatabase('capacity_bound');
    const a = openPostgresJournal(url);
    // 3 s: the three that find no free session give up after it; the three that get one must
    // connect within it, which a loaded machine may not do in 1 s.
    const b = openPostgresJournal(url, { sessionPoolSize: 3, connectTimeoutMs: 3_000 });
    try {
      const held = await Promise.all(Array.from({ length: 6 }, (_, i) => a.lockResource(`busy-${i}`, never)));
      const waits = Array.from({ length: 6 }, (_, i) => b.lockResource(`busy-${i}`, never));
      // 3 session connections: the waits that got one wait for a; the others find none free.
      await Promise.race(
        waits.map((w) =>
          w.then(
            () => new Promise(() => {}),
            () => undefined,
          ),
        ),
      );
      // Connections are freed only by granted waits, which hold until released below.
      for (const release of held) await release();
      const outcomes = await Promise.allSettled(waits);
      const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [String((o.reason as Error).message)] : []));
      expect(failures).toHaveLength(3);
      for (const message of failures) {
        expect(message).toContain('sessionPoolSize (3)');
        expect(message).toContain('openPostgresJournal(url, { sessionPoolSize })');
      }
      const granted = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
      for (const release of granted) await release();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('a lost shared session frees its keys; the host survives, release is a no-op, a new session serves', async () => {
    const url = await cluster.createDatabase('capacity_lost');
    const warnings: string[] = [];
    const emitWarning = process.emitWarning;
    process.emitWarning = ((warning: string | Error) => {
      warnings.push(String(warning));
    }) as typeof process.emitWarning;
    const a = openPostgresJournal(url);
    const b = openPostgresJournal(url);
    try {
      const held = await Promise.all(Array.from({ length: 3 }, (_, i) => a.lockResource(`lost-${i}`, never)));
      const [pid] = [...(await advisoryHolders('capacity_lost')).keys()];
      await cluster.sql(`SELECT pg_terminate_backend(${pid!})`);
      // The keys went with the session: another process takes them.
      await (await b.lockResource('lost-1', never))();
      for (const release of held) await release();
      expect(warnings.filter((m) => m.includes('resource lock'))).toEqual([
        expect.stringMatching(/the session holding 3 resource locks was lost/u),
      ]);
      // The next lock opens a new session.
      const again = await a.lockResource('lost-1', never);
      expect([...(await advisoryHolders('capacity_lost')).values()]).toEqual([1]);
      await again();
    } finally {
      process.emitWarning = emitWarning;
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('a process that locked and released a key and left its journal open exits on its own', async () => {
    const url = await cluster.createDatabase('capacity_exit');
    const child = spawn(process.execPath, ['--no-node-snapshot', LOCKER, url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => void (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => void (err += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const settled = await settlesWithin(exited, 30_000);
    if (!settled) child.kill('SIGKILL');
    expect({ settled, out, err }).toEqual({ settled: true, out: 'released\n', err: '' });
    expect(await exited).toBe(0);
  }, 60_000);
});
