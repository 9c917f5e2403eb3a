// Two real `ptc serve --http --journal postgres://… --approval pause` processes on one
// throwaway PostgreSQL cluster: a program run through server A pauses on its gated write;
// the operator lists it with `ptc_runs` and approves it with `ptc_resume` through server
// B (the official MCP client with the operator's own token); the run finishes there,
// the read before the pause is answered from the journal and the write body runs once.
import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { main } from '../../src/cli/main.ts';
import type { DurableRunSummary, PausedRun } from '../../src/index.ts';
import { readBodyLog } from '../durable-runs/fixtures/gated-tools.ts';
import { startPostgres, type PostgresCluster } from '../support/postgres-cluster.ts';
import { spawnServe } from '../mcp/helpers.ts';

const TOOLS = fileURLToPath(new URL('../durable-runs/fixtures/gated-tools-module.ts', import.meta.url));
const TOKEN = 'serve-approval-pause-token-0123456789';
const OPERATOR_TOKEN = 'serve-approval-pause-operator-0123456789';
let cluster: PostgresCluster;
let dir = '';
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  cluster = await startPostgres();
  dir = mkdtempSync(join(tmpdir(), 'ptc-serve-pause-'));
}, 120_000);
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await cluster?.stop();
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

/** `ptc serve --http 127.0.0.1:0 --mode ptc --approval pause --journal <journal> --tools <gated tools>`. */
async function serve(journal: string, log: string): Promise<string> {
  const args = ['--mode', 'ptc', '--approval', 'pause', '--journal', journal, '--tools', TOOLS];
  const env = { PTC_SERVE_TOKEN: TOKEN, PTC_OPERATOR_TOKEN: OPERATOR_TOKEN, PTC_TEST_BODY_LOG: log };
  return (await spawnServe(cleanups, args, env)).url;
}

async function client(url: string, token = TOKEN): Promise<Client> {
  const c = new Client({ name: 'serve-approval-pause', version: '1' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  cleanups.push(() => c.close());
  return c;
}

it('a run paused through server A is approved with ptc_resume and finished through server B', async () => {
  const journal = await cluster.createDatabase('serve_pause');
  const log = join(dir, 'bodies.log');
  const [urlA, urlB] = await Promise.all([serve(journal, log), serve(journal, log)]);
  // a: the model's client on server A; b: the operator's on server B.
  const [a, b] = await Promise.all([client(urlA), client(urlB, OPERATOR_TOKEN)]);
  expect((await a.listTools()).tools.map((t) => t.name)).toStrictEqual(['run_code']);
  expect((await b.listTools()).tools.map((t) => t.name).sort()).toStrictEqual([
    'ptc_decide_plan',
    'ptc_plans',
    'ptc_resume',
    'ptc_runs',
  ]);

  const first = (await a.callTool({
    name: 'run_code',
    arguments: {
      description: 'read, then a gated write',
      code: 'const base = await tools.read({ n: 1 }); const w = await tools.write({ v: base + 1 }); return w.wrote;',
    },
  })) as CallToolResult;
  expect(first.isError).not.toBe(true);
  const paused = (first.structuredContent as { paused: PausedRun }).paused;
  expect(paused.pending.map((p) => [p.name, p.arguments])).toStrictEqual([['write', { v: 11 }]]);

  const listed = (await b.callTool({ name: 'ptc_runs', arguments: { status: 'paused' } })) as CallToolResult;
  expect(listed.isError).not.toBe(true);
  const runs = (listed.structuredContent as { runs: DurableRunSummary[] }).runs;
  expect(runs.map((r) => [r.runId, r.status, r.pending.map((p) => p.callId)])).toStrictEqual([
    [paused.runId, 'paused', [paused.pending[0]!.callId]],
  ]);

  const decisions = { [paused.pending[0]!.callId]: 'approve' };
  const final = (await b.callTool({
    name: 'ptc_resume',
    arguments: { runId: paused.runId, decisions },
  })) as CallToolResult;
  expect(final.isError).not.toBe(true);
  expect(final.structuredContent).toMatchObject({ result: 11 });
  expect(readBodyLog(log).map((r) => `${r.name}:${JSON.stringify(r.args)}`)).toStrictEqual([
    'read:{"n":1}',
    'write:{"v":11}',
  ]);

  // Errors come back as isError results with their code in _meta: the run is over; an unknown run.
  const again = (await b.callTool({
    name: 'ptc_resume',
    arguments: { runId: paused.runId, decisions },
  })) as CallToolResult;
  expect(again.isError).toBe(true);
  expect(again._meta?.['ptc-runtime/error']).toMatchObject({ code: 'RUN_FINISHED' });
  const unknown = (await b.callTool({ name: 'ptc_resume', arguments: { runId: 'no-such-run' } })) as CallToolResult;
  expect(unknown.isError).toBe(true);
  expect(unknown._meta?.['ptc-runtime/error']).toMatchObject({ code: 'UNKNOWN_RUN' });
  expect((await b.callTool({ name: 'ptc_runs', arguments: {} })).structuredContent).toStrictEqual({ runs: [] });
}, 180_000);

it('ptc serve --approval pause without --journal is a usage error', async () => {
  let err = '';
  const code = await main(['serve', '--approval', 'pause'], { out: () => {}, err: (t) => (err += t) });
  expect(code).toBe(2);
  expect(err).toMatch(/--approval pause needs --journal/);
  err = '';
  expect(
    await main(['serve', '--approval', 'ask', '--journal', join(dir, 'j.jsonl')], {
      out: () => {},
      err: (t) => (err += t),
    }),
  ).not.toBe(0);
  expect(err).toMatch(/--approval/);
});
