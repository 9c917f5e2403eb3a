// A sandbox process starts with the host's environment less NODE_OPTIONS; malloc's
// tunables are the host's (none is added).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { ProcessSandbox } from '../../sandbox/index.ts';
import { sandboxProcessEnv } from '../../sandbox/sandbox-process-env.ts';
import { expectOk, fakeHost } from './helpers.ts';

describe('sandbox process environment', () => {
  it('drops NODE_OPTIONS and keeps the rest, the host’s GLIBC_TUNABLES as they are', () => {
    const host = { PATH: '/bin', NODE_OPTIONS: '--max-old-space-size=64' };
    const env = sandboxProcessEnv(host);
    expect(env).toStrictEqual({ PATH: '/bin' });
    expect(host.NODE_OPTIONS).toBe('--max-old-space-size=64'); // the host's own is untouched
    expect(sandboxProcessEnv({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' })).toStrictEqual({
      GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1',
    });
  });

  if (process.platform === 'linux') {
    it('a sandbox process runs with it (without the host’s NODE_OPTIONS, no tunable added)', async () => {
      const sandbox = new ProcessSandbox({ processes: 1, poolSize: 0 });
      try {
        expectOk(await sandbox.run({ code: 'return 1', toolNames: [], hostCall: fakeHost().hostCall }), 1);
        const [pid] = sandbox.childPids;
        const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
        expect(environ.filter((entry) => entry.startsWith('GLIBC_TUNABLES='))).toStrictEqual(
          process.env['GLIBC_TUNABLES'] === undefined ? [] : [`GLIBC_TUNABLES=${process.env['GLIBC_TUNABLES']}`],
        );
        expect(environ.some((entry) => entry.startsWith('NODE_OPTIONS='))).toBe(false);
      } finally {
        await sandbox.close();
      }
    });
  }
});
