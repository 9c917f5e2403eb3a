// A sandbox process starts with the host's environment less NODE_OPTIONS, and with malloc
// asked for transparent huge pages (a glibc tunable) unless the host set that tunable.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { ProcessSandbox } from '../../sandbox/index.ts';
import { HUGE_PAGES_TUNABLE, sandboxProcessEnv } from '../../sandbox/sandbox-process-env.ts';
import { expectOk, fakeHost } from './helpers.ts';

describe('sandbox process environment', () => {
  it('adds the huge-pages tunable, keeps the host’s other tunables and its own choice, drops NODE_OPTIONS', () => {
    const host = { PATH: '/bin', NODE_OPTIONS: '--max-old-space-size=64' };
    const env = sandboxProcessEnv(host);
    expect(env).toStrictEqual({ PATH: '/bin', GLIBC_TUNABLES: HUGE_PAGES_TUNABLE });
    expect(host.NODE_OPTIONS).toBe('--max-old-space-size=64'); // the host's own is untouched
    expect(sandboxProcessEnv({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' })['GLIBC_TUNABLES']).toBe(
      `glibc.malloc.arena_max=2:${HUGE_PAGES_TUNABLE}`,
    );
    expect(sandboxProcessEnv({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0' })['GLIBC_TUNABLES']).toBe(
      'glibc.malloc.hugetlb=0',
    );
    expect(sandboxProcessEnv({ GLIBC_TUNABLES: '' })['GLIBC_TUNABLES']).toBe(HUGE_PAGES_TUNABLE);
  });

  if (process.platform === 'linux') {
    it('a sandbox process runs with it (and without the host’s NODE_OPTIONS)', async () => {
      const sandbox = new ProcessSandbox({ processes: 1, poolSize: 0 });
      try {
        expectOk(await sandbox.run({ code: 'return 1', toolNames: [], hostCall: fakeHost().hostCall }), 1);
        const [pid] = sandbox.childPids;
        const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
        expect(environ).toContain(`GLIBC_TUNABLES=${HUGE_PAGES_TUNABLE}`);
        expect(environ.some((entry) => entry.startsWith('NODE_OPTIONS='))).toBe(false);
      } finally {
        await sandbox.close();
      }
    });
  }
});
