// A call that is the only thing a program has in flight blocks the isolate while the host
// answers it (for at most BLOCKING_CALL_WAIT_MS); anything else in flight, a pending timer,
// or a slower tool, and calls take the asynchronous way. The program sees the same values,
// errors, clock and parallelism either way, in both isolation modes.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import { blockingPipeStats } from '../../sandbox/blocking-call-pipe.ts';
import { blockingCallStats } from '../../sandbox/isolate-run.ts';
import { BLOCKING_CALL_WAIT_MS } from '../../sandbox/limits.ts';
import type { HostCallOutcome, HostCallRequest } from '../../sandbox/types.ts';
import { gate } from '../support/gate.ts';
import { expectOk, fakeHost, sleep } from './helpers.ts';

const boxes = {
  process: createSandbox({ poolSize: 1 }),
  'in-process': createSandbox({ isolation: 'in-process', poolSize: 1 }),
};
const asyncOnly = createSandbox({ isolation: 'in-process', poolSize: 1, blockingCalls: false });
afterAll(() => Promise.all([...Object.values(boxes), asyncOnly].map((box) => box.close())));

const echo = async (request: HostCallRequest): Promise<HostCallOutcome> => {
  const { n } = JSON.parse(request.argsJson) as { n: number };
  return n % 7 === 3 ? { ok: false, code: `E${n}`, message: `no ${n}` } : { ok: true, valueJson: String(n * 2) };
};

const SEQUENTIAL = `const out = [];
for (let n = 0; n < 40; n++) {
  try { out.push(await tools.f({ n })); } catch (e) { out.push(e.name + ':' + e.code + ':' + e.message); }
}
return out;`;
const sequentialResult = Array.from({ length: 40 }, (_, n) => (n % 7 === 3 ? `ToolCallError:E${n}:no ${n}` : n * 2));

describe.each(Object.entries(boxes))('blocking calls (%s)', (_mode, sandbox) => {
  it('sequential calls get their own values and errors', async () => {
    expectOk(await sandbox.run({ code: SEQUENTIAL, toolNames: ['f'], hostCall: echo }), sequentialResult);
  });

  it('a value reaches the program as its JSON says, whatever the text holds', async () => {
    // Spaces, newlines, text that reads like a reply's header, non-ASCII; then text that is not JSON.
    const texts = [
      '" v1 2 3 "',
      '{ "a" : [ 1 , -0 ] ,\n "b": "x y" }',
      '  7  ',
      '"\\u2028 é 😀 \\" v"',
      '[]',
      'v1 2 3',
    ];
    const hostCall = async (request: HostCallRequest): Promise<HostCallOutcome> => ({
      ok: true,
      valueJson: texts[(JSON.parse(request.argsJson) as { i: number }).i] as string,
    });
    const code = `const out = [];
for (let i = 0; i < ${texts.length}; i++) {
  try { out.push(await tools.f({ i })); } catch (e) { out.push(e.code); }
}
return out;`;
    expectOk(await sandbox.run({ code, toolNames: ['f'], hostCall }), [
      ' v1 2 3 ',
      { a: [1, -0], b: 'x y' },
      7,
      '\u2028 é 😀 " v',
      [],
      'INVALID_RESULT',
    ]);
  });

  it('a tool slower than the blocking wait still answers, the asynchronous way', async () => {
    const hostCall = async (request: HostCallRequest): Promise<HostCallOutcome> => {
      await sleep(BLOCKING_CALL_WAIT_MS * 15);
      return echo(request);
    };
    const code = 'const a = await tools.f({ n: 1 }); const b = await tools.f({ n: 2 }); return [a, b];';
    expectOk(await sandbox.run({ code, toolNames: ['f'], hostCall }), [2, 4]);
  });

  it("the guest clock moves to the outcome's recorded time, as on the asynchronous path", async () => {
    const at = Date.now() + 3_600_000;
    const hostCall = async (): Promise<HostCallOutcome> => ({ ok: true, valueJson: '1', at });
    const outcome = await sandbox.run({
      code: 'await tools.f({}); return Date.now();',
      toolNames: ['f'],
      hostCall,
    });
    expectOk(outcome);
    expect(outcome.ok && (outcome.result as number) >= at).toBe(true);
  });

  it('a timer set before a slow call fires while the call is out', async () => {
    // The call is answered only once the timer has said it fired (a host sleep could end
    // first when a loaded machine holds the process back); were the isolate blocked on the
    // call, the timer could not fire and the run would end on its wall clock.
    const fired = gate();
    const hostCall = async (): Promise<HostCallOutcome> => {
      await fired.passed;
      return { ok: true, valueJson: '"late"' };
    };
    const code = `const order = [];
setTimeout(() => { order.push('timer'); console.log('timer fired'); }, 5);
order.push(await tools.f({}));
return order;`;
    const onLog = (line: string): void => {
      if (line === 'timer fired') fired.open();
    };
    expectOk(await sandbox.run({ code, toolNames: ['f'], hostCall, onLog }), ['timer', 'late']);
  });

  it('a call the program does not await does not hold it: the program ends, the call is aborted', async () => {
    const host = fakeHost(
      (request) =>
        new Promise<HostCallOutcome>((resolve) => {
          request.signal.addEventListener('abort', () => resolve({ ok: false, code: 'ABORTED', message: 'aborted' }));
        }),
    );
    const started = Date.now();
    const outcome = await sandbox.run({
      code: 'tools.stuck({}); return "done";',
      toolNames: ['stuck'],
      hostCall: host.hostCall,
      limits: { wallTimeMs: 20_000 },
    });
    expectOk(outcome, 'done');
    // Generous: the wall clock (20 s) is what a blocked program would have waited for.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(host.calls.map((call) => call.toolName)).toStrictEqual(['stuck']);
    expect(host.aborted).toStrictEqual([1]);
  });

  it('Promise.all keeps its parallelism', async () => {
    const allInFlight = gate();
    const host = fakeHost(async (request) => {
      if (host.inFlight === 10) allInFlight.open();
      await allInFlight.passed;
      return echo(request);
    });
    const code = 'return (await Promise.all(Array.from({ length: 10 }, (_, i) => tools.f({ n: i * 7 })))).length;';
    expectOk(await sandbox.run({ code, toolNames: ['f'], hostCall: host.hostCall }), 10);
    expect(host.maxInFlight).toBe(10);
  });
});

describe('which path a call takes (in-process, where the counts are visible)', () => {
  const sandbox = boxes['in-process'];
  const counted = async (run: () => Promise<unknown>): Promise<{ answered: number; released: number }> => {
    const before = { ...blockingCallStats };
    await run();
    return {
      answered: blockingCallStats.answered - before.answered,
      released: blockingCallStats.released - before.released,
    };
  };

  it('a quick tool awaited one call at a time is answered while the isolate waits', async () => {
    const counts = await counted(async () =>
      expectOk(await sandbox.run({ code: SEQUENTIAL, toolNames: ['f'], hostCall: echo }), sequentialResult),
    );
    expect(counts).toStrictEqual({ answered: 40, released: 0 });
  });

  it('calls with others in flight, or with a timer pending, never block', async () => {
    const parallel = 'return (await Promise.all([1, 2, 4].map((n) => tools.f({ n })))).length;';
    const timer =
      'const t = setTimeout(() => {}, 60_000); const v = await tools.f({ n: 1 }); clearTimeout(t); return v;';
    const counts = await counted(async () => {
      expectOk(await sandbox.run({ code: parallel, toolNames: ['f'], hostCall: echo }), 3);
      expectOk(await sandbox.run({ code: timer, toolNames: ['f'], hostCall: echo }), 2);
    });
    expect(counts).toStrictEqual({ answered: 0, released: 0 });
  });

  it('a call the program goes on without awaiting never blocks it', async () => {
    const bothInFlight = gate();
    const host = fakeHost(async (request) => {
      if (host.inFlight === 2) bothInFlight.open();
      await bothInFlight.passed;
      return echo(request);
    });
    const stuck = fakeHost(
      (request) =>
        new Promise<HostCallOutcome>((resolve) => {
          request.signal.addEventListener('abort', () => resolve({ ok: false, code: 'ABORTED', message: 'aborted' }));
        }),
    );
    const counts = await counted(async () => {
      expectOk(
        await sandbox.run({ code: 'tools.stuck({}); return "done";', toolNames: ['stuck'], hostCall: stuck.hostCall }),
        'done',
      );
      // The second call is made a turn later: both are in flight together.
      const code = 'const a = tools.f({ n: 1 }); await null; const b = tools.f({ n: 2 }); return [await a, await b];';
      expectOk(await sandbox.run({ code, toolNames: ['f'], hostCall: host.hostCall }), [2, 4]);
    });
    expect(counts).toStrictEqual({ answered: 0, released: 0 });
    expect(host.maxInFlight).toBe(2);
  });

  it('a slow tool releases the isolate after the blocking wait', async () => {
    const hostCall = async (request: HostCallRequest): Promise<HostCallOutcome> => {
      await sleep(BLOCKING_CALL_WAIT_MS * 15);
      return echo(request);
    };
    const counts = await counted(async () =>
      expectOk(await sandbox.run({ code: 'return await tools.f({ n: 5 });', toolNames: ['f'], hostCall }), 10),
    );
    expect(counts).toStrictEqual({ answered: 0, released: 1 });
  });

  it('slow calls after quick ones, and one after another, are each released (one timer bounds them all)', async () => {
    // Odd n: slow (well past the wait); even n: quick. The run's one release timer was
    // armed by an earlier call each time a slow one starts.
    const hostCall = async (request: HostCallRequest): Promise<HostCallOutcome> => {
      const { n } = JSON.parse(request.argsJson) as { n: number };
      if (n % 2 === 1) await sleep(BLOCKING_CALL_WAIT_MS * 10);
      return echo(request);
    };
    const code = `const out = [];
for (const n of [0, 2, 4, 1, 6, 5, 9, 8]) out.push(await tools.f({ n }));
return out;`;
    const started = performance.now();
    const counts = await counted(async () =>
      expectOk(await sandbox.run({ code, toolNames: ['f'], hostCall }), [0, 4, 8, 2, 12, 10, 18, 16]),
    );
    expect(counts).toStrictEqual({ answered: 5, released: 3 });
    // Each slow call still took its full time on the host (none was answered early).
    expect(performance.now() - started).toBeGreaterThanOrEqual(BLOCKING_CALL_WAIT_MS * 10 * 3);
  });

  it('blockingCalls: false sends every call the asynchronous way', async () => {
    const counts = await counted(async () =>
      expectOk(await asyncOnly.run({ code: SEQUENTIAL, toolNames: ['f'], hostCall: echo }), sequentialResult),
    );
    expect(counts).toStrictEqual({ answered: 0, released: 0 });
  });
});

describe('process mode: the blocking-call pipes', () => {
  it('a sandbox process with one run sends each call it blocks on over the pipes, each answered once', async () => {
    const before = { ...blockingPipeStats };
    expectOk(await boxes.process.run({ code: SEQUENTIAL, toolNames: ['f'], hostCall: echo }), sequentialResult);
    const answered = blockingPipeStats.answered - before.answered;
    const released = blockingPipeStats.released - before.released;
    // Released only when the host was more than the blocking wait late (a loaded machine).
    expect(answered + released).toBe(40);
    expect(answered).toBeGreaterThan(0);
  });

  it('a tool error message with a lone surrogate (clipped mid-emoji) reaches the program as over IPC', async () => {
    const hostCall = async (): Promise<HostCallOutcome> => ({ ok: false, code: 'BAD', message: 'a\ud800b' });
    const code = `try { await tools.f({}); } catch (e) { return [e.code, e.message.length, e.message.charCodeAt(1)]; }`;
    // A call is released to IPC when a message to the process (a heartbeat ping) is on its
    // way, or the IPC messages sent before it are read late (load): run until one crossed
    // the pipe, and every attempt gets the same answer.
    let piped = 0;
    for (let attempt = 0; attempt < 20 && piped === 0; attempt++) {
      const before = { ...blockingPipeStats };
      expectOk(await boxes.process.run({ code, toolNames: ['f'], hostCall }), ['BAD', 3, 0xd800]);
      piped = blockingPipeStats.answered - before.answered;
    }
    expect(piped).toBe(1);
    expectOk(await asyncOnly.run({ code, toolNames: ['f'], hostCall }), ['BAD', 3, 0xd800]);
  });

  it('blockingCalls: false opens no pipes', async () => {
    const sandbox = createSandbox({ poolSize: 1, blockingCalls: false });
    try {
      const before = { ...blockingPipeStats };
      expectOk(await sandbox.run({ code: SEQUENTIAL, toolNames: ['f'], hostCall: echo }), sequentialResult);
      expect(blockingPipeStats).toStrictEqual(before);
    } finally {
      await sandbox.close();
    }
  });
});
