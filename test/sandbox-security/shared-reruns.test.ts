// Runs that were waiting on a host call when their sandbox process died are re-run
// together in a few shared re-run processes, not one process each: a hundred of them are
// back inside their next tool call together. Sharing never costs an innocent run its
// result: a shared re-run process that dies too has each of its runs re-run alone, so a
// culprit that looked idle is isolated on the next round and fails alone. No tool body
// runs twice on any round.
import { afterAll, describe, expect, it } from '@jest/globals';
import { MAX_RERUN_PROCESSES, MAX_RUNS_PER_SHARED_RERUN, ProcessSandbox } from '../../sandbox/process-sandbox.ts';
import { allInside } from '../capacity/fixtures/all-inside.ts';
import { gate } from '../support/gate.ts';
import { heardFrom } from './fixtures/beacon.ts';
import { noRerunProcessesLeft, untilIn, watchReruns } from './fixtures/rerun-watch.ts';
import { twoStepHost } from './fixtures/two-step-host.ts';
import { expectFailure, expectHealthy, expectResult, okJson, readProcMemory, recordingHost } from './helpers.ts';

/**
 * Each case kills sandbox processes and waits for a hundred re-runs: seconds on a quiet
 * machine, over 120 s in a whole suite beside busy loops and the CPU-starving tests.
 */
const CASE_MS = 300_000;

const rssMb = (pid: number): number => (readProcMemory(pid)?.rssKb ?? 0) / 1024;
/** Resident memory past an idle sandbox process's that only the culprit's hog reaches (its innocents hold a few MB each). */
const HOG_STARTED_MB = 40;

describe('runs waiting on a tool when their sandbox process dies', () => {
  const sandbox = new ProcessSandbox({ processes: 1, limits: { wallTimeMs: CASE_MS } });
  afterAll(() => sandbox.close());
  const until = untilIn(sandbox);

  it(
    '100 of them are re-run together in shared re-run processes: all 100 are inside their next tool call at once',
    async () => {
      const runs = 100;
      await expectHealthy(sandbox);
      const pid = sandbox.childPid ?? 0;
      const first = gate();
      // Four at a time (one process per re-run) would never get them all in.
      const second = allInside(runs, 30_000);
      const rec = recordingHost(['first', 'second'], async (request) => {
        if (request.toolName === 'second') return okJson(await second.enter());
        await first.passed;
        return okJson((JSON.parse(request.argsJson) as { i: number }).i);
      });
      const pending = Array.from({ length: runs }, (_, i) =>
        sandbox.run({
          code: `const a = await tools.first({ i: ${i} }); const b = await tools.second({ i: ${i} }); return [a, b];`,
          toolNames: ['first', 'second'],
          hostCall: rec.hostCall,
        }),
      );
      await until(() => rec.calls.length === runs);
      const watch = watchReruns(sandbox);
      process.kill(pid, 'SIGKILL');
      // Answered before the host sees the death (the kernel frees a big process's memory
      // first): the answers never arrived, and the runs still count as waiting.
      first.open();
      const outcomes = await Promise.all(pending);
      const { peak } = await watch.stop();
      outcomes.forEach((outcome, i) => expectResult(outcome, [i, 'done']));
      // One body per call: the re-runs awaited the first attempt's calls and made the second ones.
      expect(rec.calls.filter((call) => call.toolName === 'first')).toHaveLength(runs);
      expect(rec.calls.filter((call) => call.toolName === 'second')).toHaveLength(runs);
      expect(peak).toStrictEqual({ alone: 0, shared: Math.ceil(runs / MAX_RUNS_PER_SHARED_RERUN) });
      await noRerunProcessesLeft(sandbox);
      await expectHealthy(sandbox);
    },
    CASE_MS,
  );

  it(
    'runs that were not waiting on the host (a guest timer, code running) are re-run alone; only the waiting ones share',
    async () => {
      const waiting = 6;
      await expectHealthy(sandbox);
      const pid = sandbox.childPid ?? 0;
      const first = gate();
      const rec = recordingHost(['first', 'started'], async (request) => {
        if (request.toolName === 'started') return okJson(true);
        await first.passed;
        return okJson((JSON.parse(request.argsJson) as { i: number }).i);
      });
      // Both tell the host they started, so the kill lands while each is where the test
      // means it to be, however slow the machine: one on a guest timer well past the kill,
      // the other in code running past it (a bounded loop of some seconds). The beacon
      // (started once both answers are out) makes the host hear from the process after
      // them: without it, the answer last sent would count as maybe not delivered and its
      // run as waiting.
      const onTimer = sandbox.run({
        // 10 s: the bounded loop below runs longer than that anyway (13 s here at load ~8), and
        // starting the other runs and the beacon before the kill took seconds under load.
        code: 'await tools.started({}); await new Promise((resolve) => setTimeout(resolve, 10_000)); return "timer";',
        toolNames: ['started'],
        hostCall: rec.hostCall,
      });
      const running = sandbox.run({
        code: 'await tools.started({}); let x = 0; for (let i = 0; i < 2e9 && x >= 0; i++) x = (x + i) % 1000; return "ran";',
        toolNames: ['started'],
        hostCall: rec.hostCall,
      });
      const pending = Array.from({ length: waiting }, (_, i) =>
        sandbox.run({ code: `return await tools.first({ i: ${i} });`, toolNames: ['first'], hostCall: rec.hostCall }),
      );
      await until(() => rec.calls.length === 2 + waiting && rec.inFlight === waiting);
      const { beacon, open: openBeacon } = await heardFrom(sandbox);
      const watch = watchReruns(sandbox);
      process.kill(pid, 'SIGKILL');
      await until(() => sandbox.rerunPids.shared.length > 0);
      first.open();
      openBeacon();
      expectResult(await beacon, 'beacon');
      expectResult(await onTimer, 'timer');
      expectResult(await running, 'ran');
      (await Promise.all(pending)).forEach((outcome, i) => expectResult(outcome, i));
      const { seen } = await watch.stop();
      // Each of the two lives a second or more, so the 10 ms watcher cannot miss one; they
      // need not be alive at the same moment (one may spawn late on a loaded machine).
      expect(seen).toStrictEqual({ alone: 2, shared: 1 });
      expect(rec.calls).toHaveLength(2 + waiting);
      await noRerunProcessesLeft(sandbox);
      await expectHealthy(sandbox);
    },
    CASE_MS,
  );

  it(
    'a message the process sent before an outcome reached it, read after it died, does not make the waiting run go alone',
    async () => {
      await expectHealthy(sandbox);
      const pid = sandbox.childPid ?? 0;
      const first = gate();
      const rec = recordingHost(['first', 'started'], async (request) => {
        if (request.toolName === 'started') return okJson(true);
        await first.passed;
        return okJson('answered');
      });
      const waiting = sandbox.run({
        code: 'return await tools.first({});',
        toolNames: ['first'],
        hostCall: rec.hostCall,
      });
      // Grows the process by 40 MB over a second or more (the guest's clock is frozen, so a
      // counted loop), so it reports its memory every 250 ms meanwhile.
      const growing = sandbox.run({
        code: `await tools.started({}); const keep = []; let x = 0;
        for (let i = 0; i < 160; i++) { keep.push(new Uint8Array(1 << 18).fill(1)); for (let j = 0; j < 3e6; j++) x = (x + j) % 7; }
        return keep.length + x > 0;`,
        toolNames: ['started'],
        hostCall: rec.hostCall,
      });
      await until(() => rec.calls.length === 2 && rec.inFlight === 1);
      // The host's thread stops reading while the process goes on sending memory reports;
      // then the process is frozen (so it cannot handle what comes next), the waiting run is
      // answered (in the same microtask flush) and the process killed before the host reads
      // anything: the reports read next were all sent before the answer.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 800);
      const watch = watchReruns(sandbox);
      process.kill(pid, 'SIGSTOP');
      first.open();
      for (let i = 0; i < 200; i++) await Promise.resolve();
      process.kill(pid, 'SIGKILL');
      expectResult(await waiting, 'answered');
      expectResult(await growing, true);
      const { seen } = await watch.stop();
      // The waiting run shares a re-run process (the growing one may share it or go alone).
      expect(seen.shared).toBe(1);
      expect(rec.calls).toHaveLength(2);
      await noRerunProcessesLeft(sandbox);
      await expectHealthy(sandbox);
    },
    CASE_MS,
  );

  it(
    'a shared re-run process that dies too: each of its runs is re-run alone, a few at a time, and finishes; no tool body runs twice, no log line is repeated',
    async () => {
      const runs = 8;
      await expectHealthy(sandbox);
      const pid = sandbox.childPid ?? 0;
      const { rec, first, second } = twoStepHost();
      const pending = Array.from({ length: runs }, (_, i) =>
        sandbox.run({
          code: `const a = await tools.first({ i: ${i} }); console.log("got " + a); const b = await tools.second({ i: ${i} }); return a * 10 + b;`,
          toolNames: ['first', 'second'],
          hostCall: rec.hostCall,
        }),
      );
      await until(() => rec.calls.length === runs);
      const watch = watchReruns(sandbox);
      process.kill(pid, 'SIGKILL');
      await until(() => sandbox.rerunPids.shared.length > 0);
      const [shared] = sandbox.rerunPids.shared;
      first.open();
      // The shared re-runs made their second calls (past the first attempt's record): kill them there.
      await until(() => rec.calls.length === 2 * runs, pending);
      process.kill(shared ?? 0, 'SIGKILL');
      await until(() => sandbox.rerunPids.alone.length > 0, pending);
      expect(sandbox.rerunPids.shared).toStrictEqual([]);
      // Every alone re-run is held in the shared attempt's second call until it opens, so as
      // many as are allowed come up together however slowly they spawn (no more, see below).
      await until(() => sandbox.rerunPids.alone.length === MAX_RERUN_PROCESSES, pending);
      second.open();
      const outcomes = await Promise.all(pending);
      const { peak } = await watch.stop();
      outcomes.forEach((outcome, i) => {
        expectResult(outcome, i * 11);
        expect(outcome.logs).toStrictEqual([`got ${i}`]);
      });
      // The alone re-runs awaited the shared attempt's second calls instead of making them again.
      expect(rec.calls).toHaveLength(2 * runs);
      expect(peak.shared).toBe(1);
      expect(peak.alone).toBe(MAX_RERUN_PROCESSES);
      await noRerunProcessesLeft(sandbox);
      await expectHealthy(sandbox);
    },
    CASE_MS,
  );

  it(
    'a culprit that looked idle kills its shared re-run process again: it is alone on the next round and fails there; the runs that shared with it finish',
    async () => {
      // The test plays the kernel's OOM killer: it kills the sandbox process holding the
      // culprit's 160 MB, whichever that is, every time.
      const hogMb = 160;
      const innocents = 5;
      await expectHealthy(sandbox);
      const pid = sandbox.childPid ?? 0;
      const idleMb = rssMb(pid);
      const first = gate();
      const rec = recordingHost(['first'], async (request) => {
        await first.passed;
        return okJson((JSON.parse(request.argsJson) as { i: number }).i);
      });
      const culprit = sandbox.run({
        code: `const hog = new Uint8Array(${hogMb} * 1048576).fill(7); const a = await tools.first({ i: -1 }); return hog[0] + a;`,
        toolNames: ['first'],
        hostCall: rec.hostCall,
        limits: { memoryMb: 2 * hogMb },
      });
      await until(() => rec.calls.length === 1);
      const pending = Array.from({ length: innocents }, (_, i) =>
        sandbox.run({ code: `return await tools.first({ i: ${i} });`, toolNames: ['first'], hostCall: rec.hostCall }),
      );
      await until(() => rec.calls.length === 1 + innocents);
      // The holder is the process that has begun filling the hog: HOG_STARTED_MB above what the
      // idle sandbox process holds (a re-run process without the culprit holds about as much,
      // 58-60 MB here). Not "the whole hog is in": beside busy loops a re-run's fill went so
      // slowly that after 90 s its process held 78 MB of the 160 (and 98 MB in another run).
      const holderMb = idleMb + HOG_STARTED_MB;
      const holdingHog = (pids: readonly number[]): number | undefined => pids.find((p) => rssMb(p) > holderMb);
      process.kill(pid, 'SIGKILL');
      // It was waiting on its call like the others: it shares a re-run process with them.
      let shared: number | undefined;
      await until(() => (shared = holdingHog(sandbox.rerunPids.shared)) !== undefined, [culprit, ...pending]);
      process.kill(shared ?? 0, 'SIGKILL');
      let alone: number | undefined;
      await until(() => (alone = holdingHog(sandbox.rerunPids.alone)) !== undefined, [culprit, ...pending]);
      process.kill(alone ?? 0, 'SIGKILL');
      expectFailure(await culprit, ['crash'], /stopped unexpectedly again when the run was re-run alone/);
      first.open();
      (await Promise.all(pending)).forEach((outcome, i) => expectResult(outcome, i));
      expect(rec.calls).toHaveLength(1 + innocents);
      await noRerunProcessesLeft(sandbox);
      await expectHealthy(sandbox);
    },
    CASE_MS,
  );
});
