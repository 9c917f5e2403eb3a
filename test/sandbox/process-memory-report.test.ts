// Process mode: the memory figure admission reads comes from the sandbox processes. While
// a run is in flight, its process reports the figure whenever it moves (not only with
// ready, done and the heartbeat's pong), so a run whose heap grew while it awaits a tool
// counts at once: a run that would not fit beside it waits instead of being admitted.
import { expect, it } from '@jest/globals';
import { ProcessSandbox } from '../../sandbox/process-sandbox.ts';
import type { HostCallOutcome } from '../../sandbox/types.ts';
import { AdmissionRefusal, RunAdmission } from '../../src/ptc/run-admission.ts';
import { expectOk, sleep } from './helpers.ts';
import { gate } from '../support/gate.ts';

const MiB = 1_048_576;

it('a run that grew its heap while awaiting a tool counts against admission before it ends', async () => {
  // A heartbeat that never comes during the test: no pong carries the figure.
  const box = new ProcessSandbox({ processes: 1, poolSize: 0, heartbeatMs: 600_000, unresponsiveMs: 1_200_000 });
  try {
    expectOk(
      await box.run({ code: 'return 1', toolNames: [], hostCall: async () => ({ ok: true, valueJson: 'null' }) }),
      1,
    );
    const before = box.memoryInUse();
    const admission = new RunAdmission({
      memoryBudgetBytes: before + 128 * MiB + 32 * MiB,
      measureMemory: () => box.memoryInUse(),
      queueTimeoutMs: 100,
    });
    (await admission.admit(128 * MiB)).release();

    const inTool = gate();
    let release!: (outcome: HostCallOutcome) => void;
    const released = new Promise<HostCallOutcome>((resolve) => (release = resolve));
    const running = box.run({
      // ~80 MiB of doubles, kept alive across the call.
      code: 'const big = new Array(10_000_000).fill(1.5); await tools.wait({}); return big.length;',
      toolNames: ['wait'],
      hostCall: () => {
        inTool.open();
        return released;
      },
    });
    await inTool.passed;
    // The figure catches up while the run waits (bounded wait for a failing test, not a timing check).
    for (let waited = 0; box.memoryInUse() < before + 64 * MiB && waited < 20_000; waited += 50) await sleep(50);
    expect(box.memoryInUse()).toBeGreaterThanOrEqual(before + 64 * MiB);
    // Beside it, a run with a 128 MiB heap no longer fits in the budget.
    const refused = await admission.admit(128 * MiB).then(
      (ticket) => {
        ticket.release();
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(AdmissionRefusal);
    expect((refused as AdmissionRefusal).reason).toBe('memory');
    release({ ok: true, valueJson: 'null' });
    expectOk(await running, 10_000_000);
  } finally {
    await box.close();
  }
}, 60_000);
