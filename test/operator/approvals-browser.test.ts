// The approvals page in a real browser: Debian's Chromium (/usr/bin/chromium, installed
// by scripts/ensure-test-servers.sh; nothing is downloaded) driven by puppeteer-core
// against a real `ptc serve --http` process with an operator token. The operator signs
// in (the token stays in sessionStorage: not in the URL, no cookie), the model's client
// runs a program that pauses on three gated writes, the page shows it by itself (live
// update), the operator approves two and denies one (the confirmation repeats each call
// and its arguments) and sees the run finish. Screenshots go to .scratch/screenshots/.
import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import puppeteer, { type Browser } from 'puppeteer-core';
import type { PausedRun } from '../../src/index.ts';
import { readBodyLog } from '../durable-runs/fixtures/gated-tools.ts';
import { REPO, spawnServe } from '../mcp/helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const TOOLS = fileURLToPath(new URL('./fixtures/agents-gated-tools.ts', import.meta.url));
const MODEL_TOKEN = 'browser-model-token-0123456789';
const OPERATOR_TOKEN = 'browser-operator-token-0123456789';
const SHOTS = join(REPO, '.scratch', 'screenshots', 'approvals-page');
/** Generous: a loaded 2-core machine runs the browser, the server and the sandbox at once. */
const STEP_MS = 60_000;
let dir = '';
const cleanups: (() => Promise<void>)[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-approvals-browser-'));
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

it('an operator signs in, sees a paused run with three pending calls, approves two, denies one and sees it finish', async () => {
  const log = join(dir, 'bodies.log');
  const served = await spawnServe(
    cleanups,
    ['--mode', 'ptc', '--approval', 'pause', '--journal', join(dir, 'journal.jsonl'), '--tools', TOOLS],
    { PTC_SERVE_TOKEN: MODEL_TOKEN, PTC_OPERATOR_TOKEN: OPERATOR_TOKEN, PTC_TEST_BODY_LOG: log },
  );
  const pageUrl = new URL('/runs', served.url).href;
  const browser = await launch();
  const page = await browser.newPage();
  page.setDefaultTimeout(STEP_MS);
  await page.setViewport({ width: 1100, height: 900 });
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.accept();
  });

  await page.goto(pageUrl, { waitUntil: 'load' });
  await page.waitForSelector('#signin:not([hidden])');
  await page.screenshot({ path: join(SHOTS, '1-sign-in.png') });
  await page.type('#token', OPERATOR_TOKEN);
  await page.click('#signin-button');
  // Functions run in the page are given as text: this project's types have no DOM.
  await page.waitForFunction("document.getElementById('state')?.textContent?.startsWith('Signed in') === true");
  expect(await page.$eval('main#runs', (m) => m.textContent)).toMatch(/No run is waiting/);
  // The token lives in this tab only: no URL, no cookie.
  expect(page.url()).toBe(pageUrl);
  expect(await page.evaluate("[document.cookie, sessionStorage.getItem('ptc-operator-token')]")).toStrictEqual([
    '',
    OPERATOR_TOKEN,
  ]);

  // The model's client runs a program that pauses; the open page shows it by itself.
  const model = new Client({ name: 'approvals-browser', version: '1' });
  await model.connect(
    new StreamableHTTPClientTransport(new URL(served.url), {
      requestInit: { headers: { authorization: `Bearer ${MODEL_TOKEN}` } },
    }),
  );
  cleanups.push(() => model.close());
  const first = (await model.callTool({
    name: 'run_code',
    arguments: {
      description: 'Restock three shelves',
      code: `
        const base = await tools.read({ n: 1 });
        const all = await Promise.allSettled([tools.write({ v: base + 1 }), tools.write({ v: base + 2 }), tools.write({ v: '<b>three</b>' })]);
        return all.map((s) => (s.status === 'fulfilled' ? s.value.wrote : s.reason.code));`,
    },
  })) as CallToolResult;
  const paused = (first.structuredContent as { paused: PausedRun }).paused;
  const run = `section.run[data-run-id="${paused.runId}"]`;
  await page.waitForSelector(run);
  expect(
    await page.$$eval(`${run} li.pending`, (items) => items.map((li) => li.querySelector('pre')?.textContent)),
  ).toStrictEqual(['{\n  "v": 11\n}', '{\n  "v": 12\n}', '{\n  "v": "<b>three</b>"\n}']);
  expect(await page.$eval(`${run} details.calls`, (d) => d.textContent)).toMatch(/read\(\{\s*"n": 1\s*\}\) → 10/);
  await page.screenshot({ path: join(SHOTS, '2-paused-run.png'), fullPage: true });

  const [a, b, c] = paused.pending.map((p) => p.callId);
  for (const [callId, choice] of [
    [a, 'approve'],
    [b, 'approve'],
    [c, 'deny'],
  ] as const)
    await page.click(`${run} input[name="d:${callId}"][value="${choice}"]`);
  await page.click(`${run} button.send`);
  await page.waitForFunction(
    `document.getElementById('outcomes')?.textContent?.includes(${JSON.stringify(`Run ${paused.runId} finished`)}) === true`,
  );
  await page.waitForFunction("document.querySelector('section.run') === null");
  await page.screenshot({ path: join(SHOTS, '3-finished.png'), fullPage: true });

  expect(dialogs).toHaveLength(1);
  expect(dialogs[0]).toMatch(
    /APPROVE write \{\s*"v": 11\s*\}[\s\S]*APPROVE write \{\s*"v": 12\s*\}[\s\S]*DENY write \{\s*"v": "<b>three<\/b>"\s*\}/,
  );
  expect(await page.$eval('#outcomes', (o) => o.textContent)).toContain('finished: [11,12,"DENIED"]');
  expect(readBodyLog(log).map((r) => `${r.name}:${JSON.stringify(r.args)}`)).toStrictEqual([
    'read:{"n":1}',
    'write:{"v":11}',
    'write:{"v":12}',
  ]);
}, 300_000);
