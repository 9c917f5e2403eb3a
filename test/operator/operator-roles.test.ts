// The two roles of `ptc serve`: the model's client (PTC_SERVE_TOKEN) and the operator's
// (PTC_OPERATOR_TOKEN), each with the official MCP SDK client over real HTTP against a
// real `ptc serve --http` process. The model's client never sees or calls ptc_runs /
// ptc_resume; the operator's sees only them and approves the model's paused run. Over
// stdio the operator tools come only with --operator-tools, and with a warning.
import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { main } from '../../src/cli/main.ts';
import type { DurableRunSummary, PausedRun } from '../../src/index.ts';
import { readBodyLog } from '../durable-runs/fixtures/gated-tools.ts';
import { PTC_BIN, spawnServe } from '../mcp/helpers.ts';

const TOOLS = fileURLToPath(new URL('./fixtures/agents-gated-tools.ts', import.meta.url));
const MODEL_TOKEN = 'model-token-0123456789abcdef';
const OPERATOR_TOKEN = 'operator-token-0123456789abcdef';
let dir = '';
const cleanups: (() => Promise<void>)[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-operator-roles-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

async function client(url: string, token: string): Promise<Client> {
  const c = new Client({ name: 'operator-roles', version: '1' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  cleanups.push(() => c.close());
  return c;
}

const errorCode = (result: CallToolResult): unknown =>
  (result._meta?.['ptc-runtime/error'] as { code?: string } | undefined)?.code;

it('the model token never lists or calls operator tools; the operator token lists only them and approves the run', async () => {
  const log = join(dir, 'bodies-http.log');
  const journal = join(dir, 'http.jsonl');
  const served = await spawnServe(
    cleanups,
    ['--mode', 'ptc', '--approval', 'pause', '--journal', journal, '--tools', TOOLS],
    { PTC_SERVE_TOKEN: MODEL_TOKEN, PTC_OPERATOR_TOKEN: OPERATOR_TOKEN, PTC_TEST_BODY_LOG: log },
  );
  const model = await client(served.url, MODEL_TOKEN);
  const operator = await client(served.url, OPERATOR_TOKEN);

  expect((await model.listTools()).tools.map((t) => t.name)).toStrictEqual(['run_code']);
  expect((await operator.listTools()).tools.map((t) => t.name).sort()).toStrictEqual([
    'ptc_decide_plan',
    'ptc_plans',
    'ptc_resume',
    'ptc_runs',
  ]);

  const first = (await model.callTool({
    name: 'run_code',
    arguments: { description: 'a gated write', code: 'const w = await tools.write({ v: 7 }); return w.wrote;' },
  })) as CallToolResult;
  const paused = (first.structuredContent as { paused: PausedRun }).paused;
  expect(paused.pending.map((p) => p.name)).toStrictEqual(['write']);
  const decisions = { [paused.pending[0]!.callId]: 'approve' };

  // The model cannot list or approve its own run: to its client these tools do not exist.
  for (const [name, args] of [
    ['ptc_runs', {}],
    ['ptc_resume', { runId: paused.runId, decisions }],
  ] as const) {
    const refused = (await model.callTool({ name, arguments: args })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(errorCode(refused)).toBe('UNKNOWN_TOOL');
  }
  expect(readBodyLog(log)).toStrictEqual([]);
  // The operator has no model tools either.
  const notOperators = (await operator.callTool({
    name: 'run_code',
    arguments: { description: 'x', code: 'return 1' },
  })) as CallToolResult;
  expect(errorCode(notOperators)).toBe('UNKNOWN_TOOL');

  const listed = (await operator.callTool({ name: 'ptc_runs', arguments: {} })) as CallToolResult;
  expect((listed.structuredContent as { runs: DurableRunSummary[] }).runs.map((r) => r.runId)).toStrictEqual([
    paused.runId,
  ]);
  const final = (await operator.callTool({
    name: 'ptc_resume',
    arguments: { runId: paused.runId, decisions },
  })) as CallToolResult;
  expect(final.isError).not.toBe(true);
  expect(final.structuredContent).toMatchObject({ result: 7 });
  expect(readBodyLog(log).map((r) => r.name)).toStrictEqual(['write']);
  expect(served.stderr()).toMatch(/operator surface on/);
}, 120_000);

it('without PTC_OPERATOR_TOKEN the operator surface is off, and the start says so', async () => {
  const served = await spawnServe(
    cleanups,
    ['--mode', 'ptc', '--approval', 'pause', '--journal', join(dir, 'off.jsonl'), '--tools', TOOLS],
    { PTC_SERVE_TOKEN: MODEL_TOKEN, PTC_OPERATOR_TOKEN: '' },
  );
  const model = await client(served.url, MODEL_TOKEN);
  expect((await model.listTools()).tools.map((t) => t.name)).toStrictEqual(['run_code']);
  expect(errorCode((await model.callTool({ name: 'ptc_runs', arguments: {} })) as CallToolResult)).toBe('UNKNOWN_TOOL');
  // The line comes right after the "serving" line the helper waited for.
  const said = await new Promise<string>((resolve) => {
    const look = (): void => {
      if (/operator surface off/.test(served.stderr())) resolve(served.stderr());
    };
    served.child.stderr.on('data', look);
    look();
  });
  expect(said).toMatch(/operator surface off: PTC_OPERATOR_TOKEN is not set/);
}, 120_000);

it('refuses an operator token shorter than 16 characters or equal to the model token', async () => {
  const run = async (env: Record<string, string>): Promise<{ code: number; err: string }> => {
    const saved = { ...process.env };
    Object.assign(process.env, env);
    let err = '';
    try {
      const code = await main(
        ['serve', '--http', '127.0.0.1:0', '--journal', join(dir, 'refused.jsonl'), '--tools', TOOLS],
        { out: () => {}, err: (t) => (err += t) },
      );
      return { code, err };
    } finally {
      for (const key of Object.keys(env)) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
  };
  const short = await run({ PTC_SERVE_TOKEN: MODEL_TOKEN, PTC_OPERATOR_TOKEN: 'fifteen-chars!!' });
  expect(short).toStrictEqual({
    code: 2,
    err: expect.stringMatching(/PTC_OPERATOR_TOKEN must be at least 16 characters/),
  });
  const same = await run({ PTC_SERVE_TOKEN: MODEL_TOKEN, PTC_OPERATOR_TOKEN: MODEL_TOKEN });
  expect(same).toStrictEqual({
    code: 2,
    err: expect.stringMatching(/PTC_OPERATOR_TOKEN must differ from PTC_SERVE_TOKEN/),
  });
  const agents = await run({
    PTC_SERVE_TOKEN: MODEL_TOKEN,
    PTC_OPERATOR_TOKEN: OPERATOR_TOKEN,
    PTC_OPERATOR_AGENTS: 'alice,,bob',
  });
  expect(agents).toStrictEqual({
    code: 2,
    err: expect.stringMatching(/PTC_OPERATOR_AGENTS=.*agent ids separated by commas/),
  });
});

async function stdioClient(extra: string[]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--no-node-snapshot', PTC_BIN, 'serve', '--journal', join(dir, 'stdio.jsonl'), '--tools', TOOLS, ...extra],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const c = new Client({ name: 'operator-roles-stdio', version: '1' });
  await c.connect(transport);
  cleanups.push(() => c.close());
  return { client: c, stderr: () => stderr };
}

it('over stdio the operator tools come only with --operator-tools, with a warning that the client holds both roles', async () => {
  const plain = await stdioClient(['--approval', 'pause', '--mode', 'ptc']);
  expect((await plain.client.listTools()).tools.map((t) => t.name)).toStrictEqual(['run_code']);
  expect(plain.stderr()).not.toMatch(/both roles/);
  const both = await stdioClient(['--approval', 'pause', '--mode', 'ptc', '--operator-tools']);
  expect((await both.client.listTools()).tools.map((t) => t.name)).toStrictEqual([
    'run_code',
    'ptc_runs',
    'ptc_resume',
    'ptc_plans',
    'ptc_decide_plan',
  ]);
  expect(both.stderr()).toMatch(/warning: --operator-tools: the stdio client holds both roles/);

  let err = '';
  expect(await main(['serve', '--operator-tools'], { out: () => {}, err: (t) => (err += t) })).toBe(2);
  expect(err).toMatch(/--operator-tools needs --journal/);
}, 120_000);
