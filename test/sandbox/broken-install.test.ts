// A sandbox process that dies at start says why: with an isolated-vm that cannot be loaded
// (built for another Node.js version) the run's failure quotes the error, not only "exit
// code 1" (process mode's host does not load isolated-vm itself). The probe runs a copy of
// the sandbox with such an isolated-vm (fixtures/broken-install-probe.ts).
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const PROBE = fileURLToPath(new URL('./fixtures/broken-install-probe.ts', import.meta.url));

describe('a sandbox process that cannot start', () => {
  it('fails the run with what the process wrote when it died (the isolated-vm load error)', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--no-node-snapshot', '--disable-warning=ExperimentalWarning', PROBE],
      { env: { ...process.env, NODE_OPTIONS: '' }, timeout: 90_000 },
    );
    const outcome = JSON.parse(stdout) as { ok: boolean; kind?: string; message?: string };
    expect(outcome).toMatchObject({ ok: false, kind: 'crash' });
    expect(outcome.message).toMatch(
      /exit code 1; at start it wrote: Error: The module 'isolated_vm\.node' was compiled against a different Node\.js version \(stand-in\)/,
    );
  }, 120_000);
});
