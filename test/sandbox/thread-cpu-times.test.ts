// What /proc/self/task tells about each thread (sandbox/thread-cpu-times.ts): the values the
// files hold, the third field of schedstat included, and nothing once the thread has ended.
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import {
  threadCpuTimes,
  threadIds,
  threadName,
  threadSchedstat,
  voluntarySwitches,
} from '../../sandbox/thread-cpu-times.ts';

const linux = process.platform === 'linux';

/** schedstat's three fields and status's voluntary switches, each file read whole. */
function whole(tid: number): { ns: number; runs: number; slept: number } {
  const [ns, , runs] = readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').trim().split(' ').map(Number);
  const status = readFileSync(`/proc/self/task/${tid}/status`, 'utf8');
  const slept = Number(/\nvoluntary_ctxt_switches:\s*(\d+)/.exec(status)?.[1]);
  return { ns: ns ?? Number.NaN, runs: runs ?? Number.NaN, slept };
}

describe('thread-cpu-times', () => {
  it("reads a thread's CPU time, runs, sleeps and name as the files say, and nothing once it has ended", async () => {
    if (!linux) return;
    // A thread that wakes at each turn, computes a little, says it is done and sleeps again.
    const turn = new Int32Array(new SharedArrayBuffer(8));
    const worker = new Worker(
      `const { parentPort, workerData: turn } = require('node:worker_threads');
       parentPort.postMessage(Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()));
       for (let seen = 0; seen >= 0; ) {
         Atomics.wait(turn, 0, seen);
         seen = Atomics.load(turn, 0);
         for (const until = process.cpuUsage().user + 500; process.cpuUsage().user < until; );
         Atomics.store(turn, 1, seen);
       }`,
      { eval: true, workerData: turn, name: 'cpu-times-test' },
    );
    const tid = await new Promise<number>((resolve) => worker.once('message', resolve));
    const asleep = (): boolean =>
      readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]?.startsWith('S') === true;
    try {
      expect(threadIds()).toContain(tid);
      expect(threadIds()).toContain(process.pid);
      expect(threadName(tid)).toBe('cpu-times-test');
      const first = whole(tid);
      const read = { ...threadSchedstat(tid), slept: voluntarySwitches(tid) };
      const firstAfter = whole(tid);
      for (let n = 1; n <= 5; n++) {
        // Each turn is given once the last is done and the thread sleeps: 5 wakes, 5 sleeps.
        Atomics.store(turn, 0, n);
        Atomics.notify(turn, 0);
        while (Atomics.load(turn, 1) !== n || !asleep());
      }
      const last = whole(tid);
      const again = { ...threadSchedstat(tid), slept: voluntarySwitches(tid) };
      const lastAfter = whole(tid);
      // Each read lies between the whole-file reads around it (the counts only grow).
      for (const key of ['ns', 'runs', 'slept'] as const) {
        expect(read[key]).toBeGreaterThanOrEqual(first[key]);
        expect(read[key]).toBeLessThanOrEqual(firstAfter[key]);
        expect(again[key]).toBeGreaterThanOrEqual(last[key]);
        expect(again[key]).toBeLessThanOrEqual(lastAfter[key]);
      }
      expect((again.slept ?? 0) - (read.slept ?? 0)).toBeGreaterThanOrEqual(5);
      expect((again.runs ?? 0) - (read.runs ?? 0)).toBeGreaterThanOrEqual(5);
      expect((again.ns ?? 0) - (read.ns ?? 0)).toBeGreaterThan(0);
      expect(threadCpuTimes().get(tid)).toBeGreaterThanOrEqual(again.ns ?? 0);
    } finally {
      Atomics.store(turn, 0, -1);
      Atomics.notify(turn, 0);
      await worker.terminate();
    }
    // Gone: nothing is read, and it is no longer listed.
    while (readdirSync('/proc/self/task').includes(String(tid)));
    expect(threadIds()).not.toContain(tid);
    expect(threadSchedstat(tid)).toBeUndefined();
    expect(voluntarySwitches(tid)).toBeUndefined();
    expect(threadName(tid)).toBe('');
  });
});
