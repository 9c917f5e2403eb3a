// Step recovery inside a run_code program: when the journal fails on a nested call's
// commit, the program sees a ToolCallError with code SCHEDULER_FAILURE for that call and
// for every later one (not run), run_code itself still commits, and replay shows the
// nested call as interrupted under a committed parent.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import { createMemoryJournal, createToolRuntime, type Journal } from '../../src/index.ts';
import { replayJournal } from '../../src/journal/replay-journal.ts';
import { registerPaymentTools } from './fixtures/payment-tools.ts';

const sandbox = createSandbox({ isolation: 'in-process' });
afterAll(() => sandbox.close());

describe('step recovery in a program', () => {
  it('a failed nested commit is a SCHEDULER_FAILURE the program can read; later calls do not run', async () => {
    const store = createMemoryJournal();
    // The append that carries the first nested call's result fails (the run's own events,
    // e.g. run/start, and the call's write-ahead record go through).
    const failsFirstNestedResult = (events: Parameters<Journal['append']>[0]): boolean =>
      events.some((event) => event.type === 'tool/result' && event.callId === 'run-1:ptc:1');
    const journal: Journal = {
      append: (events) => (failsFirstNestedResult(events) ? Promise.reject(new Error('EIO')) : store.append(events)),
      read: () => store.read(),
    };
    const rt = createToolRuntime({ mode: 'ptc', sandbox, journal });
    registerPaymentTools(rt);
    const ran: string[] = [];
    rt.on('tools/pre-execute', (exec, next) => (ran.push(exec.callId), next()));
    const code = `
      const codes = [];
      for (const who of ['ann', 'bob']) {
        try { await tools.lookup({ who }); codes.push('ok'); } catch (e) { codes.push(e.code + ': ' + e.message); }
      }
      return codes;`;
    const result = await rt.execute({
      callId: 'run-1',
      name: 'run_code',
      arguments: { description: 'Look up two payees', code },
    });
    expect(result.isError).toBe(false);
    expect((result.value as { result: string[] }).result).toEqual([
      'SCHEDULER_FAILURE: tool scheduler failed: EIO; the call was dispatched and may have run, but its result was not committed',
      'SCHEDULER_FAILURE: tool scheduler failed: EIO; the call was not run',
    ]);
    expect(ran).toEqual(['run-1', 'run-1:ptc:1']);
    const replay = await replayJournal(store, rt);
    expect(replay.executions.map((e) => e.callId)).toEqual(['run-1']);
    expect(replay.interrupted.map((c) => [c.callId, c.parentCallId])).toEqual([['run-1:ptc:1', 'run-1']]);
    await rt.close();
  });
});
