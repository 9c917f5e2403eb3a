// Whole-plan approval over real HTTP (serveMcpHttp with an operator token, a real MCP
// client for the model): with planApproval and planArguments the model previews a plan
// through run_code; its commit is refused until an operator approves the plan as a whole
// on the approval routes (plans.json lists it with its writes, titles and arguments; the
// server-rendered page shows it escaped); the approval lets exactly that token commit,
// once; a rejected plan's token is unusable. Only the operator's token decides.
import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createToolRuntime, type Plan } from '../../src/index.ts';
import { serveMcpHttp } from '../../src/mcp/index.ts';
import { registerShop, REFUND_LATE, type Shop } from '../preview/fixtures/shop.ts';

const MODEL_TOKEN = 'plan-model-token-0123456789';
const OPERATOR_TOKEN = 'plan-operator-token-0123456789';
let dir = '';
const cleanups: (() => Promise<void>)[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-plan-approval-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

async function host(): Promise<{ shop: Shop; base: string; model: Client }> {
  const rt = createToolRuntime({
    mode: 'ptc',
    journal: join(dir, `journal-${cleanups.length}.jsonl`),
    planArguments: true,
    planApproval: true,
    sandbox: { poolSize: 1 },
  });
  const shop = registerShop(rt);
  const server = await serveMcpHttp(rt, { token: MODEL_TOKEN, operatorToken: OPERATOR_TOKEN, maxBodyBytes: 4096 });
  cleanups.push(async () => {
    await server.close();
    await rt.close();
  });
  const model = new Client({ name: 'plan-approval', version: '1' });
  await model.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${MODEL_TOKEN}` } },
    }),
  );
  cleanups.push(() => model.close());
  return { shop, base: new URL('/', server.url).href.slice(0, -1), model };
}

const runCode = async (model: Client, args: Record<string, unknown>): Promise<CallToolResult> =>
  (await model.callTool({
    name: 'run_code',
    arguments: { description: 'Refund late orders', ...args },
  })) as CallToolResult;

const textOf = (result: CallToolResult): string =>
  result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** The run's error code, as the server gives it under `_meta`. */
const codeOf = (result: CallToolResult): string | undefined =>
  (result._meta?.['ptc-runtime/error'] as { code?: string } | undefined)?.code;

async function previewOf(model: Client, code: string): Promise<Plan> {
  const result = await runCode(model, { code, preview: true });
  const plan = (result.structuredContent as { plan?: Plan } | undefined)?.plan;
  if (result.isError === true || plan === undefined) throw new Error(`no plan: ${textOf(result)}`);
  return plan;
}

const get = (url: string, token?: string) =>
  fetch(url, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
const decide = (base: string, planId: string, body: unknown, token: string | undefined, type = 'application/json') =>
  fetch(`${base}/plans/${encodeURIComponent(planId)}/decision`, {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': type, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
  });

it('an operator approves a whole plan over HTTP: only then does exactly that token commit, once', async () => {
  const { shop, base, model } = await host();
  const plan = await previewOf(model, REFUND_LATE);
  expect(plan).toMatchObject({ awaitsApproval: true, reads: 1 });
  expect(plan.writes.map((w) => w.title)).toStrictEqual([
    'Refund order 1: 100',
    'Refund order 3: 62.5',
    'Refund order 5: 250',
  ]);

  // The model commits at once: refused, nothing ran, the token still good.
  const early = await runCode(model, { code: REFUND_LATE, commit: plan.token });
  expect(early.isError).toBe(true);
  expect(codeOf(early)).toBe('PLAN_NOT_APPROVED');
  expect(shop.log).toStrictEqual([]);

  for (const token of [undefined, MODEL_TOKEN]) expect((await get(`${base}/plans.json`, token)).status).toBe(401);
  const listed = (await (await get(`${base}/plans.json`, OPERATOR_TOKEN)).json()) as { plans: unknown[] };
  expect(listed.plans).toStrictEqual([
    {
      planId: plan.planId,
      description: 'Refund late orders',
      code: REFUND_LATE,
      writes: plan.writes,
      reads: 1,
      createdAt: expect.any(Number),
      expiresAt: plan.expiresAt,
    },
  ]);
  const page = await (await get(`${base}/runs`, OPERATOR_TOKEN)).text();
  expect(page).toContain(`data-plan-id="${plan.planId}"`);
  expect(page.match(/<li class="write"/g)).toHaveLength(3);
  expect(page).toContain('Refund order 3: 62.5');

  // Only the operator decides, as JSON, with a decision it knows.
  expect((await decide(base, plan.planId, { decision: 'approve' }, undefined)).status).toBe(401);
  expect((await decide(base, plan.planId, { decision: 'approve' }, MODEL_TOKEN)).status).toBe(401);
  expect((await decide(base, plan.planId, { decision: 'approve' }, OPERATOR_TOKEN, 'text/plain')).status).toBe(415);
  const odd = await decide(base, plan.planId, { decision: 'maybe' }, OPERATOR_TOKEN);
  expect([odd.status, await odd.json()]).toMatchObject([400, { error: { code: 'INVALID_DECISION' } }]);
  const unknown = await decide(base, 'no-such-plan', { decision: 'approve' }, OPERATOR_TOKEN);
  expect([unknown.status, await unknown.json()]).toMatchObject([404, { error: { code: 'PLAN_INVALID' } }]);
  expect(shop.log).toStrictEqual([]);

  const approved = await decide(base, plan.planId, { decision: 'approve' }, OPERATOR_TOKEN);
  expect([approved.status, await approved.json()]).toStrictEqual([200, { planId: plan.planId, decision: 'approve' }]);
  // Decided: no longer waiting, and the first decision stands.
  expect(await (await get(`${base}/plans.json`, OPERATOR_TOKEN)).json()).toStrictEqual({ plans: [] });
  const late = await decide(base, plan.planId, { decision: 'reject' }, OPERATOR_TOKEN);
  expect([late.status, await late.json()]).toMatchObject([409, { error: { code: 'PLAN_DECIDED' } }]);

  // Another program under the approved token is still refused before anything runs.
  const other = await runCode(model, { code: `${REFUND_LATE}\n// changed`, commit: plan.token });
  expect(codeOf(other)).toBe('PLAN_MISMATCH');
  const committed = await runCode(model, { code: REFUND_LATE, commit: plan.token });
  expect(committed.isError).not.toBe(true);
  expect(shop.log).toStrictEqual(['refund:1', 'refund:3', 'refund:5']);
  expect(codeOf(await runCode(model, { code: REFUND_LATE, commit: plan.token }))).toBe('PLAN_USED');
  expect(shop.log).toHaveLength(3);
}, 120_000);

it('a rejected plan never commits; its hostile arguments are escaped on the page', async () => {
  const { shop, base, model } = await host();
  const hostile = '<script>window.pwned = 1</script>';
  const code = `await tools.email({ to: ${JSON.stringify(hostile)} }); return 1;`;
  const plan = await previewOf(model, code);
  const page = await (await get(`${base}/runs`, OPERATOR_TOKEN)).text();
  expect(page.match(/<script/g)).toHaveLength(1);
  expect(page).toContain('&lt;script&gt;window.pwned = 1&lt;/script&gt;');

  const rejected = await decide(base, plan.planId, { decision: 'reject' }, OPERATOR_TOKEN);
  expect(rejected.status).toBe(200);
  const refused = await runCode(model, { code, commit: plan.token });
  expect(refused.isError).toBe(true);
  expect(codeOf(refused)).toBe('PLAN_REJECTED');
  const again = await decide(base, plan.planId, { decision: 'approve' }, OPERATOR_TOKEN);
  expect([again.status, await again.json()]).toMatchObject([409, { error: { code: 'PLAN_DECIDED' } }]);
  expect(codeOf(await runCode(model, { code, commit: plan.token }))).toBe('PLAN_REJECTED');
  expect(shop.log).toStrictEqual([]);
}, 120_000);

it("the operator's MCP client lists waiting plans and approves one as a whole; the model's cannot", async () => {
  const { shop, base, model } = await host();
  const plan = await previewOf(model, REFUND_LATE);
  const operator = new Client({ name: 'plan-operator', version: '1' });
  await operator.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', base), {
      requestInit: { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } },
    }),
  );
  cleanups.push(() => operator.close());
  const call = async (client: Client, name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  // To the model's client these tools do not exist.
  expect(codeOf(await call(model, 'ptc_decide_plan', { planId: plan.planId, decision: 'approve' }))).toBe(
    'UNKNOWN_TOOL',
  );
  const listed = await call(operator, 'ptc_plans', {});
  expect((listed.structuredContent as { plans: { planId: string; writes: unknown[] }[] }).plans).toMatchObject([
    { planId: plan.planId, writes: plan.writes },
  ]);
  expect(codeOf(await call(operator, 'ptc_decide_plan', { planId: plan.planId, decision: 'maybe' }))).toBe(
    'INVALID_ARGUMENTS',
  );
  expect(codeOf(await call(operator, 'ptc_decide_plan', { planId: 'nope', decision: 'approve' }))).toBe('PLAN_INVALID');
  expect(shop.log).toStrictEqual([]);
  const approved = await call(operator, 'ptc_decide_plan', { planId: plan.planId, decision: 'approve' });
  expect(approved.structuredContent).toStrictEqual({ planId: plan.planId, decision: 'approve' });
  expect((await runCode(model, { code: REFUND_LATE, commit: plan.token })).isError).not.toBe(true);
  expect(shop.log).toStrictEqual(['refund:1', 'refund:3', 'refund:5']);
}, 120_000);

it('ptc serve --plan-approval is refused without the operator page (--http, --journal, PTC_OPERATOR_TOKEN)', async () => {
  const { main } = await import('../../src/cli/main.ts');
  const err: string[] = [];
  const io = { out: () => {}, err: (t: string) => void err.push(t) };
  const before = process.env.PTC_OPERATOR_TOKEN;
  delete process.env.PTC_OPERATOR_TOKEN;
  try {
    expect(await main(['serve', '--plan-approval'], io)).not.toBe(0);
    expect(
      await main(['serve', '--http', '127.0.0.1:0', '--plan-approval', '--journal', join(dir, 'x.jsonl')], io),
    ).not.toBe(0);
  } finally {
    if (before !== undefined) process.env.PTC_OPERATOR_TOKEN = before;
  }
  expect(err).toHaveLength(2);
  expect(err[0]).toMatch(/--plan-approval needs the operator's page: --http, --journal and PTC_OPERATOR_TOKEN/);
  expect(err[1]).toMatch(/PTC_OPERATOR_TOKEN is not set/);
}, 60_000);
