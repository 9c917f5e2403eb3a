// A sandbox process that died at start: the host waits briefly for the rest of its stderr
// (the reason it died) before failing its runs. That wait must keep the host alive while
// runs depend on it — the exit can be seen before the stderr pipe ends, and the pipe is
// unref'd — and must not when nothing waits (an idle host exits at once).
import { execFile } from 'node:child_process';
import { describe, expect, it } from '@jest/globals';

const MODULE = new URL('../../sandbox/startup-stderr.ts', import.meta.url).href;

/** Runs afterEnd on a stream that never ends, alone in a fresh Node process; its stdout. */
function afterEndAlone(keepAlive: boolean): Promise<string> {
  const script = `
    import { PassThrough } from 'node:stream';
    const { StartupStderr } = await import(${JSON.stringify(MODULE)});
    const stderr = new StartupStderr(new PassThrough());
    stderr.afterEnd(100, () => process.stdout.write('then'), ${keepAlive});
  `;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--no-node-snapshot', '--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script],
      { timeout: 30_000 },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    );
  });
}

describe('StartupStderr.afterEnd', () => {
  it('keeps the host alive for its bounded wait when runs depend on it', async () => {
    expect(await afterEndAlone(true)).toBe('then');
  });

  it('does not keep an idle host alive', async () => {
    expect(await afterEndAlone(false)).toBe('');
  });
});
