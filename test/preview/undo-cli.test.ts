// `ptc runs undos` and `ptc runs finish-undo <planId>`, in-process through main(): an undo
// a crash interrupted (its rows as the dead process left them: the revert of #3 done, #2
// not started) is listed, and finished with the host's tools: only #2 is reverted; asking
// again answers the same outcome and reverts nothing.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../support/run-cli.ts';

const MODULE = fileURLToPath(new URL('./fixtures/undo-tools-module.ts', import.meta.url));
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-undo-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cli = runCli;

const refund = (seq: number, order: number) => ({ seq, name: 'refund', arguments: { order, amount: order * 10 } });
const base = { callId: 'plan:p-1', name: 'run_code', planId: 'p-1', at: 1 };

it('lists an interrupted undo and finishes it: a revert recorded as done does not run again', async () => {
  const journal = join(dir, 'undo.jsonl');
  const log = join(dir, 'bodies.log');
  process.env.PTC_TEST_BODY_LOG = log;
  await writeFile(log, '');
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
  await writeFile(journal, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const flags = ['--journal', journal, '--tools', MODULE];

  const listed = await cli('runs', 'undos', ...flags);
  expect(listed).toMatchObject({ code: 0, err: '' });
  expect(listed.out).toMatch(/^p-1 {2}2 applied {2}1 undone {2}1 to revert {2}/);

  const finished = await cli('runs', 'finish-undo', 'p-1', ...flags);
  expect(finished).toMatchObject({ code: 0, err: '' });
  expect(finished.out).toBe(
    'plan p-1: applied #2 tools.refund, #3 tools.refund; undone (last first) #3 tools.refund, #2 tools.refund\n',
  );
  expect(await readFile(log, 'utf8')).toBe('revert:1\n');

  expect((await cli('runs', 'undos', ...flags)).out).toBe('no interrupted undos\n');
  const again = await cli('runs', 'finish-undo', 'p-1', ...flags, '--json');
  expect(JSON.parse(again.out)).toMatchObject({ undone: [{ seq: 3 }, { seq: 2 }], notUndone: [] });
  expect(await readFile(log, 'utf8')).toBe('revert:1\n');

  const unknown = await cli('runs', 'finish-undo', 'p-2', ...flags);
  expect(unknown.code).toBe(1);
  expect(unknown.err).toMatch(/UNDO_UNKNOWN/);
  const noTools = await cli('runs', 'finish-undo', 'p-1', '--journal', journal);
  expect(noTools.code).not.toBe(0);
  expect(noTools.err).toMatch(/give the host's tools/);
}, 60_000);
