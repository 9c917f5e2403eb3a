// What the watchdog says about a silent process's main thread, read from /proc of real
// processes (Linux): the system call it sits in tells an idle event loop from a thread
// stuck in a read on one of its pipes.
import { spawn } from 'node:child_process';
import { describe, expect, it } from '@jest/globals';
import { describeMainThreadSyscall, silentMainThreadWords } from '../../sandbox/silent-main-thread.ts';
import { sleep } from './helpers.ts';
import { procState } from './starvation.ts';

/** A Node process running `code` (stdin a pipe we never write to); resolves once `syscall` says it sits in `wanted`. */
async function processIn(code: string, wanted: RegExp) {
  const child = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'ignore', 'ignore'] });
  const { pid } = child;
  if (pid === undefined) throw new Error('the process did not start');
  let last: string | undefined;
  for (
    let tries = 0;
    !(procState(pid) === 'S' && wanted.test((last = describeMainThreadSyscall(pid)) ?? ''));
    tries++
  ) {
    if (tries > 3_000) throw new Error(`process ${pid} never sat in ${wanted} (last: ${String(last)})`);
    await sleep(10);
  }
  return Object.assign(child, { pid });
}

describe('a silent main thread, in words', () => {
  if (process.platform !== 'linux' || !['x64', 'arm64'].includes(process.arch)) return;

  it('an idle event loop sits in epoll: named, and said in the kill message', async () => {
    const idle = await processIn('setTimeout(() => {}, 60_000);', /^epoll_p?wait2?$/);
    try {
      expect(silentMainThreadWords(idle.pid, 'sleeping', false)).toMatch(
        /^ \(its main thread was sleeping in epoll_p?wait2?\)$/,
      );
    } finally {
      idle.kill('SIGKILL');
    }
  });

  it('a thread blocked in a synchronous read names the call and the descriptor; a call the host owes is said', async () => {
    const reader = await processIn("require('node:fs').readSync(0, Buffer.alloc(1));", /^read on fd 0$/);
    try {
      const words = silentMainThreadWords(reader.pid, 'sleeping', true);
      expect(words).toContain('sleeping in read on fd 0');
      expect(words).toContain('a call the host had not yet answered or released');
      // Not asleep: no system call is named.
      expect(silentMainThreadWords(reader.pid, 'runnable', false)).toBe(' (its main thread was runnable)');
    } finally {
      reader.kill('SIGKILL');
    }
  });

  it('a process that is gone: nothing to say', async () => {
    const gone = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((resolve) => gone.once('exit', resolve));
    expect(describeMainThreadSyscall(gone.pid ?? -1)).toBeUndefined();
    expect(silentMainThreadWords(gone.pid, undefined, false)).toBe('');
    expect(silentMainThreadWords(gone.pid, 'sleeping', false)).toBe(' (its main thread was sleeping)');
  });
});
