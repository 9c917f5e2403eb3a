// `ptc runs list|show|approve|deny|resume --journal <path>`, in-process through main():
// a run paused by one runtime is listed, shown, partly approved (it pauses again on the
// undecided call), then denied to its end; a refused resume is one line and exit 1.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../support/run-cli.ts';
import type { PausedRun } from '../../src/index.ts';
import { gatedRuntime, readBodyLog, runCall } from './fixtures/gated-tools.ts';

const MODULE = fileURLToPath(new URL('./fixtures/gated-tools-module.ts', import.meta.url));

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-runs-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cli = runCli;

it('lists, shows, approves part, denies the rest; refuses what cannot be resumed', async () => {
  const journal = join(dir, 'session.jsonl');
  const log = join(dir, 'bodies.log');
  process.env.PTC_TEST_BODY_LOG = log;
  const rt = gatedRuntime(journal, log, { sandbox: { isolation: 'in-process', poolSize: 1 } });
  const first = await rt.execute(
    runCall(
      'call-9',
      'const r = await Promise.allSettled([tools.write({ v: 1 }), tools.write({ v: 2 })]); return r.map((x) => x.status === "fulfilled" ? x.value.wrote : x.reason.code);',
    ),
  );
  await rt.close();
  const { runId } = (first.value as unknown as { paused: PausedRun }).paused;
  const flags = ['--journal', journal, '--tools', MODULE];

  const list = await cli('runs', 'list', ...flags);
  expect(list).toMatchObject({ code: 0, err: '' });
  expect(list.out).toMatch(new RegExp(`^${runId}  paused .* call-9  2 pending .* A durable program\\n$`));

  const shown = await cli('runs', 'show', runId, ...flags);
  expect(shown.code).toBe(0);
  expect(shown.out).toContain('pending call-9:ptc:1: tools.write({"v":1}) — Write 1?');
  expect(shown.out).toContain('pending call-9:ptc:2: tools.write({"v":2})');

  // Approve one: the other is still undecided, so the run pauses again on it.
  const part = await cli('runs', 'approve', runId, 'call-9:ptc:1', ...flags);
  expect(part.code).toBe(0);
  expect(part.out).toMatch(/The program is paused .*1 tool call awaits/);
  expect(part.out).toContain('call-9:ptc:2');

  const rest = await cli('runs', 'deny', runId, ...flags, '--json');
  expect(rest.code).toBe(0);
  expect(JSON.parse(rest.out).value.result).toStrictEqual([1, 'DENIED']);
  expect(readBodyLog(log).map((b) => JSON.stringify(b.args))).toStrictEqual(['{"v":1}']);

  expect((await cli('runs', 'list', ...flags)).out).toBe('no paused or interrupted runs\n');
  const gone = await cli('runs', 'resume', runId, ...flags);
  expect(gone).toMatchObject({ code: 2, out: '' });
  expect(gone.err).toMatch(/^ptc: no paused or interrupted run .* \(ptc runs list shows them\)\n$/);
  const missing = await cli('runs', 'list');
  expect(missing.code).toBe(2);
  expect(missing.err).toMatch(/--journal/);
}, 60_000);

it('approve, deny and resume refuse without the host tools (exit 2); the wrong tools leave the run paused, naming the missing tool', async () => {
  const journal = join(dir, 'no-tools.jsonl');
  const log = join(dir, 'no-tools.log');
  process.env.PTC_TEST_BODY_LOG = log;
  const rt = gatedRuntime(journal, log, { sandbox: { isolation: 'in-process', poolSize: 1 } });
  const first = await rt.execute(runCall('call-7', 'return (await tools.write({ v: 7 })).wrote;'));
  await rt.close();
  const { runId } = (first.value as unknown as { paused: PausedRun }).paused;

  for (const command of [
    ['approve', runId],
    ['deny', runId],
    ['resume', runId],
  ]) {
    const refused = await cli('runs', ...command, '--journal', journal);
    expect(refused).toMatchObject({ code: 2, out: '' });
    expect(refused.err).toBe(
      `ptc: runs ${command[0]} resumes the run in this process: give the host's tools with --tools <module>, --mcp <command line> or --mcp-url <url>\n`,
    );
  }
  // The built-in example tools are not the host's: the run is refused before anything of it runs.
  const wrong = await cli('runs', 'approve', runId, '--journal', journal, '--demo-tools');
  expect(wrong.code).toBe(1);
  expect(wrong.err).toMatch(
    /^ptc: run .* uses tool "write" that this runtime does not have; the run was left as it was .*\(TOOL_MISSING\)\n$/,
  );
  const list = await cli('runs', 'list', '--journal', journal, '--tools', MODULE);
  expect(list.out).toMatch(new RegExp(`^${runId}  paused .* call-7  1 pending`));
  const approved = await cli('runs', 'approve', runId, '--journal', journal, '--tools', MODULE, '--json');
  expect(JSON.parse(approved.out).value.result).toBe(7);
  expect(readBodyLog(log).map((b) => JSON.stringify(b.args))).toStrictEqual(['{"v":7}']);
}, 60_000);
