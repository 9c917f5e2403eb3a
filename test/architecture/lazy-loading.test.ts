// The root entry loads isolated-vm and esbuild only when a sandbox is first needed, and
// typescript only for a type check, pg only when a postgres:// journal is first used: checked in a fresh Node process that records every
// module it loads (fixtures/lazy-loading-probe.ts).
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const PROBE = fileURLToPath(new URL('./fixtures/lazy-loading-probe.ts', import.meta.url));

describe('lazy loading of the heavy dependencies', () => {
  it("isolated-vm and esbuild load at the first run_code, typescript at the first type check, pg at a postgres journal's first use, and not before", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--no-node-snapshot', '--conditions=ptc-source', '--disable-warning=ExperimentalWarning', PROBE],
      { env: { ...process.env, NODE_OPTIONS: '' }, timeout: 60_000 },
    );
    expect(JSON.parse(stdout)).toStrictEqual({
      'import root entry': [],
      'sandbox: false, a native call': [],
      'default runtime, native calls only': [],
      'ptc runtime: schemas with the SDK, a native call': [],
      // The probe's detector sees them once they are needed (in-process isolation).
      'first run_code': ['isolated-vm', 'esbuild'],
      'import sdk-gen, generate an SDK': ['isolated-vm', 'esbuild'],
      'first type check': ['isolated-vm', 'esbuild', 'typescript'],
      'JSONL and SQLite journals': ['isolated-vm', 'esbuild', 'typescript'],
      'a postgres:// journal, opened': ['isolated-vm', 'esbuild', 'typescript'],
      'a postgres:// journal, first use': ['isolated-vm', 'esbuild', 'typescript', 'pg'],
    });
  });
});
