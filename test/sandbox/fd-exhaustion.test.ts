// A host that runs out of file descriptors (a busy server at its open-file limit) keeps
// running: the run that could not load the sandbox, start the compiler or fork its process
// fails with the reason, and once descriptors are free again the same runtime runs programs. The probe
// runs in its own process under `ulimit -n` (fixtures/fd-exhaustion-probe.ts).
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const PROBE = fileURLToPath(new URL('./fixtures/fd-exhaustion-probe.ts', import.meta.url));

describe('a host with no free file descriptor', () => {
  it('fails the runs that came then with the reason, survives, and runs programs once descriptors are free', async () => {
    const { stdout, stderr } = await promisify(execFile)(
      'sh',
      [
        '-c',
        'ulimit -n 96 && exec "$0" "$@"',
        process.execPath,
        '--no-node-snapshot',
        '--conditions=ptc-source',
        '--disable-warning=ExperimentalWarning',
        PROBE,
      ],
      { env: { ...process.env, NODE_OPTIONS: '' }, timeout: 90_000 },
    );
    const report = JSON.parse(stdout) as Record<string, { isError: boolean; text: string }>;
    // The sandbox's modules could not be read: that load is not kept, the next run loads them.
    expect(report['loadFailed']).toEqual({ isError: true, text: expect.stringMatching(/EMFILE/) });
    // esbuild's service could not be started: the run says so, and the host did not crash
    // on the spawn's 'error' (esbuild listens for it only after setting up the pipes).
    expect(report['compileFailed']).toEqual({
      isError: true,
      text: expect.stringMatching(/compiler could not be started \(this host has no free file descriptor.*EMFILE/),
    });
    expect(report['loadRetried']).toEqual({ isError: false, text: '2' });
    // No sandbox process could be forked: the run says so (the host did not crash on the
    // spawn's 'error'), and a later run gets a process.
    expect(report['forkFailed']).toEqual({
      isError: true,
      text: expect.stringMatching(/could not be started.*EMFILE/),
    });
    expect(report['forkRetried']).toEqual({ isError: false, text: '2' });
    // isolated-vm's package.json was unreadable, not old: no warning to upgrade it.
    expect(stderr).not.toMatch(/isolated-vm/);
  }, 120_000);
});
