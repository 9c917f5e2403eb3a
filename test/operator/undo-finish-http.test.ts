// Interrupted undos on the approvals routes over real HTTP (serveMcpHttp with an operator
// token): an undo a crash interrupted (its rows as the dead process left them: the revert
// of #3 done, #2 not started) is listed in undos.json and on the page, and the operator
// finishes it on this server: only #2 is reverted, and the outcome is the whole undo's.
// Only the operator's token may; the page's script parses.
import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolRuntime } from '../../src/index.ts';
import { serveMcpHttp } from '../../src/mcp/index.ts';
import { APPROVALS_SCRIPT } from '../../src/operator/approvals-script.ts';
import { registerUndoShop } from '../preview/fixtures/undo-shop.ts';

const MODEL_TOKEN = 'undo-model-token-0123456789';
const OPERATOR_TOKEN = 'undo-operator-token-0123456789';
let dir = '';
const cleanups: (() => Promise<void>)[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-undo-http-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

const refund = (seq: number, order: number) => ({ seq, name: 'refund', arguments: { order, amount: order * 10 } });
const base = { callId: 'plan:p-1', name: 'run_code', planId: 'p-1', at: 1 };

it('an operator finishes an interrupted undo over HTTP: what was reverted does not run again', async () => {
  expect(() => new Function(APPROVALS_SCRIPT)).not.toThrow();
  const journal = join(dir, 'undo.jsonl');
  const rows = [
    {
      ...base,
      type: 'plan/undo',
      agent: null,
      principal: null,
      applied: [refund(2, 1), refund(3, 3)],
      toRevert: [
        { ...refund(3, 3), result: { refundId: 'r-3' } },
        { ...refund(2, 1), result: { refundId: 'r-1' } },
      ],
      notUndone: [],
    },
    { ...base, type: 'plan/revert', seq: 3, phase: 'start' },
    { ...base, type: 'plan/revert', seq: 3, phase: 'done' },
  ];
  writeFileSync(journal, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const rt = createToolRuntime({ mode: 'ptc', journal, sandbox: { poolSize: 1 } });
  const reverts: string[] = [];
  registerUndoShop(rt, (entry) => reverts.push(entry));
  const server = await serveMcpHttp(rt, { token: MODEL_TOKEN, operatorToken: OPERATOR_TOKEN, maxBodyBytes: 4096 });
  cleanups.push(async () => {
    await server.close();
    await rt.close();
  });
  const url = new URL('/', server.url).href.slice(0, -1);
  const get = (path: string, token?: string) =>
    fetch(`${url}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  const finish = (planId: string, token: string | undefined, type = 'application/json') =>
    fetch(`${url}/undos/${encodeURIComponent(planId)}/finish`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': type, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    });

  for (const token of [undefined, MODEL_TOKEN]) expect((await get('/undos.json', token)).status).toBe(401);
  expect(await (await get('/undos.json', OPERATOR_TOKEN)).json()).toStrictEqual({
    undos: [
      {
        planId: 'p-1',
        startedAt: 1,
        applied: [refund(2, 1), refund(3, 3)],
        undone: [refund(3, 3)],
        pending: [refund(2, 1)],
      },
    ],
  });
  const page = await (await get('/runs', OPERATOR_TOKEN)).text();
  expect(page).toContain('<section class="undo" data-plan-id="p-1">');
  expect(page).toContain('button type="button" class="finish-undo"');

  expect((await finish('p-1', MODEL_TOKEN)).status).toBe(401);
  expect((await finish('p-1', OPERATOR_TOKEN, 'text/plain')).status).toBe(415);
  const unknown = await finish('p-2', OPERATOR_TOKEN);
  expect([unknown.status, await unknown.json()]).toMatchObject([404, { error: { code: 'UNDO_UNKNOWN' } }]);
  expect(reverts).toStrictEqual([]);

  const done = await finish('p-1', OPERATOR_TOKEN);
  const outcome = {
    planId: 'p-1',
    applied: [refund(2, 1), refund(3, 3)],
    undone: [refund(3, 3), refund(2, 1)],
    notUndone: [],
  };
  expect([done.status, await done.json()]).toStrictEqual([200, outcome]);
  expect(reverts).toStrictEqual(['revert:1']);
  expect(await (await get('/undos.json', OPERATOR_TOKEN)).json()).toStrictEqual({ undos: [] });
  // Finished: asking again answers the outcome and runs nothing.
  expect(await (await finish('p-1', OPERATOR_TOKEN)).json()).toStrictEqual(outcome);
  expect(reverts).toStrictEqual(['revert:1']);
}, 60_000);
