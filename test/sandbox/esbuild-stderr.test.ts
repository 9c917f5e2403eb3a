// esbuild's service prints a crash (a Go stack overflow on a hostile program: hundreds of
// lines of goroutine dump) on its stderr. That output goes to a file of ours, never to the
// host's stderr (nor into the test output), and with PTC_ESBUILD_CRASH_DIR (the test command
// sets it) each crash's whole output is kept there, in a file the compile failure names.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// Set before the modules load (they read it once); the test command sets it already.
const ownDir = process.env['PTC_ESBUILD_CRASH_DIR'] === undefined ? mkdtempSync(join(tmpdir(), 'ptc-crashes-')) : '';
if (ownDir !== '') process.env['PTC_ESBUILD_CRASH_DIR'] = ownDir;

let stderrModule: typeof import('../../sandbox/esbuild-stderr.ts');
let service: typeof import('../../sandbox/esbuild-service.ts');
beforeAll(async () => {
  stderrModule = await import('../../sandbox/esbuild-stderr.ts');
  service = await import('../../sandbox/esbuild-service.ts');
});
afterAll(async () => {
  await (await import('esbuild')).stop();
  if (ownDir !== '') rmSync(ownDir, { recursive: true, force: true });
});

/** The esbuild service processes this process started, with where their stderr goes. */
function esbuildChildren(): { pid: string; stderr: string }[] {
  const lines = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return lines
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(
      ([, command, ...args]) =>
        command !== undefined && /esbuild$/.test(command) && args.some((a) => a.startsWith('--service')),
    )
    .map(([pid]) => ({ pid: pid!, stderr: readlinkSync(`/proc/${pid}/fd/2`) }));
}

describe("esbuild's stderr", () => {
  it('the compiler service a compile starts writes its stderr to a file of ours, not to the host', async () => {
    // Services other test files of this worker started (with esbuild loaded their own way)
    // may still be alive: only the one this compile starts is looked at.
    const before = new Set(esbuildChildren().map((child) => child.pid));
    const compiled = await service.boundedTransform('const x: number = 1;', { loader: 'ts' }, 60_000);
    expect(compiled.ok).toBe(true);
    const children = esbuildChildren().filter((child) => !before.has(child.pid));
    expect(children.length).toBeGreaterThan(0);
    for (const child of children) expect(child.stderr).toMatch(/ptc-esbuild-[^/]+\/stderr\.log$/);
  });

  it('what the service writes is kept whole in a file the failure names, and taken once', async () => {
    const wrapper = process.env['ESBUILD_BINARY_PATH']!;
    expect(wrapper).toMatch(/ptc-esbuild-[^/]+\/esbuild$/);
    // The binary itself, through the same wrapper: an unknown flag makes it write to stderr and exit 1.
    const exit = await new Promise<number | null>((resolve) =>
      execFile(wrapper, ['--no-such-flag'], (error) => resolve(error === null ? 0 : (error.code as number | null))),
    );
    expect(exit).not.toBe(0);
    const said = stderrModule.takeEsbuildStderr();
    const file = /its whole output: (\S+\.log)$/.exec(said)?.[1];
    expect(file).toBeDefined();
    expect(file!.startsWith(`${resolve(process.env['PTC_ESBUILD_CRASH_DIR']!)}/`)).toBe(true);
    expect(readFileSync(file!, 'utf8')).toContain('no-such-flag');
    expect(stderrModule.takeEsbuildStderr()).toBe(''); // emptied once read
  });
});
