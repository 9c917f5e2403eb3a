// Fencing of resource locks on PostgreSQL (a throwaway cluster, no mock): two runtimes on
// one database, each with its own journal (its own sessions, as two hosts have). The
// backend holding a lock is terminated while its body runs: the body is told at once
// (its signal aborts, naming the lock), its result is not kept as a success, the other
// runtime's waiting call takes the lock with a larger fencing token and enters only once
// the first body has left, and a stale holder that ignores its signal has its write
// refused by a table that checks the token.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, createServer, type Socket } from 'node:net';
import pg from 'pg';
import {
  createToolRuntime,
  defineTool,
  FenceLostError,
  openPostgresJournal,
  type PostgresJournal,
  type ToolExecution,
  type ToolResult,
} from '../../src/index.ts';
import { startPostgres, type PostgresCluster } from '../support/postgres-cluster.ts';

let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

/** Polls `check` every 10 ms until it holds; fails naming `what` after 30 s. */
async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not so within 30 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Advisory locks of one database: granted ones with their backend pid, and how many wait. */
async function advisoryLocks(database: string): Promise<{ holders: number[]; waiting: number }> {
  const rows = (await cluster.sql(
    `SELECT l.pid, l.granted FROM pg_locks l JOIN pg_database d ON d.oid = l.database
     WHERE l.locktype = 'advisory' AND d.datname = '${database}'`,
  )) as { pid: number; granted: boolean }[];
  return { holders: rows.filter((r) => r.granted).map((r) => r.pid), waiting: rows.filter((r) => !r.granted).length };
}

/**
 * A TCP proxy to the cluster whose connections can each be silenced: from then on nothing
 * passes either way and the client is never told the server side closed — a server gone
 * without a word, as in a failover or a partition.
 */
async function silencingProxy(port: number): Promise<{
  port: number;
  silence(serverSidePort: number): void;
  close(): Promise<void>;
}> {
  const pairs = new Map<number, { silent: boolean }>(); // by the proxy's port towards the server
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    const pair = { silent: false };
    upstream.on('connect', () => pairs.set(upstream.localPort!, pair));
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
    }
    client.on('data', (data) => void (pair.silent || upstream.write(data)));
    upstream.on('data', (data) => void (pair.silent || client.write(data)));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => void (pair.silent || client.destroy()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    silence(serverSidePort) {
      const pair = pairs.get(serverSidePort);
      if (pair === undefined) throw new Error(`no proxied connection from port ${serverSidePort}`);
      pair.silent = true;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A runtime on its own journal of `url` with one tool: `execute` under `resourceKey` account:<id>. */
function host(
  url: string,
  name: string,
  execute: (args: { account: string }, exec: ToolExecution) => Promise<string>,
  journalOptions: Parameters<typeof openPostgresJournal>[1] = {},
): { journal: PostgresJournal; call: () => Promise<ToolResult>; close: () => Promise<void> } {
  const journal = openPostgresJournal(url, journalOptions);
  const rt = createToolRuntime({ sandbox: false, journal });
  rt.register(
    defineTool({
      name: 'critical',
      description: 'Works on an account under its lock.',
      parameters: { account: { type: 'string', required: true } },
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      resourceKey: (args) => `account:${args.account}`,
      execute,
    }),
  );
  let n = 0;
  return {
    journal,
    call: () => rt.execute({ callId: `${name}-${++n}`, name: 'critical', arguments: { account: '42' } }),
    close: async () => {
      await rt.close();
      await journal.close();
    },
  };
}

/** Resolves when `signal` aborts, or after `ms` (a bound: a test must not hang on a signal that never comes). */
function abortedOrAfter(signal: AbortSignal, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

describe('fencing of resource locks (PostgreSQL)', () => {
  it('a lost lock aborts its body at once, naming the lock; the next holder enters after it left, with a larger token', async () => {
    const url = await cluster.createDatabase('fence_enter_exit');
    const sections: string[] = [];
    const tokens: Record<string, number | undefined> = {};
    let reason: unknown;
    // A holds the lock until its signal aborts (bounded: without fencing it never does).
    const a = host(url, 'a', async (_args, exec) => {
      tokens.a = exec.fencingToken;
      sections.push('a enter');
      await abortedOrAfter(exec.signal, 20_000);
      reason = exec.signal.reason;
      sections.push('a exit');
      return 'a done';
    });
    const b = host(url, 'b', async (_args, exec) => {
      tokens.b = exec.fencingToken;
      sections.push('b enter');
      sections.push('b exit');
      return 'b done';
    });
    try {
      const first = a.call();
      await until('a entered', () => sections.includes('a enter'));
      const second = b.call();
      await until('b waits for the lock', async () => (await advisoryLocks('fence_enter_exit')).waiting === 1);
      const { holders } = await advisoryLocks('fence_enter_exit');
      expect(holders).toHaveLength(1);
      await cluster.sql(`SELECT pg_terminate_backend(${holders[0]!})`);
      const [resultA, resultB] = await Promise.all([first, second]);

      expect(sections).toEqual(['a enter', 'a exit', 'b enter', 'b exit']);
      expect(reason).toBeInstanceOf(FenceLostError);
      expect((reason as Error).message).toMatch(
        /^journal postgres:\/\/\S+: the lock on resource "account:42" \(fencing token \d+\) was lost: its connection failed \(terminating connection due to administrator command\)$/u,
      );
      expect(resultA.isError).toBe(true);
      expect(resultA.error?.code).toBe('ABORTED');
      expect(resultA.error?.message).toMatch(
        /the lock on resource "account:42" \(fencing token \d+\) was lost: .*; the call's result was not kept/u,
      );
      expect(resultA.error?.info).toEqual({ fenceLost: 'the lock on resource "account:42"', fencingToken: tokens.a });
      expect(resultB.value).toBe('b done');
      expect(typeof tokens.a).toBe('number');
      expect(tokens.b).toBeGreaterThan(tokens.a!);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('a stale holder that ignores its signal has its write refused by a table that checks the fencing token', async () => {
    const url = await cluster.createDatabase('fence_table');
    const db = new pg.Pool({ connectionString: url, max: 4 });
    await db.query('CREATE TABLE accounts (id text PRIMARY KEY, balance integer NOT NULL, fence bigint NOT NULL)');
    await db.query("INSERT INTO accounts VALUES ('42', 0, 0)");
    /** The pattern of the docs: the write goes through only with a token at least as large as any seen. */
    const deposit = async (account: string, token: number | undefined, amount: number): Promise<string> => {
      const { rows } = await db.query<{ balance: number }>('SELECT balance FROM accounts WHERE id = $1', [account]);
      await staleMayWrite;
      const written = await db.query('UPDATE accounts SET balance = $2, fence = $3 WHERE id = $1 AND fence <= $3', [
        account,
        rows[0]!.balance + amount,
        token ?? null,
      ]);
      if (written.rowCount !== 1) throw new Error(`refused: fencing token ${token} is stale`);
      return `deposited ${amount}`;
    };
    let staleMayWrite: Promise<void> = Promise.resolve();
    let letStaleWrite!: () => void;
    const outcomes: string[] = [];
    const tokens: number[] = [];
    const a = host(url, 'a', async (args, exec) => {
      tokens.push(exec.fencingToken!);
      staleMayWrite = new Promise((resolve) => (letStaleWrite = resolve));
      outcomes.push('a read');
      // Ignores exec.signal: its write is what the token must stop.
      return deposit(args.account, exec.fencingToken, 100).catch((error: Error) => {
        outcomes.push(`a ${error.message}`);
        throw error;
      });
    });
    const b = host(url, 'b', async (args, exec) => {
      tokens.push(exec.fencingToken!);
      const written = await db.query(
        'UPDATE accounts SET balance = balance + 7, fence = $1 WHERE id = $2 AND fence <= $1',
        [exec.fencingToken ?? null, args.account],
      );
      outcomes.push(`b wrote ${written.rowCount}`);
      return 'deposited 7';
    });
    try {
      const first = a.call();
      await until('a read the balance', () => outcomes.includes('a read'));
      const second = b.call();
      await until('b waits for the lock', async () => (await advisoryLocks('fence_table')).waiting === 1);
      await cluster.sql(`SELECT pg_terminate_backend(${(await advisoryLocks('fence_table')).holders[0]!})`);
      const resultB = await second;
      expect(resultB.isError).toBe(false);
      letStaleWrite();
      const resultA = await first;

      expect(tokens).toHaveLength(2);
      expect(tokens[1]).toBeGreaterThan(tokens[0]!);
      expect(outcomes).toEqual(['a read', 'b wrote 1', `a refused: fencing token ${tokens[0]} is stale`]);
      const { rows } = await db.query("SELECT balance, fence FROM accounts WHERE id = '42'");
      expect(rows).toEqual([{ balance: 7, fence: String(tokens[1]) }]);
      // Not a success either: the lock did not hold.
      expect(resultA.error?.code).toBe('ABORTED');
      expect(resultA.error?.message).toMatch(/the lock on resource "account:42" .* was lost/u);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await db.end();
    }
  }, 60_000);

  it('a journal of schema version 3 gets the fencing sequence on first use (version 4)', async () => {
    const url = await cluster.createDatabase('fence_from_v3');
    const old = openPostgresJournal(url);
    await old.ready();
    await old.close();
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      // As a version-3 ptc-runtime left it: no sequence.
      await db.query("DROP SEQUENCE ptc_fencing_token; UPDATE ptc_meta SET value = '3'");
      const journal = openPostgresJournal(url);
      const held = await journal.lockResource('k', new AbortController().signal);
      expect(held.fence?.token).toBe(1);
      await held();
      await journal.close();
      expect((await db.query('SELECT value FROM ptc_meta')).rows).toEqual([{ value: '4' }]);
    } finally {
      await db.end();
    }
  });

  it('a session lost without a word is found by its keep-alive query: the body is told within keepAliveMs + keepAliveTimeoutMs', async () => {
    await cluster.createDatabase('fence_silent');
    const proxy = await silencingProxy(cluster.port);
    let reason: unknown;
    let entered = false;
    const a = host(
      `postgres://postgres@127.0.0.1:${proxy.port}/fence_silent`,
      'a',
      async (_args, exec) => {
        entered = true;
        await abortedOrAfter(exec.signal, 20_000); // without a keep-alive, nothing tells it
        reason = exec.signal.reason;
        return 'a done';
      },
      { keepAliveMs: 200, keepAliveTimeoutMs: 1_000 },
    );
    try {
      const call = a.call();
      await until('a entered under its lock', () => entered);
      const [holder] = (await advisoryLocks('fence_silent')).holders;
      const [{ client_port: port }] = (await cluster.sql(
        `SELECT client_port FROM pg_stat_activity WHERE pid = ${holder}`,
      )) as [{ client_port: number }];
      // The server ends the session (its lock is free for others); the client hears nothing.
      proxy.silence(port);
      await cluster.sql(`SELECT pg_terminate_backend(${holder})`);
      const result = await call;
      expect(reason).toBeInstanceOf(FenceLostError);
      expect((reason as Error).message).toMatch(
        /the lock on resource "account:42" \(fencing token \d+\) was lost: its keep-alive query was not answered within 1000 ms$/u,
      );
      expect(result.error?.code).toBe('ABORTED');
    } finally {
      await a.close();
      await proxy.close();
    }
  }, 60_000);
});
