// The pinned command `npm run -s bench:tau2 -- --data <dir> --json`, run from the checkout
// as a fresh shell runs it (two tasks of the fixture, so it stays quick): stdout is one
// JSON object on one line with the pinned fields for every mode.
import { execFile } from 'node:child_process';
import { delimiter, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const root = fileURLToPath(new URL('../..', import.meta.url));
const DATA = 'test/bench/fixtures/tau2-retail';

/** This process's environment without npm's own variables, with this Node first on PATH. */
function freshShellEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!/^npm_/i.test(name) && name !== 'NODE_OPTIONS' && name !== 'INIT_CWD') env[name] = value;
  env['PATH'] = [dirname(process.execPath), process.env['PATH'] ?? ''].join(delimiter);
  return env;
}

function npm(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('npm', args, { cwd: root, env: freshShellEnv(), timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('npm run -s bench:tau2 -- --data <dir> --json', () => {
  it('prints exactly one JSON object on stdout, with the pinned fields for each mode', async () => {
    const { code, stdout, stderr } = await npm([
      'run',
      '-s',
      'bench:tau2',
      '--',
      '--data',
      DATA,
      '--json',
      '--tasks',
      '0,40',
    ]);
    expect({ code, stderr: code === 0 ? '' : stderr }).toStrictEqual({ code: 0, stderr: '' });
    expect(stdout.trimEnd().split('\n')).toHaveLength(1);
    const mode = {
      passed: 2,
      modelRequests: expect.any(Number),
      toolCalls: expect.any(Number),
      contextTokens: expect.any(Number),
      totalTokens: expect.any(Number),
    };
    expect(JSON.parse(stdout)).toMatchObject({ tasks: 2, native: mode, nativeParallel: mode, ptc: mode, failures: [] });
  }, 150_000);

  it('says what is wrong when the folder holds no retail data', async () => {
    const { code, stderr } = await npm(['run', '-s', 'bench:tau2', '--', '--data', 'test/bench/fixtures', '--json']);
    expect(code).not.toBe(0);
    expect(stderr).toContain('db.json: not found');
  }, 150_000);

  it('refuses live-model flags it cannot use before any task runs, saying which', async () => {
    const run = (...flags: string[]) => npm(['run', '-s', 'bench:tau2', '--', '--data', DATA, ...flags]);
    const [unknown, noModel, badRepeat] = await Promise.all([
      run('--model', 'anthropic:some-model', '--user-model', 'gemini:x'),
      run('--repeat', '2'),
      run('--model', 'openai:some-model', '--repeat', '0'),
    ]);
    expect(unknown).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'bench:tau2: unknown provider gemini (anthropic or openai)\n',
    });
    expect(noModel.stderr).toContain('--repeat wants a whole number of 1 or more, and goes with --model');
    expect(badRepeat.stderr).toContain('--repeat wants a whole number of 1 or more');
  }, 150_000);
});
