// Process mode: the blocking-call pipes and the IPC channel are separate streams, yet
// everything between the host and a sandbox process happens in the order it was sent.
// An answer on the pipe never overtakes a message the host already sent over IPC (a
// cancel: the run ends as `abort`, not as the program's error), and a call on the pipe
// never overtakes the IPC messages the program sent before it (a log line), while a
// program that logs still takes the pipes.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import { blockingPipeStats } from '../../sandbox/blocking-call-pipe.ts';
import type { HostCallOutcome, HostCallRequest } from '../../sandbox/types.ts';
import { expectOk } from './helpers.ts';

const sandbox = createSandbox({ poolSize: 2, processes: 1 });
afterAll(() => sandbox.close());

describe('process mode, blocking calls: order between the pipes and IPC', () => {
  it('a run aborted between two calls ends as abort, every time', async () => {
    const ends: Record<string, number> = {};
    for (let i = 0; i < 40; i++) {
      const controller = new AbortController();
      // The abort lands while the program is between two calls: its next call may already
      // be on the pipe when the host's cancel is on its way over IPC.
      const hostCall = async (request: HostCallRequest): Promise<HostCallOutcome> => {
        if (request.seq === 5) setImmediate(() => controller.abort());
        return { ok: true, valueJson: '1' };
      };
      const outcome = await sandbox.run({
        code: 'let s = 0; for (;;) s += await tools.f({});',
        toolNames: ['f'],
        hostCall,
        signal: controller.signal,
        limits: { wallTimeMs: 20_000 },
      });
      const end = outcome.ok ? 'ok' : `${outcome.kind}: ${outcome.message}`;
      ends[end] = (ends[end] ?? 0) + 1;
    }
    expect(ends).toStrictEqual({ 'abort: The run was cancelled.': 40 });
  }, 120_000);

  it('a log line stays before the call made after it, and the calls still cross the pipes', async () => {
    const timeline: string[] = [];
    const hostCall = async (request: HostCallRequest): Promise<HostCallOutcome> => {
      const { n } = JSON.parse(request.argsJson) as { n: number };
      timeline.push(`call ${n}`);
      return { ok: true, valueJson: String(n) };
    };
    const code = `for (let n = 0; n < 200; n++) { console.log('log ' + n); await tools.f({ n }); } return 'done';`;
    const before = blockingPipeStats.answered + blockingPipeStats.released;
    const outcome = await sandbox.run({ code, toolNames: ['f'], hostCall, onLog: (line) => timeline.push(line) });
    expectOk(outcome, 'done');
    expect(timeline).toStrictEqual(Array.from({ length: 200 }, (_, n) => [`log ${n}`, `call ${n}`]).flat());
    // Every call blocked on the pipes (answered there, or released when the host was late).
    expect(blockingPipeStats.answered + blockingPipeStats.released - before).toBe(200);
  }, 60_000);
});
