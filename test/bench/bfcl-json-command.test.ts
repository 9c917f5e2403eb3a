// The pinned command `npm run bench:bfcl -- --data <dir> --json`, run exactly so from the
// checkout as a fresh shell runs it (no npm settings inherited from the npm that started
// jest): stdout is one JSON object and nothing else, and a failing run still shows its
// own message and exit code although npm is quiet in this checkout (.npmrc).
import { execFile } from 'node:child_process';
import { delimiter, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const root = fileURLToPath(new URL('../..', import.meta.url));
// The three BFCL multi-turn entries bfcl.test.ts runs (in the upstream layout).
const DATA = 'test/bench/fixtures/bfcl';

/** This process's environment without npm's own variables, with this Node first on PATH. */
function freshShellEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(name) && name !== 'NODE_OPTIONS' && name !== 'INIT_CWD') env[name] = value;
  }
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

describe('npm run bench:bfcl -- --data <dir> --json', () => {
  it('prints exactly one JSON object on stdout, with the pinned fields', async () => {
    const { code, stdout, stderr } = await npm(['run', 'bench:bfcl', '--', '--data', DATA, '--json']);
    expect({ code, stderr: code === 0 ? '' : stderr }).toStrictEqual({ code: 0, stderr: '' });
    const report: unknown = JSON.parse(stdout);
    expect(typeof report === 'object' && report !== null && !Array.isArray(report)).toBe(true);
    expect(stdout.trimEnd().split('\n')).toHaveLength(1);
    const counts = {
      passed: 3,
      modelRequests: expect.any(Number),
      toolCalls: expect.any(Number),
      contextTokens: expect.any(Number),
      totalTokens: expect.any(Number),
    };
    expect(report).toMatchObject({ entries: 3, native: counts, nativeParallel: counts, ptc: counts });
    // The same counts the harness reports when called directly (bfcl.test.ts).
    expect(report).toMatchObject({
      native: { modelRequests: 17, toolCalls: 10 },
      nativeParallel: { modelRequests: 13, toolCalls: 10 },
      ptc: { modelRequests: 13, toolCalls: 6 },
    });
  }, 120_000);

  it('a failing run shows its own message and exit code, with nothing on stdout', async () => {
    const { code, stdout, stderr } = await npm(['run', 'bench:bfcl', '--', '--json']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^usage: npm run bench:bfcl -- --data <dir>/m);
    expect(stdout).toBe('');
  }, 120_000);
});
