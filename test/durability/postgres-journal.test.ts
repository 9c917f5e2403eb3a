// The PostgreSQL store's own surface, on a throwaway cluster (no mock): the URL form of
// the `journal` option, queries by root call, agent and time, group commit (the calls
// of one tick in one INSERT), a safe first use by several hosts at once (one schema
// version), and bad configuration failing at start: `ptc serve --journal` with an
// unreachable database, wrong credentials or a missing folder exits 2 with one line.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { main } from '../../src/cli/main.ts';
import { createToolRuntime, openPostgresJournal, type PostgresPool } from '../../src/index.ts';
import type { JournalEvent } from '../../src/journal/journal.ts';
import { journalStoreKind } from '../../src/journal/resolve-journal.ts';
import { startPostgres, type PostgresCluster } from '../support/postgres-cluster.ts';
import { expectTwoAgentQueries, journalTwoAgents } from './fixtures/journal-queries.ts';
import { registerPaymentTools } from './fixtures/payment-tools.ts';
import { gatedRuntime, readBodyLog, runCall } from '../durable-runs/fixtures/gated-tools.ts';
import type { PausedRun } from '../../src/index.ts';
import { fileURLToPath } from 'node:url';

let cluster: PostgresCluster;
let dir = '';
beforeAll(async () => {
  cluster = await startPostgres({ passwordRole: true });
  dir = await mkdtemp(join(tmpdir(), 'ptc-pg-journal-'));
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});
let counter = 0;
const freshDb = (): Promise<string> => cluster.createDatabase(`pgj${(counter += 1)}`);

const pair = (callId: string, value: number): JournalEvent[] => [
  { type: 'tool/call', callId, name: 'w', agent: null, arguments: { n: value } },
  {
    type: 'tool/result',
    callId,
    name: 'w',
    result: { callId, name: 'w', isError: false, value, content: [{ type: 'text', text: `v${value}` }] },
  },
];

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe('the journal option picks the store by its form', () => {
  it('postgres:// and postgresql:// URLs are PostgreSQL, .db/.sqlite/.sqlite3 SQLite, other paths JSONL', () => {
    expect(journalStoreKind('postgres://u@h/db')).toBe('postgres');
    expect(journalStoreKind('POSTGRESQL://u@h/db')).toBe('postgres');
    expect(journalStoreKind('/var/ptc/j.db')).toBe('sqlite');
    expect(journalStoreKind('j.sqlite3')).toBe('sqlite');
    expect(journalStoreKind('j.jsonl')).toBe('jsonl');
    expect(journalStoreKind('postgres.jsonl')).toBe('jsonl');
  });
});

describe('openPostgresJournal', () => {
  it('journal: "postgres://…" in createToolRuntime journals every call; rt.close() ends its pool', async () => {
    const url = await freshDb();
    const rt = createToolRuntime({ sandbox: false, journal: url });
    registerPaymentTools(rt);
    const turn = await rt.executeTurn([
      { callId: 'a', name: 'lookup', arguments: { who: 'ann' } },
      { callId: 'b', name: 'pay_invoice', arguments: { to: 'ann', amount: 3 } },
    ]);
    expect(turn.results.map((r) => r.isError)).toEqual([false, false]);
    await rt.close();
    const journal = openPostgresJournal(url);
    const ids = (await journal.read()).events.map((e) => `${e.type === 'tool/call' ? 'call' : 'result'}:${e.callId}`);
    expect(ids).toEqual([
      'call:a',
      'call:b',
      'result:a',
      'call:b:call:1',
      'result:b:call:1',
      'call:b:call:2',
      'result:b:call:2',
      'result:b',
    ]);
    await journal.close();
  });

  it('is queryable by root call, agent and time, nested calls and results included', async () => {
    let clock = 1_000;
    const journal = openPostgresJournal(await freshDb(), { now: () => (clock += 10) });
    const { middle } = await journalTwoAgents(journal, () => clock);
    await expectTwoAgentQueries(journal, middle);
    await expect(journal.query({ limit: 0 })).rejects.toThrow('journal query: limit must be an integer >= 1, got 0');
    await journal.close();
    await expect(journal.append(pair('late', 1))).rejects.toThrow(/closed/);
  });

  it('a result whose call another host wrote takes its root and agent from the call row', async () => {
    const url = await freshDb();
    const a = openPostgresJournal(url);
    const b = openPostgresJournal(url);
    await a.append([{ type: 'tool/call', callId: 'x:1', name: 'w', agent: 'ann', arguments: {}, rootCallId: 'x' }]);
    await b.append([pair('x:1', 1)[1]!]);
    expect((await b.query({ agent: 'ann' })).map((e) => e.event.type)).toEqual(['tool/call', 'tool/result']);
    expect(await b.query({ rootCallId: 'x' })).toHaveLength(2);
    await Promise.all([a.close(), b.close()]);
  });

  it('group commit: the appends of one tick are one INSERT, in call order', async () => {
    const url = await freshDb();
    const real = new pg.Pool({ connectionString: url, max: 4 });
    const statements: string[] = [];
    const pool: PostgresPool = {
      query: (text, values) => {
        statements.push(text.trim().split(/\s+/u)[0]!);
        return real.query(text, values);
      },
      connect: () => real.connect(),
      end: () => real.end(),
    };
    const journal = openPostgresJournal({ pool });
    await journal.ready();
    statements.length = 0;
    await Promise.all(Array.from({ length: 50 }, (_, i) => journal.append(pair(`c${i}`, i))));
    expect(statements).toEqual(['INSERT']);
    // While one batch is in flight, the next ones gather: 200 appends over a few ticks.
    statements.length = 0;
    const spread = [];
    for (let i = 0; i < 200; i += 1) {
      spread.push(journal.append(pair(`d${i}`, i)));
      if (i % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(spread);
    expect(statements.length).toBeLessThanOrEqual(11);
    const { events } = await journal.read();
    expect(events.map((e) => e.callId)).toEqual([
      ...Array.from({ length: 50 }, (_, i) => [`c${i}`, `c${i}`]).flat(),
      ...Array.from({ length: 200 }, (_, i) => [`d${i}`, `d${i}`]).flat(),
    ]);
    await journal.close();
    await real.end();
  });

  it('first use by several hosts at once creates the tables once, with schema version 4', async () => {
    const url = await freshDb();
    const hosts = Array.from({ length: 6 }, () => openPostgresJournal(url));
    await Promise.all(hosts.map((h, i) => h.append(pair(`h${i}`, i))));
    const [first] = hosts;
    expect((await first!.read()).events).toHaveLength(12);
    await Promise.all(hosts.map((h) => h.close()));
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const { rows } = await db.query('SELECT key, value FROM ptc_meta');
    await db.end();
    expect(rows).toEqual([{ key: 'schema_version', value: '4' }]);
  });

  it('refuses a schema newer than it knows', async () => {
    const url = await freshDb();
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    await db.query(
      "CREATE TABLE ptc_meta (key text PRIMARY KEY, value text NOT NULL); INSERT INTO ptc_meta VALUES ('schema_version', '9')",
    );
    await db.end();
    const journal = openPostgresJournal(url);
    await expect(journal.ready()).rejects.toThrow(/schema version 9, newer than this ptc-runtime supports \(4\)/);
    await journal.close();
  });
});

describe('durable runs on PostgreSQL through the CLI', () => {
  it('a run paused by one runtime is listed and approved by `ptc runs … --journal postgres://…`', async () => {
    const url = await freshDb();
    const log = join(dir, 'bodies.log');
    process.env.PTC_TEST_BODY_LOG = log;
    const rt = gatedRuntime(url, log, { sandbox: { isolation: 'in-process', poolSize: 1 } });
    const first = await rt.execute(runCall('call-pg', 'const r = await tools.write({ v: 7 }); return r.wrote;'));
    await rt.close();
    const { runId } = (first.value as unknown as { paused: PausedRun }).paused;
    const flags = [
      '--journal',
      url,
      '--tools',
      fileURLToPath(new URL('../durable-runs/fixtures/gated-tools-module.ts', import.meta.url)),
    ];
    const list = await cli('runs', 'list', ...flags);
    expect(list.out).toMatch(new RegExp(`^${runId}  paused .* call-pg  1 pending `));
    const approved = await cli('runs', 'approve', runId, ...flags, '--json');
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.out).value.result).toBe(7);
    expect(readBodyLog(log).map((b) => b.name)).toEqual(['write']);
    expect((await cli('runs', 'list', ...flags)).out).toBe('no paused or interrupted runs\n');
  }, 60_000);
});

describe('bad configuration fails at start: ptc serve exits 2 with one line', () => {
  it('an unreachable database', async () => {
    const { code, err } = await cli('serve', '--journal', 'postgres://postgres@127.0.0.1:1/nothing');
    expect(code).toBe(2);
    expect(err).toBe(
      'ptc: --journal: journal postgres://postgres@127.0.0.1:1/nothing: cannot connect to PostgreSQL (connection refused at 127.0.0.1:1); is the server running?\n',
    );
  });

  it('wrong credentials (the password is not printed)', async () => {
    const { code, err } = await cli('serve', '--journal', cluster.urlOf('postgres', 'ptc_password', 'wrong'));
    expect(code).toBe(2);
    expect(err).toBe(
      `ptc: --journal: journal postgres://ptc_password:***@127.0.0.1:${cluster.port}/postgres: PostgreSQL refused the credentials: password authentication failed for user "ptc_password"\n`,
    );
  });

  it('a JSONL or SQLite journal in a folder that does not exist', async () => {
    for (const file of ['calls.jsonl', 'calls.db']) {
      const path = join(dir, 'missing', file);
      const { code, err } = await cli('serve', '--journal', path);
      expect(code).toBe(2);
      expect(err).toBe(`ptc: --journal ${path}: the folder ${join(dir, 'missing')} does not exist\n`);
    }
  });
});
