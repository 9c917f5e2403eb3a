// Whole-plan approval in a real browser: Debian's Chromium driven by puppeteer-core
// against a real `ptc serve --http --plan-approval` process. The model's client previews a
// program through run_code; the operator's open page shows the plan by itself (live
// update) with its writes and titles; the model's commit is refused until the operator
// approves the whole plan (the confirmation repeats every write), then it runs exactly
// those writes; a plan the operator rejects never commits. Screenshots go to
// .scratch/screenshots/plan-approval/.
import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import puppeteer, { type Browser } from 'puppeteer-core';
import type { Plan } from '../../src/index.ts';
import { REPO, spawnServe } from '../mcp/helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const TOOLS = fileURLToPath(new URL('./fixtures/plan-shop-tools.ts', import.meta.url));
const MODEL_TOKEN = 'plan-browser-model-token-0123456789';
const OPERATOR_TOKEN = 'plan-browser-operator-token-0123456789';
const SHOTS = join(REPO, '.scratch', 'screenshots', 'plan-approval');
/** Generous: a loaded 2-core machine runs the browser, the server and the sandbox at once. */
const STEP_MS = 60_000;
const CODE = `
const late = (await tools.list_orders({})).filter((o) => o.late);
for (const o of late) await tools.refund({ order: o.id, amount: o.total });
return late.length;`;
let dir = '';
const cleanups: (() => Promise<void>)[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-plan-browser-'));
  mkdirSync(SHOTS, { recursive: true });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

async function launch(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'ptc-chromium-profile-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: profile,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: STEP_MS,
  });
  cleanups.push(async () => {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  });
  return browser;
}

const codeOf = (result: CallToolResult): string | undefined =>
  (result._meta?.['ptc-runtime/error'] as { code?: string } | undefined)?.code;

it('an operator approves one whole plan and rejects another on the page; only the approved one commits', async () => {
  const log = join(dir, 'refunds.log');
  const served = await spawnServe(
    cleanups,
    ['--mode', 'ptc', '--journal', join(dir, 'journal.jsonl'), '--tools', TOOLS, '--plan-approval'],
    { PTC_SERVE_TOKEN: MODEL_TOKEN, PTC_OPERATOR_TOKEN: OPERATOR_TOKEN, PTC_TEST_BODY_LOG: log },
  );
  const refunds = (): unknown[] =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as unknown)
      : [];
  const browser = await launch();
  const page = await browser.newPage();
  page.setDefaultTimeout(STEP_MS);
  await page.setViewport({ width: 1100, height: 900 });
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.accept();
  });
  await page.goto(new URL('/runs', served.url).href, { waitUntil: 'load' });
  await page.waitForSelector('#signin:not([hidden])');
  await page.type('#token', OPERATOR_TOKEN);
  await page.click('#signin-button');
  await page.waitForFunction("document.getElementById('state')?.textContent?.startsWith('Signed in') === true");

  const model = new Client({ name: 'plan-approval-browser', version: '1' });
  await model.connect(
    new StreamableHTTPClientTransport(new URL(served.url), {
      requestInit: { headers: { authorization: `Bearer ${MODEL_TOKEN}` } },
    }),
  );
  cleanups.push(() => model.close());
  const runCode = async (args: Record<string, unknown>): Promise<CallToolResult> =>
    (await model.callTool({
      name: 'run_code',
      arguments: { description: 'Refund late orders', code: CODE, ...args },
    })) as CallToolResult;
  const previewed = async (): Promise<Plan> => {
    const result = await runCode({ preview: true });
    const plan = (result.structuredContent as { plan?: Plan } | undefined)?.plan;
    if (plan === undefined) throw new Error(`no plan: ${JSON.stringify(result)}`);
    return plan;
  };

  // The model previews; the open page shows the plan by itself.
  const plan = await previewed();
  const section = `section.plan[data-plan-id="${plan.planId}"]`;
  await page.waitForSelector(section);
  expect(await page.$$eval(`${section} li.write .title`, (titles) => titles.map((t) => t.textContent))).toStrictEqual([
    'Refund order 1: 100',
    'Refund order 3: 62.5',
  ]);
  await page.screenshot({ path: join(SHOTS, '1-plan-waiting.png'), fullPage: true });
  expect(codeOf(await runCode({ commit: plan.token }))).toBe('PLAN_NOT_APPROVED');

  await page.click(`${section} button.approve-plan`);
  await page.waitForFunction(
    `document.getElementById('outcomes')?.textContent?.includes(${JSON.stringify(`Plan ${plan.planId} approved`)}) === true`,
  );
  await page.waitForFunction(`document.querySelector(${JSON.stringify(section)}) === null`);
  expect(dialogs).toHaveLength(1);
  expect(dialogs[0]).toMatch(
    /APPROVE the whole plan[\s\S]*#2 refund \{\s*"order": 1,\s*"amount": 100\s*\}[\s\S]*#3 refund \{\s*"order": 3,\s*"amount": 62.5\s*\}/,
  );
  const committed = await runCode({ commit: plan.token });
  expect(committed.isError).not.toBe(true);
  expect(refunds()).toStrictEqual([
    { order: 1, amount: 100 },
    { order: 3, amount: 62.5 },
  ]);

  // A second plan, rejected: its token never commits.
  const second = await previewed();
  const secondSection = `section.plan[data-plan-id="${second.planId}"]`;
  await page.waitForSelector(secondSection);
  await page.click(`${secondSection} button.reject-plan`);
  await page.waitForFunction(
    `document.getElementById('outcomes')?.textContent?.includes(${JSON.stringify(`Plan ${second.planId} rejected`)}) === true`,
  );
  await page.screenshot({ path: join(SHOTS, '2-decided.png'), fullPage: true });
  expect(codeOf(await runCode({ commit: second.token }))).toBe('PLAN_REJECTED');
  expect(refunds()).toHaveLength(2);
}, 300_000);
