// Scheduler slices per thread (sandbox/thread-slice.ts): a thread's slice is set through
// sched_setattr (koffi) with its nice value and policy kept, and 0 gives the kernel's
// default back. The kernel reports a thread's slice in /proc (`se.slice`) from Linux 6.12;
// older kernels accept the call and ignore the field.
import { describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  LONG_SLICE_NS,
  readThreadSlice,
  restoreThreadSlice,
  setThreadSlice,
  slicesAvailable,
} from '../../sandbox/thread-slice.ts';

const supported = process.platform === 'linux' && (process.arch === 'x64' || process.arch === 'arm64');

/** Starts a worker thread that sleeps until `flag[0]` is set; resolves with it and its thread id. */
async function sleepingWorker(flag: Int32Array): Promise<{ worker: Worker; tid: number }> {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     parentPort.postMessage(Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()));
     Atomics.wait(workerData, 0, 0);`,
    { eval: true, workerData: flag },
  );
  const tid = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { worker, tid };
}

/** Thread `tid`'s scheduling policy (field 41 of its stat). */
function policyOf(tid: number): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[38]);
}

describe('thread slices', () => {
  it('are available on Linux x64 and arm64 (koffi is installed with the package), and nowhere else', async () => {
    expect(slicesAvailable()).toBe(supported);
  });

  it("sets a thread's slice keeping its nice value and policy, and 0 gives the default back", async () => {
    if (!supported) {
      expect(setThreadSlice(process.pid, LONG_SLICE_NS)).toBeUndefined();
      return;
    }
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const { worker, tid } = await sleepingWorker(flag);
    try {
      const defaultSlice = readThreadSlice(tid);
      setPriority(tid, 7);
      // It returns the slice the thread had (0 where the kernel has none).
      expect(setThreadSlice(tid, LONG_SLICE_NS)).toBe(defaultSlice ?? 0n);
      expect(getPriority(tid)).toBe(7);
      expect(policyOf(tid)).toBe(0);
      // From Linux 6.12 the kernel reports it; before, it accepts the call and has no slices.
      if (defaultSlice !== undefined) {
        expect(defaultSlice).not.toBe(LONG_SLICE_NS);
        expect(readThreadSlice(tid)).toBe(LONG_SLICE_NS);
      }
      expect(setThreadSlice(tid, 0n)).toBe(defaultSlice === undefined ? 0n : LONG_SLICE_NS);
      expect(getPriority(tid)).toBe(7);
      expect(readThreadSlice(tid)).toBe(defaultSlice);
    } finally {
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      await worker.terminate();
    }
  });

  it('a thread that does not exist gets nothing and throws nothing', async () => {
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const { worker, tid } = await sleepingWorker(flag);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
    await worker.terminate();
    expect(setThreadSlice(tid, LONG_SLICE_NS)).toBeUndefined();
    expect(restoreThreadSlice(tid, 0n)).toBe(false);
    expect(readThreadSlice(tid)).toBeUndefined();
  });

  it("keeps a thread's reset-on-fork flag (clearing it needs privileges: refused, or done silently as root)", async () => {
    if (!supported) return;
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const { worker, tid } = await sleepingWorker(flag);
    const chrt = (...args: string[]): string => execFileSync('chrt', args, { encoding: 'utf8' });
    try {
      chrt('--other', '--reset-on-fork', '--pid', '0', String(tid));
      expect(chrt('--pid', String(tid))).toContain('SCHED_RESET_ON_FORK');
      expect(setThreadSlice(tid, LONG_SLICE_NS)).not.toBeUndefined();
      expect(chrt('--pid', String(tid))).toContain('SCHED_RESET_ON_FORK');
      expect(setThreadSlice(tid, 0n)).not.toBeUndefined();
      expect(chrt('--pid', String(tid))).toContain('SCHED_RESET_ON_FORK');
    } finally {
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      await worker.terminate();
    }
  });

  it('restoreThreadSlice gives back the slice a thread had: its own, or the default (Linux ≥ 6.12)', async () => {
    if (!supported) return;
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const { worker, tid } = await sleepingWorker(flag);
    try {
      const defaultSlice = readThreadSlice(tid);
      if (defaultSlice === undefined) return;
      const own = 5_000_000n;
      expect(setThreadSlice(tid, own)).toBe(defaultSlice);
      expect(setThreadSlice(tid, LONG_SLICE_NS)).toBe(own);
      expect(restoreThreadSlice(tid, own)).toBe(true);
      expect(readThreadSlice(tid)).toBe(own);
      expect(setThreadSlice(tid, LONG_SLICE_NS)).toBe(own);
      expect(restoreThreadSlice(tid, defaultSlice)).toBe(true);
      expect(readThreadSlice(tid)).toBe(defaultSlice);
    } finally {
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      await worker.terminate();
    }
  });

  it('a second copy of this module in one process (two copies of the package) sets slices too', () => {
    // Node loads a file URL with another query as another module instance.
    const url = new URL('../../sandbox/thread-slice.ts', import.meta.url).href;
    const child = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '--eval',
        `const one = await import(${JSON.stringify(`${url}?one`)});
         const two = await import(${JSON.stringify(`${url}?two`)});
         console.log(JSON.stringify([one.slicesAvailable(), two.slicesAvailable()]));`,
      ],
      { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
    );
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toStrictEqual([supported, supported]);
  });
});
