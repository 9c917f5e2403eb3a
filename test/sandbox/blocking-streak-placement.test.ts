// Placement of a blocking streak (sandbox/blocking-streak-placement.ts): while one run is
// in flight in the process and blocks on call after call, the in-process sandbox holds the
// host's thread and the isolate's on one CPU, and gives both their CPU masks back when a
// second run starts, when the run ends or goes quiet, or when holding them was not faster.
// The tools below look at the threads' masks from inside the calls (they run on the host's
// thread while the isolate's thread waits for the answer).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { placementStats, placementTuning } from '../../sandbox/blocking-streak-placement.ts';
import type { InProcessSandbox } from '../../sandbox/in-process-sandbox.ts';
import { createSandbox } from '../../sandbox/index.ts';
import {
  affinityAvailable,
  cpusOf,
  currentCpu,
  currentThreadId,
  setThreadAffinity,
  singleCpuMask,
  threadAffinity,
} from '../../sandbox/thread-affinity.ts';
import type { HostCallOutcome, HostCallRequest, RunOutcome } from '../../sandbox/types.ts';
import { gate } from '../support/gate.ts';
import { expectOk } from './helpers.ts';

const supported = process.platform === 'linux' && (process.arch === 'x64' || process.arch === 'arm64');
// In-process sandboxes as createSandbox makes them (placement on by default).
const placed = createSandbox({ isolation: 'in-process', poolSize: 2 }) as InProcessSandbox;
const unplaced = createSandbox({
  isolation: 'in-process',
  poolSize: 1,
  placeBlockingStreaks: false,
}) as InProcessSandbox;
// The process's first isolate waits for the run that warms the code cache: with the pools
// full, that run is over and no test's streak shares the process with it (a second run in
// flight lets go; the streak after it would be held a second time).
beforeAll(() => Promise.all([placed.warm(), unplaced.warm()]));
afterAll(() => Promise.all([placed.close(), unplaced.close()]));

const defaults = { ...placementTuning };
beforeEach(() => {
  // Generous gaps: a loaded machine must not end a streak between two calls by itself;
  // and a hold is kept whatever the calls measured (two tests set the judge or its recheck).
  Object.assign(placementTuning, {
    streakGapMs: 60_000,
    idleTickMs: 60_000,
    minGain: Number.POSITIVE_INFINITY,
    recheckCalls: Number.MAX_SAFE_INTEGER,
  });
});
afterEach(() => {
  Object.assign(placementTuning, defaults);
});

/** Every thread's CPU mask, as a string per thread id. */
function masks(): Map<number, string> {
  const all = new Map<number, string>();
  for (const entry of readdirSync('/proc/self/task')) {
    const mask = threadAffinity(Number(entry));
    if (mask !== undefined) all.set(Number(entry), cpusOf(mask).join(','));
  }
  return all;
}

/** Threads whose mask differs from `before` (threads that started since are compared with the main thread's mask then). */
function changedThreads(before: Map<number, string>, main: string): number[] {
  const changed: number[] = [];
  for (const [tid, mask] of masks()) if (mask !== (before.get(tid) ?? main)) changed.push(tid);
  return changed;
}

const calls = (n: number) => `const seen = [];
for (let i = 0; i < ${n}; i++) seen.push(await tools.look({ i }));
return seen;`;

/** A tool answering at once, which records for call i what `observe` says then. */
function observingTool<T>(observe: (i: number) => T): {
  hostCall: (request: HostCallRequest) => Promise<HostCallOutcome>;
  seen: T[];
} {
  const seen: T[] = [];
  return {
    seen,
    hostCall: async (request) => {
      const { i } = JSON.parse(request.argsJson) as { i: number };
      seen[i] = observe(i);
      return { ok: true, valueJson: String(i) };
    },
  };
}

/**
 * Runs a case (one run) up to three times until its run held a streak. A hold needs 14
 * blocking calls in a row and an isolate thread seen sleeping through the sampled calls; on
 * a heavily loaded machine a run now and then gets neither, which is not what these cases test.
 */
async function untilHeld(attempt: () => Promise<void>): Promise<void> {
  for (let tries = 1; tries <= 3; tries++) {
    const before = placementStats.held;
    await attempt();
    if (placementStats.held > before) return;
  }
}

const MAIN_TID = process.pid;
const masksNow = () => {
  const all = masks();
  return { all, main: all.get(MAIN_TID) ?? '' };
};

type Placement = typeof import('../../sandbox/blocking-streak-placement.ts');

/**
 * A thread that stands in for an isolate's: at each call it wakes, computes for a while
 * (well ahead of any other thread), signals the answer is due and sleeps. `streak` makes a
 * copy of the placement module see warmCalls + sampleCalls blocking calls of run `owner`,
 * each while this thread waits for its answer.
 */
async function standInIsolate(): Promise<{
  tid: number;
  streak: (copy: Placement, owner: object) => void;
  stop: () => Promise<void>;
}> {
  const turn = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(
    `const { parentPort, workerData: turn } = require('node:worker_threads');
     parentPort.postMessage(Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()));
     for (let call = 0; ; ) {
       Atomics.wait(turn, 0, call);
       call = Atomics.load(turn, 0);
       if (call < 0) break;
       for (const until = process.cpuUsage().user + 2000; process.cpuUsage().user < until; );
       Atomics.store(turn, 1, call);
       Atomics.notify(turn, 1);
     }`,
    { eval: true, workerData: turn },
  );
  const tid = await new Promise<number>((resolve) => worker.once('message', resolve));
  let call = 0;
  const asleep = (): boolean =>
    readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]?.startsWith('S') === true;
  return {
    tid,
    streak: (copy, owner) => {
      const { warmCalls, sampleCalls } = copy.placementTuning;
      for (let n = 0; n < warmCalls + sampleCalls; n++) {
        // It sleeps between calls, as an isolate's thread waits for each answer.
        while (!asleep());
        call += 1;
        Atomics.store(turn, 0, call);
        Atomics.notify(turn, 0);
        while (Atomics.load(turn, 1) !== call) Atomics.wait(turn, 1, call - 1, 1_000);
        copy.placementBlockingCall(owner);
      }
    },
    stop: async () => {
      Atomics.store(turn, 0, -1);
      Atomics.notify(turn, 0);
      await worker.terminate();
    },
  };
}

describe('placement of a blocking streak (in-process)', () => {
  it('is available on Linux x64 and arm64 (koffi), and reads and sets a thread mask', () => {
    expect(affinityAvailable()).toBe(supported);
    if (!supported) return;
    expect(currentThreadId()).toBe(process.pid);
    const original = threadAffinity(MAIN_TID);
    expect(original).toBeDefined();
    const cpu = currentCpu();
    expect(cpusOf(original ?? new Uint8Array(0))).toContain(cpu);
    try {
      expect(setThreadAffinity(MAIN_TID, singleCpuMask(cpu ?? 0))).toBe(true);
      expect(cpusOf(threadAffinity(MAIN_TID) ?? new Uint8Array(0))).toStrictEqual([cpu]);
    } finally {
      expect(setThreadAffinity(MAIN_TID, original ?? new Uint8Array(0))).toBe(true);
    }
    expect(threadAffinity(MAIN_TID)).toStrictEqual(original);
    // A mask of the wrong size, or a thread that does not exist, is refused.
    expect(setThreadAffinity(MAIN_TID, new Uint8Array(3))).toBe(false);
    expect(threadAffinity(2 ** 30)).toBeUndefined();
  });

  it('holds the host thread and one isolate thread on the CPU the host thread is on, then gives both masks back', async () => {
    if (!supported) return;
    const start = masksNow();
    const multi = start.main.includes(',');
    const heldAt = placementTuning.warmCalls + placementTuning.sampleCalls;
    const look = () => ({
      changed: changedThreads(start.all, start.main),
      main: cpusOf(threadAffinity(MAIN_TID) ?? new Uint8Array(0)),
    });
    let heldBefore = placementStats.held;
    let tool = observingTool(look);
    await untilHeld(async () => {
      heldBefore = placementStats.held;
      tool = observingTool(look);
      expectOk(await placed.run({ code: calls(heldAt + 60), toolNames: ['look'], hostCall: tool.hostCall }));
    });
    expect(placementStats.held).toBe(heldBefore + 1);
    // Nothing is touched before the streak's sampled calls (the program's first calls may
    // go the asynchronous way); then the host's thread and exactly one other, on one CPU.
    const first = tool.seen.findIndex((seen) => seen.changed.length > 0);
    if (multi) {
      expect(first).toBeGreaterThanOrEqual(heldAt - 1);
      expect(tool.seen[first]?.main).toHaveLength(1);
      expect(tool.seen[first]?.changed).toHaveLength(2);
      expect(tool.seen[first]?.changed).toContain(MAIN_TID);
    }
    // After the run every thread has its mask back.
    expect(changedThreads(start.all, start.main)).toStrictEqual([]);
  });

  it('gives a thread the host thread started while held the mask it would have had', async () => {
    if (!supported) return;
    const start = masksNow();
    const heldAt = placementTuning.warmCalls + placementTuning.sampleCalls;
    const flag = new Int32Array(new SharedArrayBuffer(4));
    let worker: Worker | undefined;
    let workerTid: Promise<number> | undefined;
    let inheritedHeld = false;
    const tool = observingTool((i) => {
      const held = changedThreads(start.all, start.main).includes(MAIN_TID);
      if (held && worker === undefined) {
        // A tool starts a thread while the host's thread is held: it inherits the held mask.
        worker = new Worker(
          `const { parentPort, workerData } = require('node:worker_threads');
           parentPort.postMessage(Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()));
           Atomics.wait(workerData, 0, 0);`,
          { eval: true, workerData: flag },
        );
        const started = worker;
        workerTid = new Promise((resolve) => started.once('message', resolve));
      }
      return i;
    });
    try {
      // The program waits for the worker to report in, still in the held streak's run.
      const code = `${calls(heldAt + 8).replace('return seen;', '')} await tools.ready({}); return seen.length;`;
      await untilHeld(async () => {
        expectOk(
          await placed.run({
            code,
            toolNames: ['look', 'ready'],
            hostCall: async (request) => {
              if (request.toolName !== 'ready') return tool.hostCall(request);
              const tid = await workerTid;
              if (tid !== undefined) inheritedHeld = cpusOf(threadAffinity(tid) ?? new Uint8Array(0)).length === 1;
              return { ok: true, valueJson: '0' };
            },
          }),
          heldAt + 8,
        );
      });
      const tid = await workerTid;
      if (tid === undefined) throw new Error('the streak was never held');
      if (start.main.includes(',')) expect(inheritedHeld).toBe(true);
      expect(cpusOf(threadAffinity(tid) ?? new Uint8Array(0)).join(',')).toBe(start.main);
    } finally {
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      await worker?.terminate();
    }
  });

  it('lets go when a second run starts, and does not hold while two are in flight', async () => {
    if (!supported) return;
    const start = masksNow();
    const heldAt = placementTuning.warmCalls + placementTuning.sampleCalls;
    const { passed, open } = gate();
    let second: Promise<RunOutcome> | undefined;
    const secondTool = observingTool(() => changedThreads(start.all, start.main));
    const firstTool = observingTool((i) => {
      if (i === heldAt + 1) {
        // The second run blocks on call after call too, then waits for the gate.
        second = placed.run({
          code: `${calls(heldAt * 2).replace('return seen;', '')} await tools.wait({}); return seen.length;`,
          toolNames: ['look', 'wait'],
          hostCall: async (request) =>
            request.toolName === 'wait' ? (await passed, { ok: true, valueJson: '0' }) : secondTool.hostCall(request),
        });
      }
      return changedThreads(start.all, start.main);
    });
    // The first run goes on calling until the second has made all its calls.
    const code = `const seen = [];
for (let i = 0; ; i++) { const r = await tools.look({ i }); seen.push(r); if (await tools.done({})) break; }
return seen.length;`;
    const first = await placed.run({
      code,
      toolNames: ['look', 'done'],
      hostCall: async (request) =>
        request.toolName === 'done'
          ? { ok: true, valueJson: String(secondTool.seen.length >= heldAt * 2) }
          : firstTool.hostCall(request),
    });
    expectOk(first);
    open();
    if (second === undefined) throw new Error('the second run never started');
    expectOk(await second, heldAt * 2);
    // The second run never saw a thread held; the first's last calls (both in flight) neither.
    for (const seen of secondTool.seen) expect(seen).toStrictEqual([]);
    expect(firstTool.seen.at(-1)).toStrictEqual([]);
    expect(changedThreads(start.all, start.main)).toStrictEqual([]);
  });

  it('lets go when no call comes for a tick (the program waits), and holds again on a later streak', async () => {
    if (!supported) return;
    placementTuning.idleTickMs = 5;
    const start = masksNow();
    const multi = start.main.includes(',');
    const heldAt = placementTuning.warmCalls + placementTuning.sampleCalls;
    const wait = heldAt + 8;
    // The wait is long beside the tick: the tick that lets go is due well before the wake.
    const code = `for (let i = 0; i < ${wait}; i++) await tools.look({ i });
await new Promise((resolve) => setTimeout(resolve, 300));
for (let i = ${wait}; i < ${2 * wait}; i++) await tools.look({ i });
return 1;`;
    // A streak may be declined rather than held: on a loaded machine the isolate's thread
    // may not sleep through enough of the sampled calls to be told apart (CI's Node 26
    // phase saw the later streak declined once). The case is tried again, up to three runs,
    // until both streaks were held; a placement that never holds again still fails.
    for (let attempt = 1; ; attempt++) {
      const heldBefore = placementStats.held;
      const tool = observingTool(() => ({ changed: changedThreads(start.all, start.main), held: placementStats.held }));
      expectOk(await placed.run({ code, toolNames: ['look'], hostCall: tool.hostCall }), 1);
      const heldFirst = (tool.seen[wait - 1]?.held ?? heldBefore) > heldBefore;
      const heldAgain = placementStats.held >= heldBefore + 2;
      if (!(heldFirst && heldAgain) && attempt < 3) continue;
      expect({ heldFirst, heldAgain, stats: placementStats }).toMatchObject({ heldFirst: true, heldAgain: true });
      // The first call after the wait finds every mask given back (multi-CPU machines: on
      // one CPU a hold changes no mask).
      if (multi) expect(tool.seen[wait]?.changed).toStrictEqual([]);
      break;
    }
    expect(changedThreads(start.all, start.main)).toStrictEqual([]);
  });

  it('lets go when the held calls were not faster, and measures the streak again only after 128 calls, then 256', async () => {
    if (!supported) return;
    placementTuning.minGain = 0; // no held call can be that fast
    const start = masksNow();
    const heldAt = placementTuning.warmCalls + placementTuning.sampleCalls;
    const judgedAt = heldAt + placementTuning.sampleCalls;
    const retry = placementTuning.retryCalls;
    // Declined at the judge; measured again from the 128th call after it (held and declined
    // again); the next try would be 256 calls later, after the run has ended.
    const total = judgedAt + retry + judgedAt + 20;
    let declinedBefore = placementStats.declined;
    let heldBefore = placementStats.held;
    let tool = observingTool(() => changedThreads(start.all, start.main));
    // On a loaded machine either streak may now and then find no thread that slept through
    // its sampled calls (preempted rather than asleep): up to three runs until both were held.
    for (let attempt = 1; attempt <= 3; attempt++) {
      declinedBefore = placementStats.declined;
      heldBefore = placementStats.held;
      tool = observingTool(() => changedThreads(start.all, start.main));
      expectOk(await placed.run({ code: calls(total), toolNames: ['look'], hostCall: tool.hostCall }));
      if (placementStats.held - heldBefore === 2) break;
    }
    expect(placementStats.held - heldBefore).toBe(2);
    expect(placementStats.declined - declinedBefore).toBe(2);
    // Nothing held between the decline and the retry's hold (two calls of slack: a
    // program's first calls may go the asynchronous way), nor after the second decline.
    for (const seen of tool.seen.slice(judgedAt + 2, judgedAt + retry + heldAt - 1)) expect(seen).toStrictEqual([]);
    for (const seen of tool.seen.slice(judgedAt + retry + judgedAt + 2)) expect(seen).toStrictEqual([]);
    expect(changedThreads(start.all, start.main)).toStrictEqual([]);
  });

  it('lets go of a kept hold once its calls have become slower than the free ones were', async () => {
    if (!supported) return;
    placementTuning.recheckCalls = 8;
    const start = masksNow();
    const multi = start.main.includes(',');
    const judgedAt = placementTuning.warmCalls + 2 * placementTuning.sampleCalls;
    // From the call after the judge on, the host's thread works in each call (as if other
    // work had come to the held CPU) three times as long as the slowest call before it took,
    // and at least 5 ms: the next check finds the held calls slower however loaded the
    // machine made the free ones.
    const slowedTool = () => {
      let last = performance.now();
      let slowest = 0;
      return observingTool((i) => {
        const now = performance.now();
        // (the first call's wait is the run's start, not a call)
        if (i > 0 && i < judgedAt) slowest = Math.max(slowest, now - last);
        else {
          const until = now + Math.max(5, 3 * slowest);
          while (performance.now() < until);
        }
        last = performance.now();
        return changedThreads(start.all, start.main);
      });
    };
    const recheckedAt = judgedAt + placementTuning.recheckCalls;
    let outgrownBefore = placementStats.outgrown;
    let tool = slowedTool();
    // Up to three runs until one was held (see untilHeld) and let go at its check.
    for (let attempt = 1; attempt <= 3; attempt++) {
      outgrownBefore = placementStats.outgrown;
      const heldBefore = placementStats.held;
      tool = slowedTool();
      expectOk(await placed.run({ code: calls(recheckedAt + 8), toolNames: ['look'], hostCall: tool.hostCall }));
      if (placementStats.held > heldBefore && placementStats.outgrown > outgrownBefore) break;
    }
    expect(placementStats.outgrown).toBe(outgrownBefore + 1);
    if (multi) expect(tool.seen[judgedAt]).toHaveLength(2);
    // Let go at the check, and not held again before the run ended. The host may see a few
    // calls the isolate thread sent before its check (on a loaded machine more of them go the
    // asynchronous way), so the hold ends within the calls after the check, and stays ended.
    const afterCheck = tool.seen.slice(recheckedAt);
    const freeFrom = afterCheck.findIndex((seen) => seen.length === 0);
    expect(freeFrom).toBeGreaterThanOrEqual(0);
    for (const seen of afterCheck.slice(freeFrom)) expect(seen).toStrictEqual([]);
    expect(changedThreads(start.all, start.main)).toStrictEqual([]);
  });

  it('does not take a thread of the application that computes meanwhile for the isolate thread', async () => {
    if (!supported) return;
    const start = masksNow();
    const heldAt = placementTuning.warmCalls + placementTuning.sampleCalls;
    const heldBefore = placementStats.held;
    // The application's own thread computes all along: it runs far more than the isolate's
    // thread, which sleeps through every call.
    const spinner = new Worker(
      `const { parentPort } = require('node:worker_threads');
       parentPort.postMessage(Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()));
       for (;;);`,
      { eval: true },
    );
    try {
      const spinnerTid = await new Promise<number>((resolve) => spinner.once('message', resolve));
      let tool = observingTool(() => changedThreads(start.all, start.main));
      let before = heldBefore;
      await untilHeld(async () => {
        before = placementStats.held;
        tool = observingTool(() => changedThreads(start.all, start.main));
        expectOk(await placed.run({ code: calls(heldAt + 20), toolNames: ['look'], hostCall: tool.hostCall }));
      });
      for (const changed of tool.seen) expect(changed).not.toContain(spinnerTid);
      if (start.main.includes(',')) {
        expect(placementStats.held).toBe(before + 1);
        expect(tool.seen.some((changed) => changed.length === 2)).toBe(true);
      }
    } finally {
      await spinner.terminate();
    }
    expect(changedThreads(start.all, start.main)).toStrictEqual([]);
  });

  it("does not take libuv's worker for the isolate thread when each call reads a file", async () => {
    if (!supported) return;
    const start = masksNow();
    const heldAt = placementTuning.warmCalls + placementTuning.sampleCalls;
    const file = join(tmpdir(), `placement-${process.pid}.bin`);
    writeFileSync(file, Buffer.alloc(300_000, 7));
    const name = (tid: number) => readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
    try {
      // Each answer waits for libuv's pool, whose worker wakes and sleeps once a call too.
      for (let round = 0; round < 3; round++) {
        const held: string[][] = [];
        expectOk(
          await placed.run({
            code: calls(heldAt + 6),
            toolNames: ['look'],
            hostCall: async () => {
              await readFile(file);
              held.push(changedThreads(start.all, start.main).map(name));
              return { ok: true, valueJson: '1' };
            },
          }),
        );
        for (const names of held) expect(names).not.toContain('libuv-worker');
      }
    } finally {
      rmSync(file, { force: true });
    }
    expect(changedThreads(start.all, start.main)).toStrictEqual([]);
  });

  it('leaves a mask the application set on a held thread meanwhile as it is', async () => {
    if (!supported) return;
    const start = masksNow();
    if (!start.main.includes(',')) return;
    const original = threadAffinity(MAIN_TID) ?? new Uint8Array(0);
    const heldAt = placementTuning.warmCalls + placementTuning.sampleCalls;
    let theirs: number[] | undefined;
    const tool = observingTool((i) => {
      if (theirs === undefined && i >= heldAt && changedThreads(start.all, start.main).includes(MAIN_TID)) {
        // The application moves the held thread to another CPU of its own choosing.
        const other = cpusOf(original).find((cpu) => cpu !== currentCpu()) ?? 0;
        theirs = [other];
        setThreadAffinity(MAIN_TID, singleCpuMask(other));
      }
      return i;
    });
    try {
      await untilHeld(async () => {
        expectOk(await placed.run({ code: calls(heldAt + 20), toolNames: ['look'], hostCall: tool.hostCall }));
      });
      if (theirs === undefined) throw new Error('the streak was never held');
      expect(cpusOf(threadAffinity(MAIN_TID) ?? new Uint8Array(0))).toStrictEqual(theirs);
    } finally {
      setThreadAffinity(MAIN_TID, original);
    }
    expect(changedThreads(start.all, start.main)).toStrictEqual([]);
  });

  it('a second copy of the module (another version, or a worker thread) never records a held mask as one to give back', async () => {
    if (!supported) return;
    const start = masksNow();
    if (!start.main.includes(',')) return; // one CPU: nothing is ever held
    const a: Placement = await import('../../sandbox/blocking-streak-placement.ts');
    const b = (await import('../../sandbox/blocking-streak-placement.ts?copy' as string)) as Placement;
    Object.assign(b.placementTuning, a.placementTuning);
    const isolate = await standInIsolate();
    const [first, second] = [{}, {}];
    try {
      a.placementRunStarted();
      b.placementRunStarted();
      try {
        isolate.streak(a, first);
        expect(changedThreads(start.all, start.main).sort()).toStrictEqual([MAIN_TID, isolate.tid].sort());
        // The other copy counts its own runs: it sees one in flight and a streak of its own.
        isolate.streak(b, second);
      } finally {
        a.placementRunEnded(first);
        b.placementRunEnded(second);
      }
      expect(changedThreads(start.all, start.main)).toStrictEqual([]);
    } finally {
      await isolate.stop();
    }
  });

  it("reads a thread's name afresh before holding it (a thread names itself for libuv after it started)", async () => {
    if (!supported) return;
    const start = masksNow();
    if (!start.main.includes(',')) return; // one CPU: nothing is ever held
    // A copy of its own: no other test's runs or streaks in it.
    const copy = (await import('../../sandbox/blocking-streak-placement.ts?renamed' as string)) as Placement;
    Object.assign(copy.placementTuning, placementTuning);
    const isolate = await standInIsolate();
    // One run of the copy in which the stand-in makes one streak; `check` runs while it is in flight.
    const oneRun = (check: () => void): void => {
      const run = {};
      copy.placementRunStarted();
      try {
        isolate.streak(copy, run);
        check();
      } finally {
        copy.placementRunEnded(run);
      }
    };
    try {
      // First held as the isolate's thread: its name was read then, and is kept.
      oneRun(() => expect(changedThreads(start.all, start.main)).toContain(isolate.tid));
      // Now it bears a name libuv gives its workers: the next streak must not hold it,
      // though the name kept from before says it may.
      writeFileSync(`/proc/self/task/${isolate.tid}/comm`, 'libuv-worker');
      oneRun(() => expect(changedThreads(start.all, start.main)).not.toContain(isolate.tid));
      expect(changedThreads(start.all, start.main)).toStrictEqual([]);
    } finally {
      await isolate.stop();
    }
  });

  it('placeBlockingStreaks: false never touches a mask', async () => {
    if (!supported) return;
    const start = masksNow();
    const heldBefore = placementStats.held;
    const tool = observingTool(() => changedThreads(start.all, start.main));
    expectOk(await unplaced.run({ code: calls(100), toolNames: ['look'], hostCall: tool.hostCall }));
    expect(placementStats.held).toBe(heldBefore);
    for (const seen of tool.seen) expect(seen).toStrictEqual([]);
  });

  it('refuses an option that is not a boolean, naming it', () => {
    expect(() => createSandbox({ isolation: 'in-process', placeBlockingStreaks: 'yes' as unknown as boolean })).toThrow(
      /placeBlockingStreaks must be a boolean, got string/,
    );
  });
});
