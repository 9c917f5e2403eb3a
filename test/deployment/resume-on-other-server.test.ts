// Two MCP servers over Streamable HTTP on one PostgreSQL journal (a throwaway cluster):
// a run_code run paused through server A (its gated writes await a human) is approved
// and finished through server B after A was SIGKILLed — nothing committed is lost, the
// read before the pause is answered from the journal (its body does not run again), and
// each approved write runs once.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PausedRun } from '../../src/index.ts';
import { readBodyLog } from '../durable-runs/fixtures/gated-tools.ts';
import { startPostgres, type PostgresCluster } from '../support/postgres-cluster.ts';
import { spawnWatched } from '../support/watched-child.ts';

const HOST = fileURLToPath(new URL('./fixtures/approval-host.ts', import.meta.url));
const TOKEN = 'resume-anywhere-token-0123456789';
let cluster: PostgresCluster;
let dir = '';
const children: ChildProcess[] = [];

beforeAll(async () => {
  cluster = await startPostgres();
  dir = mkdtempSync(join(tmpdir(), 'ptc-resume-anywhere-'));
}, 120_000);
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await cluster?.stop();
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** Starts a host; resolves with its MCP URL and process. */
async function host(journal: string, log: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const server = spawnWatched(dir, ['--no-node-snapshot', HOST, String(port), journal, log, TOKEN]);
  children.push(server.child);
  const listening = (): RegExpExecArray | null => /listening (\S+)/u.exec(server.stdout());
  // Bounded: a host that neither listens nor exits fails naming the step and where it stood.
  await server.until(`the approval host on port ${port}: its "listening" line`, () => listening() !== null);
  return { url: listening()![1]!, child: server.child };
}

async function call(url: string, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const client = new Client({ name: 'resume-anywhere', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
  );
  try {
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  } finally {
    await client.close();
  }
}

it('a run paused through server A is approved and finished through server B after A was killed', async () => {
  const journal = await cluster.createDatabase('anywhere');
  const log = join(dir, 'bodies.log');
  const [a, b] = await Promise.all([host(journal, log), host(journal, log)]);

  const first = await call(a.url, 'run_code', {
    description: 'read, then two gated writes',
    code: 'const base = await tools.read({ n: 1 }); const w = await Promise.all([tools.write({ v: base + 1 }), tools.write({ v: base + 2 })]); return w.map((x) => x.wrote);',
  });
  expect(first.isError).not.toBe(true);
  const paused = (first.structuredContent as { paused: PausedRun }).paused;
  expect(paused.pending.map((p) => p.arguments)).toStrictEqual([{ v: 11 }, { v: 12 }]);

  a.child.kill('SIGKILL');
  await new Promise((resolve) => a.child.once('exit', resolve));

  const decisions = Object.fromEntries(paused.pending.map((p) => [p.callId, 'approve']));
  const final = await call(b.url, 'approve_run', { runId: paused.runId, decisions });
  expect(final.isError).not.toBe(true);
  // approve_run's any-JSON output schema is listed as the { value } wrapper, so its object travels wrapped.
  expect(final.structuredContent).toMatchObject({ value: { result: [11, 12] } });
  // The read ran once (on A, before the pause); each approved write once (on B).
  expect(readBodyLog(log).map((r) => `${r.name}:${JSON.stringify(r.args)}`)).toStrictEqual([
    'read:{"n":1}',
    'write:{"v":11}',
    'write:{"v":12}',
  ]);
}, 120_000);
