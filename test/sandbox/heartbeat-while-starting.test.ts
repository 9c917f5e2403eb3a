// The watchdog's heartbeat keeps going while the only sandbox process with runs is still
// starting. It used to stop there (no ready process had runs): the process then became
// ready, ran its run into a long tool call and was never pinged, so it sent nothing, and
// the next run's assignment restarted the heartbeat, which found it silent all along and
// killed it: a healthy run lost (seen with re-run processes on a loaded machine).
import { afterAll, expect, it } from '@jest/globals';
import { ProcessSandbox } from '../../sandbox/process-sandbox.ts';
import { gate } from '../support/gate.ts';
import { untilArrived } from '../support/until-arrived.ts';
import { expectOk, fakeHost, ok, sleep } from './helpers.ts';

const HEARTBEAT_MS = 100;
const UNRESPONSIVE_MS = 400;
// Two processes: the later run goes to the other one, whose assignment restarted the heartbeat.
const sandbox = new ProcessSandbox({
  processes: 2,
  poolSize: 0,
  heartbeatMs: HEARTBEAT_MS,
  unresponsiveMs: UNRESPONSIVE_MS,
  limits: { wallTimeMs: 60_000 },
});
afterAll(() => sandbox.close());

it('a process that was still starting when its run came is pinged once ready, and a later run does not find it silent', async () => {
  const pid = sandbox.childPid;
  if (pid === undefined) throw new Error('no sandbox process');
  // Held before it is ready, for several heartbeats, with a run assigned to it.
  process.kill(pid, 'SIGSTOP');
  const firstGate = gate();
  const waiting = fakeHost(async () => {
    await firstGate.passed;
    return ok('done');
  });
  const first = sandbox.run({ code: 'return await tools.wait({});', toolNames: ['wait'], hostCall: waiting.hostCall });
  await sleep(5 * HEARTBEAT_MS);
  process.kill(pid, 'SIGCONT');
  await untilArrived(() => waiting.calls.length === 1, [first]);
  // In its call, sending nothing of its own, for longer than the watchdog allows silence.
  await sleep(3 * UNRESPONSIVE_MS);
  const secondGate = gate();
  const other = fakeHost(async () => {
    await secondGate.passed;
    return ok(2);
  });
  const second = sandbox.run({ code: 'return await tools.wait({});', toolNames: ['wait'], hostCall: other.hostCall });
  await untilArrived(() => other.calls.length === 1, [first, second]);
  // Heartbeats enough for a stale silence to be judged.
  await sleep(3 * UNRESPONSIVE_MS);
  firstGate.open();
  secondGate.open();
  expectOk(await first, 'done');
  expectOk(await second, 2);
  expect(sandbox.childPids).toContain(pid);
}, 60_000);
