// Runs are scoped by agent and principal: `rt.runs({ agent, principal })` lists only the
// runs of that scope and `rt.resume(…, scope)` answers UNKNOWN_RUN for any other run,
// with the message a run id that never existed gets (no oracle). Over HTTP: a
// `ptc serve --agent bob` process on a journal shared with `--agent alice` can neither
// list nor resume alice's paused run, and an operator token limited with
// PTC_OPERATOR_AGENTS (operatorAgents) sees only those agents' runs.
import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RunResumeError, type DurableRunSummary, type PausedRun, type ToolResult } from '../../src/index.ts';
import { serveMcpHttp } from '../../src/mcp/index.ts';
import { gatedRuntime, readBodyLog, runCall } from '../durable-runs/fixtures/gated-tools.ts';
import { spawnServe } from '../mcp/helpers.ts';
import { startPostgres, type PostgresCluster } from '../support/postgres-cluster.ts';

const TOOLS = fileURLToPath(new URL('./fixtures/agents-gated-tools.ts', import.meta.url));
const MODEL_TOKEN = 'scope-model-token-0123456789';
const OPERATOR_TOKEN = 'scope-operator-token-0123456789';
const WRITE = 'const w = await tools.write({ v: 5 }); return w.wrote;';
let cluster: PostgresCluster;
let dir = '';
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-runs-scope-'));
  cluster = await startPostgres();
}, 120_000);
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await cluster?.stop();
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

const pausedOf = (result: ToolResult | CallToolResult): PausedRun => {
  const value = 'value' in result ? result.value : (result as CallToolResult).structuredContent;
  const paused = (value as { paused?: PausedRun } | undefined)?.paused;
  if (paused === undefined) throw new Error(`not paused: ${JSON.stringify(result)}`);
  return paused;
};

async function resumeError(promise: Promise<unknown>): Promise<RunResumeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof RunResumeError)) throw new Error(`expected a RunResumeError, got ${String(error)}`);
  return error;
}

it('rt.runs and rt.resume see only the runs of the agent and principal asked for', async () => {
  const log = join(dir, 'in-process.log');
  const rt = gatedRuntime(join(dir, 'in-process.jsonl'), log);
  cleanups.push(() => rt.close());
  rt.createAgent('alice');
  rt.createAgent('bob');
  const alice = pausedOf(await rt.execute({ ...runCall('a1', WRITE), agent: 'alice', principal: 'user-1' }));
  const bob = pausedOf(await rt.execute({ ...runCall('b1', WRITE), agent: 'bob', principal: 'user-2' }));
  const global = pausedOf(await rt.execute(runCall('g1', WRITE)));

  const ids = async (filter: Parameters<typeof rt.runs>[0]): Promise<string[]> =>
    (await rt.runs(filter)).map((r) => r.runId);
  expect(await ids({})).toStrictEqual([alice.runId, bob.runId, global.runId]);
  expect(await ids({ agent: 'alice' })).toStrictEqual([alice.runId]);
  expect(await ids({ agent: ['alice', 'bob'] })).toStrictEqual([alice.runId, bob.runId]);
  expect(await ids({ agent: [] })).toStrictEqual([]);
  expect(await ids({ principal: 'user-2' })).toStrictEqual([bob.runId]);
  expect(await ids({ agent: 'alice', principal: 'user-2' })).toStrictEqual([]);
  const [listed] = await rt.runs({ principal: 'user-1' });
  expect(listed).toMatchObject({ agent: 'alice', principal: 'user-1' } satisfies Partial<DurableRunSummary>);
  expect(listed!.calls).toBeUndefined();
  // Its calls so far, from the journal: the pending write (no result but PAUSED yet).
  const [withCalls] = await rt.runs({ principal: 'user-1', withCalls: true });
  expect(withCalls!.calls?.map((c) => [c.name, c.arguments, c.result?.error?.code])).toStrictEqual([
    ['write', { v: 5 }, 'PAUSED'],
  ]);
  expect(await rt.runCalls(alice.runId, { agent: 'alice' })).toStrictEqual(withCalls!.calls);
  expect((await resumeError(rt.runCalls(alice.runId, { agent: 'bob' }))).code).toBe('UNKNOWN_RUN');

  // Another agent's (or principal's) run is unknown, exactly like a run that never existed.
  const approve = { [alice.pending[0]!.callId]: 'approve' } as const;
  const foreign = await resumeError(rt.resume(alice.runId, approve, { agent: 'bob' }));
  const missing = await resumeError(rt.resume('no-such-run', approve, { agent: 'bob' }));
  expect(foreign.code).toBe('UNKNOWN_RUN');
  expect(foreign.message.replace(alice.runId, 'ID')).toBe(missing.message.replace('no-such-run', 'ID'));
  expect((await resumeError(rt.resume(alice.runId, approve, { principal: 'user-2' }))).code).toBe('UNKNOWN_RUN');
  expect(readBodyLog(log)).toStrictEqual([]);

  const done = await rt.resume(alice.runId, approve, { agent: 'alice', principal: 'user-1' });
  expect(done).toMatchObject({ isError: false, value: { result: 5 } });
  expect(await ids({ principal: 'user-1' })).toStrictEqual([]);
  expect(readBodyLog(log).map((r) => r.name)).toStrictEqual(['write']);
}, 120_000);

it('a principal is a non-empty string of at most 256 characters', async () => {
  const rt = gatedRuntime(join(dir, 'limits.jsonl'), join(dir, 'limits.log'));
  cleanups.push(() => rt.close());
  await expect(rt.execute({ ...runCall('p1', 'return 1'), principal: 'x'.repeat(257) })).rejects.toThrow(
    /principal must be a non-empty string of at most 256 characters, got 257 characters/,
  );
  await expect(rt.execute({ ...runCall('p2', 'return 1'), principal: '' })).rejects.toThrow(/principal must be/);
  await expect(rt.execute({ ...runCall('p3', 'return 1'), principal: 'x'.repeat(256) })).resolves.toMatchObject({
    isError: false,
    value: { result: 1 },
  });
  await expect(rt.runs({ agent: [''] })).rejects.toThrow(/runs: agent must be a non-empty string/);
});

async function client(url: string, token: string): Promise<Client> {
  const c = new Client({ name: 'runs-scope', version: '1' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  cleanups.push(() => c.close());
  return c;
}

const runIdsOf = async (c: Client): Promise<string[]> =>
  ((await c.callTool({ name: 'ptc_runs', arguments: {} })).structuredContent as { runs: DurableRunSummary[] }).runs.map(
    (r) => r.runId,
  );

it("a --agent bob server cannot list or resume alice's runs on a shared journal", async () => {
  const journal = await cluster.createDatabase('runs_scope');
  const log = join(dir, 'shared.log');
  const env = { PTC_SERVE_TOKEN: MODEL_TOKEN, PTC_OPERATOR_TOKEN: OPERATOR_TOKEN, PTC_TEST_BODY_LOG: log };
  const serve = (agent: string) =>
    spawnServe(
      cleanups,
      ['--mode', 'ptc', '--approval', 'pause', '--journal', journal, '--tools', TOOLS, '--agent', agent],
      env,
    );
  const [aliceServer, bobServer] = await Promise.all([serve('alice'), serve('bob')]);
  const aliceModel = await client(aliceServer.url, MODEL_TOKEN);
  const paused = pausedOf(
    (await aliceModel.callTool({
      name: 'run_code',
      arguments: { description: 'alice writes', code: WRITE },
    })) as CallToolResult,
  );
  const decisions = { [paused.pending[0]!.callId]: 'approve' };

  const bobOperator = await client(bobServer.url, OPERATOR_TOKEN);
  expect(await runIdsOf(bobOperator)).toStrictEqual([]);
  const refused = (await bobOperator.callTool({
    name: 'ptc_resume',
    arguments: { runId: paused.runId, decisions },
  })) as CallToolResult;
  expect(refused.isError).toBe(true);
  expect(refused._meta?.['ptc-runtime/error']).toMatchObject({ code: 'UNKNOWN_RUN' });

  // An operator token limited to bob (operatorAgents, the CLI's PTC_OPERATOR_AGENTS) on a server of every agent.
  const rt = gatedRuntime(journal, log);
  cleanups.push(() => rt.close());
  rt.createAgent('alice');
  rt.createAgent('bob');
  const limited = await serveMcpHttp(rt, {
    token: MODEL_TOKEN,
    operatorToken: OPERATOR_TOKEN,
    operatorAgents: ['bob'],
  });
  cleanups.push(() => limited.close());
  expect(await runIdsOf(await client(limited.url, OPERATOR_TOKEN))).toStrictEqual([]);
  expect(readBodyLog(log)).toStrictEqual([]);

  const aliceOperator = await client(aliceServer.url, OPERATOR_TOKEN);
  expect(await runIdsOf(aliceOperator)).toStrictEqual([paused.runId]);
  const final = (await aliceOperator.callTool({
    name: 'ptc_resume',
    arguments: { runId: paused.runId, decisions },
  })) as CallToolResult;
  expect(final.structuredContent).toMatchObject({ result: 5 });
  expect(readBodyLog(log).map((r) => r.name)).toStrictEqual(['write']);
}, 180_000);
