// The sandbox process runs from one committed CommonJS bundle: it must match the
// sources, load nothing but Node built-ins and isolated-vm, and be what the process
// sandbox actually starts (a TypeScript or ESM child compiles WebAssembly, and V8's
// WebAssembly code GC deadlocked isolated-vm isolates in a fresh child under load).
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from '@jest/globals';
import {
  bundleSandboxProcess,
  SANDBOX_PROCESS_BUNDLE,
  SANDBOX_PROCESS_EXTERNALS,
} from '../../sandbox/bundle-sandbox-process.ts';
import { createSandbox } from '../../sandbox/index.ts';
import { ProcessSandbox } from '../../sandbox/process-sandbox.ts';
import { expectOk, fakeHost } from './helpers.ts';

const committed = readFileSync(SANDBOX_PROCESS_BUNDLE, 'utf8');

describe('sandbox process bundle', () => {
  it('is up to date with the sources (run `npm run bundle` after changing sandbox/)', async () => {
    expect(await bundleSandboxProcess()).toBe(committed);
  });

  it('is CommonJS that requires only Node built-ins and isolated-vm (no esbuild, no TypeScript, no import())', () => {
    const required = [...committed.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1] ?? '');
    const packages = required.filter((name) => !name.startsWith('node:'));
    expect([...new Set(packages)]).toStrictEqual([...SANDBOX_PROCESS_EXTERNALS]);
    expect(committed).not.toMatch(/\bimport\(|import\.meta|esbuild|typescript/);
  });

  describe('what the process sandbox starts', () => {
    const sandbox = createSandbox({ isolation: 'process', processes: 1, poolSize: 1 });
    afterAll(() => sandbox.close());

    it('every sandbox process runs the bundle with --no-node-snapshot and --no-sparkplug', async () => {
      const outcome = await sandbox.run({ code: 'return 6 * 7', toolNames: [], hostCall: fakeHost().hostCall });
      expectOk(outcome, 42);
      const pid = sandbox instanceof ProcessSandbox ? sandbox.childPid : undefined;
      expect(pid).toBeDefined();
      const argv = readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8').split('\0');
      expect(argv).toContain('--no-node-snapshot');
      expect(argv).toContain('--no-sparkplug');
      expect(argv).toContain(SANDBOX_PROCESS_BUNDLE);
      expect(argv.some((arg) => arg.endsWith('.ts') || arg.endsWith('.mjs'))).toBe(false);
    });
  });
});
