// Scheduler slices per thread (sandbox/thread-slice.ts): a thread's slice is set through
// sched_setattr (koffi) with its nice value and policy kept, and 0 gives the kernel's
// default back. The kernel reports a thread's slice in /proc (`se.slice`) from Linux 6.12;
// older kernels accept the call and ignore the field.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import { LONG_SLICE_NS, slicesAvailable, readThreadSlice, setThreadSlice } from '../../sandbox/thread-slice.ts';

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
      expect(setThreadSlice(process.pid, LONG_SLICE_NS)).toBe(false);
      return;
    }
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const { worker, tid } = await sleepingWorker(flag);
    try {
      const defaultSlice = readThreadSlice(tid);
      setPriority(tid, 7);
      expect(setThreadSlice(tid, LONG_SLICE_NS)).toBe(true);
      expect(getPriority(tid)).toBe(7);
      expect(policyOf(tid)).toBe(0);
      // From Linux 6.12 the kernel reports it; before, it accepts the call and has no slices.
      if (defaultSlice !== undefined) {
        expect(defaultSlice).not.toBe(LONG_SLICE_NS);
        expect(readThreadSlice(tid)).toBe(LONG_SLICE_NS);
      }
      expect(setThreadSlice(tid, 0n)).toBe(true);
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
    expect(setThreadSlice(tid, LONG_SLICE_NS)).toBe(false);
    expect(readThreadSlice(tid)).toBeUndefined();
  });
});
