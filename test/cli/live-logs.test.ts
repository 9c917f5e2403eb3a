// `ptc run` on a terminal prints the program's log lines as they happen, then only the
// returned value; off a terminal (and with --json) everything comes once, at the end.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.ts';
import { timeline } from './fixtures/recording-tools.ts';

const TOOLS = fileURLToPath(new URL('./fixtures/recording-tools.ts', import.meta.url));
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-live-'));
  await writeFile(
    join(dir, 'steps.ts'),
    'console.log("step 1"); const r = await tools.note({ text: "a" }); console.log("step 2", r); return { done: true };',
  );
  await writeFile(join(dir, 'quiet.ts'), 'console.log("only a log");');
  await writeFile(
    join(dir, 'fails.ts'),
    'console.log("before"); await tools.note({ text: "b" }); throw new Error("nope");',
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function run(
  file: string,
  liveLogs: boolean,
  ...flags: string[]
): Promise<{ code: number; out: string[]; err: string }> {
  timeline.length = 0;
  const out: string[] = [];
  let err = '';
  const code = await main(['run', join(dir, file), '--tools', TOOLS, ...flags], {
    out: (t) => {
      out.push(t);
      timeline.push(`out: ${t}`);
    },
    err: (t) => (err += t),
    liveLogs,
  });
  return { code, out, err };
}

describe('ptc run: live log lines on a terminal', () => {
  it('prints each log line before the work after it, then the returned value alone', async () => {
    const r = await run('steps.ts', true);
    expect(r.code).toBe(0);
    expect(timeline).toEqual(['out: step 1\n', 'tool ran: a', 'out: step 2 a\n', 'out: {\n  "done": true\n}\n']);
  });

  it('prints nothing more after the logs when the program returns nothing', async () => {
    const r = await run('quiet.ts', true);
    expect(r).toEqual({ code: 0, out: ['only a log\n'], err: '' });
  });

  it('a failure still prints its whole text on stderr', async () => {
    const r = await run('fails.ts', true);
    expect(r.code).toBe(1);
    expect(r.out).toEqual(['before\n']);
    expect(r.err).toMatch(/run_code failed \(exception\): Error: nope[\s\S]*Captured output:\nbefore\n$/);
  });

  it('off a terminal, and with --json, the output comes once at the end', async () => {
    const plain = await run('steps.ts', false);
    expect(timeline).toEqual(['tool ran: a', 'out: step 1\nstep 2 a\n{\n  "done": true\n}\n']);
    expect(plain.code).toBe(0);
    const json = await run('steps.ts', true, '--json');
    expect(json.out).toHaveLength(1);
    expect(JSON.parse(json.out[0]!)).toMatchObject({
      isError: false,
      value: { logs: ['step 1', 'step 2 a'], result: { done: true } },
    });
  });
});
