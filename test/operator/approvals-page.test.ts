// The approvals page's routes over real HTTP (serveMcpHttp with an operator token): the
// runs.json shape, the server-rendered page (the run's earlier calls as a tree with their
// results; hostile arguments — <script>, a 1 MB string — escaped and folded), decisions
// posted with the operator token only (not the model's, not from another Origin, not as
// a form), the resume's result or its error code, and no page at all without the token.
import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PausedRun, ToolResult, ToolRuntime } from '../../src/index.ts';
import { serveMcpHttp, type McpHttpServer } from '../../src/mcp/index.ts';
import { gatedRuntime, readBodyLog, runCall } from '../durable-runs/fixtures/gated-tools.ts';

const MODEL_TOKEN = 'page-model-token-0123456789';
const OPERATOR_TOKEN = 'page-operator-token-0123456789';
const THREE_WRITES = `
  const base = await tools.read({ n: 1 });
  const second = await tools.read({ n: 2 });
  const all = await Promise.allSettled([tools.write({ v: base + 1 }), tools.write({ v: second + 2 }), tools.write({ v: 3 })]);
  return all.map((s) => (s.status === 'fulfilled' ? s.value.wrote : s.reason.code));`;
let dir = '';
let counter = 0;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-approvals-page-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

async function host(operator = true): Promise<{ rt: ToolRuntime; server: McpHttpServer; base: string; log: string }> {
  counter += 1;
  const log = join(dir, `bodies-${counter}.log`);
  const rt = gatedRuntime(join(dir, `journal-${counter}.jsonl`), log);
  const server = await serveMcpHttp(rt, {
    token: MODEL_TOKEN,
    ...(operator ? { operatorToken: OPERATOR_TOKEN } : {}),
    maxBodyBytes: 4096,
  });
  cleanups.push(async () => {
    await server.close();
    await rt.close();
  });
  return { rt, server, base: new URL('/', server.url).href.slice(0, -1), log };
}

const pausedOf = (result: ToolResult): PausedRun => {
  const paused = (result.value as { paused?: PausedRun } | undefined)?.paused;
  if (paused === undefined) throw new Error(`not paused: ${JSON.stringify(result)}`);
  return paused;
};

const get = (url: string, token?: string, headers: Record<string, string> = {}) =>
  fetch(url, { headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...headers } });

const post = (url: string, body: string, token: string | undefined, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...headers,
    },
  });

it('runs.json lists the paused run in the pinned shape; decisions resume it and answer its result', async () => {
  const { rt, base, log } = await host();
  const paused = pausedOf(await rt.execute(runCall('three', THREE_WRITES)));
  expect(paused.pending).toHaveLength(3);

  for (const token of [undefined, MODEL_TOKEN]) {
    const refused = await get(`${base}/runs.json`, token);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
  }
  const listed = await get(`${base}/runs.json`, OPERATOR_TOKEN);
  expect(listed.status).toBe(200);
  const { runs } = (await listed.json()) as { runs: Record<string, unknown>[] };
  expect(runs).toStrictEqual([
    {
      runId: paused.runId,
      status: 'paused',
      agent: null,
      pending: paused.pending.map((p) => ({ callId: p.callId, name: 'write', arguments: p.arguments, title: p.title })),
      startedAt: expect.any(Number),
      expiresAt: paused.expiresAt,
    },
  ]);

  const url = `${base}/runs/${encodeURIComponent(paused.runId)}/decisions`;
  const [a, b, c] = paused.pending.map((p) => p.callId);
  const decisions = JSON.stringify({ [a!]: 'approve', [b!]: 'approve', [c!]: 'deny' });
  // Not with the model's token, not from another site, not as a form post.
  expect((await post(url, decisions, undefined)).status).toBe(401);
  expect((await post(url, decisions, MODEL_TOKEN)).status).toBe(401);
  const foreign = await post(url, decisions, OPERATOR_TOKEN, { origin: 'http://evil.example' });
  expect(foreign.status).toBe(403);
  const form = await post(url, decisions, OPERATOR_TOKEN, { 'content-type': 'text/plain' });
  expect(form.status).toBe(415);
  const invalid = await post(url, JSON.stringify({ [a!]: 'maybe' }), OPERATOR_TOKEN);
  expect([invalid.status, await invalid.json()]).toMatchObject([400, { error: { code: 'INVALID_DECISION' } }]);
  const huge = await post(url, JSON.stringify({ [a!]: 'x'.repeat(5000) }), OPERATOR_TOKEN);
  expect(huge.status).toBe(413);
  expect(readBodyLog(log).filter((r) => r.name === 'write')).toStrictEqual([]);

  // The page's own origin is its own: the browser sends it with a POST.
  const done = await post(url, decisions, OPERATOR_TOKEN, { origin: base });
  expect(done.status).toBe(200);
  expect(await done.json()).toMatchObject({ isError: false, value: { result: [11, 22, 'DENIED'] } });
  const again = await post(url, decisions, OPERATOR_TOKEN);
  expect([again.status, await again.json()]).toMatchObject([409, { error: { code: 'RUN_FINISHED' } }]);
  const unknown = await post(`${base}/runs/no-such-run/decisions`, '{}', OPERATOR_TOKEN);
  expect([unknown.status, await unknown.json()]).toMatchObject([404, { error: { code: 'UNKNOWN_RUN' } }]);
  expect(await (await get(`${base}/runs.json`, OPERATOR_TOKEN)).json()).toStrictEqual({ runs: [] });
}, 120_000);

it('the page is server-rendered: pending calls, the earlier calls as a tree with results, newest first', async () => {
  const { rt, base } = await host();
  const paused = pausedOf(await rt.execute(runCall('tree', THREE_WRITES)));
  const signedOut = await get(`${base}/runs`);
  expect(signedOut.status).toBe(200);
  const shell = await signedOut.text();
  expect(shell).toMatch(/operator token/);
  expect(shell).not.toContain(paused.runId);
  expect((await get(`${base}/runs`, MODEL_TOKEN)).status).toBe(401);

  const page = await get(`${base}/runs`, OPERATOR_TOKEN);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
  const html = await page.text();
  expect(html).toContain(`data-run-id="${paused.runId}"`);
  expect(html.match(/<li class="pending"/g)).toHaveLength(3);
  // The two reads, newest first, with their results.
  const second = html.indexOf('&quot;n&quot;: 2');
  const first = html.indexOf('&quot;n&quot;: 1');
  expect(second).toBeGreaterThan(0);
  expect(first).toBeGreaterThan(second);
  expect(html).toContain('<code class="value">20</code>');
  expect(html).toContain('<code class="value">10</code>');
}, 120_000);

it('hostile arguments are escaped and a 1 MB string is folded', async () => {
  const { rt, base } = await host();
  const hostile = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">';
  const code = `
    const many = Array.from({ length: 300 }, (_, i) => 'y'.repeat(1000) + i);
    await Promise.allSettled([tools.write({ v: ${JSON.stringify(hostile)} }), tools.write({ v: 'x'.repeat(1048576) }), tools.write({ v: many })]);
    return 'done';`;
  pausedOf(await rt.execute(runCall('hostile', code)));
  const html = await (await get(`${base}/runs`, OPERATOR_TOKEN)).text();
  // Our one script element, by src; nothing from the run is markup.
  expect(html.match(/<script/g)).toHaveLength(1);
  expect(html).not.toContain('<img');
  expect(html).toContain('&lt;script&gt;window.pwned = 1&lt;/script&gt;');
  expect(html).toContain('1048576 characters');
  expect(html).toContain('… 200 more (runs.json has all)');
  expect(html.length).toBeLessThan(200_000);
  const { runs } = (await (await get(`${base}/runs.json`, OPERATOR_TOKEN)).json()) as {
    runs: { pending: { arguments: { v: string } }[] }[];
  };
  expect(runs[0]!.pending.map((p) => p.arguments.v.length)).toStrictEqual([hostile.length, 1_048_576, 300]);
}, 120_000);

it('without an operator token there is no page', async () => {
  const { base } = await host(false);
  for (const path of ['/runs', '/runs.json', '/runs/page.js'])
    expect((await get(`${base}${path}`, MODEL_TOKEN)).status).toBe(404);
  expect((await post(`${base}/runs/x/decisions`, '{}', MODEL_TOKEN)).status).toBe(404);
});
