// PostgreSQL schema version 2, for operators: run id, call id, type, agent and time as
// columns, the event as jsonb, indexes for runs and run events. A journal written by
// schema version 1 (a pg_dump made with that version: a paused run of agent alice and a
// completed one) is migrated in place: its paused run is listed and resumed with the
// re-run answered from the journal exactly as written; the new columns are filled for old
// and new rows; text jsonb refuses (NUL, lone surrogates) still appends and reads back
// exactly. The three psql queries of the PostgreSQL guide run against it with psql.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openPostgresJournal, type PausedRun, type ToolResult } from '../../src/index.ts';
import { gatedRuntime, readBodyLog, runCall } from '../durable-runs/fixtures/gated-tools.ts';
import { blocksOf } from '../readme/doc-blocks.ts';
import { postgresBin, startPostgres, type PostgresCluster } from '../support/postgres-cluster.ts';

const V1_DUMP = fileURLToPath(new URL('./fixtures/postgres-journal-v1.sql', import.meta.url));
let cluster: PostgresCluster;
let dir = '';

beforeAll(async () => {
  cluster = await startPostgres();
  dir = mkdtempSync(join(tmpdir(), 'ptc-pg-operator-'));
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

const psql = (url: string, args: string[]): string =>
  execFileSync(join(postgresBin(), 'psql'), ['-X', '-v', 'ON_ERROR_STOP=1', '-q', ...args, url], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

async function rows<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return (await db.query(sql, params)).rows as T[];
  } finally {
    await db.end();
  }
}

const pausedOf = (result: ToolResult): PausedRun => {
  const paused = (result.value as { paused?: PausedRun } | undefined)?.paused;
  if (paused === undefined) throw new Error(`not paused: ${JSON.stringify(result)}`);
  return paused;
};

it('migrates a version-1 journal in place, fills the operator columns, and the guide’s psql queries answer', async () => {
  const url = await cluster.createDatabase('from_v1');
  psql(url, ['-f', V1_DUMP]);
  expect(await rows(url, 'SELECT value FROM ptc_meta')).toStrictEqual([{ value: '1' }]);

  const log = join(dir, 'bodies.log');
  const rt = gatedRuntime(url, log);
  rt.createAgent('alice');
  try {
    const [old] = await rt.runs();
    expect(old).toMatchObject({ status: 'paused', agent: 'alice', callId: 'v1-run' });
    expect(await rows(url, 'SELECT value FROM ptc_meta')).toStrictEqual([{ value: '4' }]);
    const columns = await rows<{ column_name: string; data_type: string }>(
      url,
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'ptc_journal' ORDER BY column_name",
    );
    expect(Object.fromEntries(columns.map((c) => [c.column_name, c.data_type]))).toMatchObject({
      run_id: 'text',
      call_id: 'text',
      type: 'text',
      agent: 'text',
      time: 'timestamp with time zone',
      event: 'jsonb',
      event_text: 'text',
    });
    // Old rows: every event as jsonb, the time from `at`, the run id on the run's events and its program's calls.
    const oldRows = await rows<{ call_id: string; type: string; run_id: string | null; same: boolean; ms: string }>(
      url,
      "SELECT call_id, type, run_id, event = event_text::jsonb AS same, (extract(epoch FROM time) * 1000)::bigint - at AS ms FROM ptc_journal WHERE call_id LIKE 'v1-run%' ORDER BY seq",
    );
    expect(oldRows.every((r) => r.same && Number(r.ms) === 0)).toBe(true);
    expect(
      oldRows.filter((r) => r.call_id !== 'v1-run' || r.type.startsWith('run/')).map((r) => r.run_id),
    ).toStrictEqual(oldRows.filter((r) => r.call_id !== 'v1-run' || r.type.startsWith('run/')).map(() => old!.runId));

    // The migrated run resumes: the two reads are answered from the journal (the second's
    // arguments as written, key order and all), the writes run, one denied.
    const fresh = pausedOf(await rt.execute(runCall('fresh', 'return (await tools.write({ v: 99 })).wrote;')));
    const [w1, w2] = old!.pending.map((p) => p.callId);
    const done = await rt.resume(old!.runId, { [w1!]: 'approve', [w2!]: 'deny' });
    expect(done).toMatchObject({ isError: false, value: { result: [30, 'DENIED'] } });
    expect(readBodyLog(log).map((r) => `${r.name}:${JSON.stringify(r.args)}`)).toStrictEqual(['write:{"v":30}']);
    const newRows = await rows<{ call_id: string; run_id: string | null }>(
      url,
      "SELECT DISTINCT call_id, run_id FROM ptc_journal WHERE call_id IN ('v1-run:ptc:3', 'fresh:ptc:1') ORDER BY call_id",
    );
    expect(newRows).toStrictEqual([
      { call_id: 'fresh:ptc:1', run_id: fresh.runId },
      { call_id: 'v1-run:ptc:3', run_id: old!.runId },
    ]);

    // The guide's three queries, run by psql as written.
    const queries = blocksOf('docs/postgres.md')
      .filter((b) => b.info === 'sql')
      .map((b) => b.code);
    expect(queries).toHaveLength(3);
    const answer = (sql: string, vars: string[] = []): string[] =>
      psql(url, ['-A', '-t', '-F', '|', ...vars, '-c', sql.replace(/:'run'/gu, `'${old!.runId}'`)])
        .trim()
        .split('\n')
        .filter(Boolean);
    const [paused, ofRun, failed] = queries as [string, string, string];
    const pausedNow = answer(paused);
    expect(pausedNow.map((line) => line.split('|')[0])).toStrictEqual([fresh.runId]);
    expect(pausedNow[0]).toContain('["write"]');
    // psql substitutes :'run' itself when the query is read from a file.
    const file = join(dir, 'of-run.sql');
    execFileSync('bash', ['-c', `cat > ${JSON.stringify(file)}`], { input: ofRun });
    const lines = psql(url, ['-A', '-t', '-F', '|', '-v', `run=${old!.runId}`, '-f', file])
      .trim()
      .split('\n');
    expect(lines.map((l) => l.split('|').slice(1, 4).join(' '))).toEqual(
      expect.arrayContaining([
        'run/start v1-run run_code',
        'tool/call v1-run:ptc:1 read',
        'tool/result v1-run:ptc:2 read',
        'run/resumed v1-run run_code',
        'tool/result v1-run:ptc:4 write',
        'run/end v1-run run_code',
      ]),
    );
    const failures = answer(failed);
    expect(failures.map((l) => l.split('|').slice(2, 6).join(' '))).toStrictEqual([
      `${old!.runId} v1-run:ptc:4 write DENIED`,
    ]);
  } finally {
    await rt.close();
  }
}, 180_000);

it('text jsonb refuses still appends and reads back exactly; the jsonb copy has U+FFFD', async () => {
  const url = await cluster.createDatabase('hostile_text');
  const journal = openPostgresJournal(url);
  try {
    const args = { s: 'a\u0000b\ud800c\udc00', 'k\u0000': 1, pair: '😀' };
    await journal.append([{ type: 'tool/call', callId: 'nul', name: 'x', agent: null, arguments: args }]);
    const { events } = await journal.read();
    expect(events).toStrictEqual([{ type: 'tool/call', callId: 'nul', name: 'x', agent: null, arguments: args }]);
    expect(JSON.stringify((events[0] as { arguments: unknown }).arguments)).toBe(JSON.stringify(args));
    expect(await rows(url, "SELECT event->'arguments' AS a FROM ptc_journal")).toStrictEqual([
      { a: { s: 'a\ufffdb\ufffdc\ufffd', 'k\ufffd': 1, pair: '😀' } },
    ]);
  } finally {
    await journal.close();
  }
});

it('a version-1 journal with rows jsonb refuses (not JSON, a NUL) migrates row by row and reads as before', async () => {
  const url = await cluster.createDatabase('odd_v1');
  psql(url, ['-f', V1_DUMP]);
  const nul = { type: 'tool/call', callId: 'nul', name: 'x', agent: null, arguments: { s: 'a\u0000b' } };
  await rows(
    url,
    "INSERT INTO ptc_journal (at, type, call_id, root_call_id, agent, event) VALUES (1, 'tool/call', 'odd', 'odd', NULL, 'not json'), (2, 'tool/call', 'nul', 'nul', NULL, $1)",
    [JSON.stringify(nul)],
  );
  const warnings: string[] = [];
  const journal = openPostgresJournal(url, { onWarning: (w) => warnings.push(w.message) });
  try {
    const { events } = await journal.read();
    expect(events.at(-1)).toStrictEqual(nul);
    expect(events).toHaveLength(19);
    expect(warnings).toStrictEqual([expect.stringMatching(/row 19 is not a journal event; skipped/)]);
    expect(
      await rows(url, "SELECT call_id, event, run_id FROM ptc_journal WHERE call_id IN ('odd', 'nul') ORDER BY seq"),
    ).toStrictEqual([
      { call_id: 'odd', event: 'not json', run_id: null },
      { call_id: 'nul', event: { ...nul, arguments: { s: 'a\ufffdb' } }, run_id: null },
    ]);
    const runIds = await rows<{ n: number }>(url, 'SELECT count(DISTINCT run_id)::int AS n FROM ptc_journal');
    expect(runIds).toStrictEqual([{ n: 2 }]);
  } finally {
    await journal.close();
  }
});

it('the fixture is a version-1 dump', () => {
  const dump = readFileSync(V1_DUMP, 'utf8');
  expect(dump).toMatch(
    /COPY public\.ptc_journal \(seq, at, type, call_id, root_call_id, parent_call_id, agent, event\)/,
  );
  expect(dump).toMatch(/schema_version\t1/);
});
