// With the default (process) isolation the host loads the process sandbox only: isolated-vm
// and the guest prelude live in the sandbox processes, so the host's first run does not wait
// for them to load before it forks those processes (fixtures/process-host-probe.ts).
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const PROBE = fileURLToPath(new URL('./fixtures/process-host-probe.ts', import.meta.url));

describe('the process mode host', () => {
  it('runs a program with the default sandbox without loading isolated-vm, the isolate pool or the guest prelude', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--no-node-snapshot', '--conditions=ptc-source', '--disable-warning=ExperimentalWarning', PROBE],
      { env: { ...process.env, NODE_OPTIONS: '' }, timeout: 60_000 },
    );
    expect(JSON.parse(stdout)).toStrictEqual({
      ok: true,
      esbuild: true,
      isolatedVmCode: 0,
      guestPrelude: false,
      isolatePool: false,
    });
  }, 90_000);
});
