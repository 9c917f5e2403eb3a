// A resume whose program asks for other calls than the journal has (here: the resuming
// host registers one more tool, and the program branches on it) stops with
// CODE_RUN_FAILED kind 'diverged', naming the first differing call; nothing runs twice.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineTool, type PausedRun } from '../../src/index.ts';
import { gatedRuntime, readBodyLog, runCall } from './fixtures/gated-tools.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-diverge-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('a diverging resume is stopped at the first differing call, and no body runs twice', async () => {
  const journal = join(dir, 'j.jsonl');
  const log = join(dir, 'bodies.log');
  const sandbox = { sandbox: { isolation: 'in-process' as const, poolSize: 1 } };
  const code = `const r = await tools.read({ n: 'extra' in tools ? 9 : 1 });
return (await tools.write({ v: r })).wrote;`;
  const first = gatedRuntime(journal, log, sandbox);
  const result = await first.execute(runCall('c1', code));
  const paused = (result.value as unknown as { paused: PausedRun }).paused;
  await first.close();

  const second = gatedRuntime(journal, log, sandbox);
  second.register(
    defineTool({
      name: 'extra',
      description: 'A tool the first host did not have.',
      parameters: {},
      output: { schema: { type: 'json' }, render: () => [] },
      execute: () => null,
    }),
  );
  const final = await second.resume(paused.runId, { 'c1:ptc:2': 'approve' });
  expect(final.isError).toBe(true);
  expect(final.error?.info).toMatchObject({ kind: 'diverged' });
  expect(final.error?.message).toContain(
    `The re-run of run ${paused.runId} diverged from its earlier attempt at call #1: the program called tools.read({"n":9}) where the journal has tools.read({"n":1})`,
  );
  // The read ran once (first attempt); the diverging call and the write never ran.
  expect(readBodyLog(log).map((b) => `${b.name}:${JSON.stringify(b.args)}`)).toStrictEqual(['read:{"n":1}']);
  // The run has ended (failed): it is no longer listed.
  expect(await second.runs()).toStrictEqual([]);
  await second.close();
}, 30_000);
