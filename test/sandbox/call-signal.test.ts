// tools.x(args, { signal }): the program aborts one nested call. Its promise rejects at
// once with the signal's reason, the host's call sees its own signal abort (so a
// Promise.race against a timeout really stops the loser), a call whose signal is already
// aborted is never sent, and a call aborted while it waited in the guest's queue is
// aborted on the host as soon as it is sent. Both isolation modes.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import type { HostCallOutcome, HostCallRequest } from '../../sandbox/types.ts';
import { expectOk, ok, untilAborted } from './helpers.ts';

interface Seen {
  readonly seq: number;
  readonly tool: string;
  aborted: boolean;
}

function host(): { seen: Seen[]; hostCall: (request: HostCallRequest) => Promise<HostCallOutcome> } {
  const seen: Seen[] = [];
  return {
    seen,
    hostCall: async (request) => {
      const entry: Seen = { seq: request.seq, tool: request.toolName, aborted: false };
      seen.push(entry);
      if (request.toolName === 'fast') return ok({ fast: request.seq });
      // 'slow' answers only when its call is aborted (or after 10 s). The timer is cleared:
      // left running, it would keep the test worker alive 10 s after the file ends.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([untilAborted(request.signal), new Promise((r) => (timer = setTimeout(r, 10_000)))]);
      clearTimeout(timer);
      entry.aborted = request.signal.aborted;
      return { ok: false, code: 'ABORTED', message: 'aborted on the host' };
    },
  };
}

describe.each(['in-process', 'process'] as const)('tools.x(args, { signal }) (%s)', (isolation) => {
  const sandbox = createSandbox({ isolation, poolSize: 1, limits: { wallTimeMs: 20_000 } });
  afterAll(() => sandbox.close());

  it('aborts the one call on the host; the program sees the reason at once', async () => {
    const { seen, hostCall } = host();
    const started = Date.now();
    const outcome = await sandbox.run({
      code: `
        const ac = new AbortController();
        const pending = tools.slow({ n: 1 }, { signal: ac.signal });
        setTimeout(() => ac.abort(), 20);
        let first;
        try { await pending; first = 'resolved'; } catch (e) { first = [e.name, e.message]; }
        const timeout = (ms) => new Promise((_, reject) => setTimeout(() => reject(new Error('too slow')), ms));
        const race = new AbortController();
        let second;
        try { second = await Promise.race([tools.slow({ n: 2 }, { signal: race.signal }), timeout(30)]); } catch (e) { second = e.message; race.abort(); }
        let third;
        try { await tools.slow({ n: 3 }, { signal: AbortSignal.abort('already') }); } catch (e) { third = e; }
        let fourth;
        try { await tools.slow({ n: 4 }, { signal: AbortSignal.timeout(25) }); } catch (e) { fourth = [e.name, e.message]; }
        const after = await tools.fast({}, { signal: new AbortController().signal });
        let bad;
        try { await tools.fast({}, { signal: 'nope' }); } catch (e) { bad = [e.name, e.message]; }
        return { first, second, third, fourth, after, bad };
      `,
      toolNames: ['slow', 'fast'],
      hostCall,
    });
    expectOk(outcome, {
      first: ['AbortError', 'This operation was aborted'],
      second: 'too slow',
      third: 'already',
      fourth: ['TimeoutError', 'The operation was aborted due to timeout'],
      after: { fast: 4 },
      bad: ['TypeError', 'tools.fast(args, { signal }): signal must be an AbortSignal'],
    });
    expect(Date.now() - started).toBeLessThan(8_000);
    // Calls 1, 2 and 4 (seq 3) reached the host and were aborted there; the already-aborted one never left.
    expect(seen.map((s) => [s.seq, s.tool])).toStrictEqual([
      [1, 'slow'],
      [2, 'slow'],
      [3, 'slow'],
      [4, 'fast'],
    ]);
    await new Promise((r) => setTimeout(r, 50));
    expect(seen.slice(0, 3).map((s) => s.aborted)).toStrictEqual([true, true, true]);
  });

  it('a call aborted while it waits in the queue (maxConcurrentCalls) is aborted on the host once sent', async () => {
    const { seen, hostCall } = host();
    const outcome = await sandbox.run({
      code: `
        const first = new AbortController();
        const queued = new AbortController();
        const a = tools.slow({}, { signal: first.signal }).catch((e) => e.name);
        const b = tools.slow({}, { signal: queued.signal }).catch((e) => e.name);
        queued.abort();
        const bResult = await b;
        setTimeout(() => first.abort(), 10);
        const aResult = await a;
        // Call 1's outcome frees the slot: call 2 is sent now, and aborted on the host at once.
        // A third call queues behind it, so it is sent only once call 2's outcome is back
        // (a timer here could end the run first on a loaded machine, call 2 never sent).
        const after = await tools.fast({});
        return [aResult, bResult, after];
      `,
      toolNames: ['slow', 'fast'],
      hostCall,
      limits: { maxConcurrentCalls: 1 },
    });
    expectOk(outcome, ['AbortError', 'AbortError', { fast: 3 }]);
    expect(seen.map((s) => [s.seq, s.tool, s.aborted])).toStrictEqual([
      [1, 'slow', true],
      [2, 'slow', true],
      [3, 'fast', false],
    ]);
  });
});
