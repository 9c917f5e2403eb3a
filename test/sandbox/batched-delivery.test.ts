// Outcomes of calls that settle together are handed to the guest in one crossing: every
// call still gets its own outcome (values and errors never mix up), in both isolation modes.
// The other way, calls a program makes in one synchronous stretch cross in one message.
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import { PreparedIsolate } from '../../sandbox/isolate-pool.ts';
import type { HostCallOutcome, HostCallRequest } from '../../sandbox/types.ts';
import { gate } from '../support/gate.ts';
import { expectOk } from './helpers.ts';

const boxes = {
  process: createSandbox({ poolSize: 1 }),
  'in-process': createSandbox({ isolation: 'in-process', poolSize: 1 }),
};
afterAll(() => Promise.all(Object.values(boxes).map((box) => box.close())));

describe.each(Object.entries(boxes))('batched delivery (%s)', (_mode, sandbox) => {
  it('ten calls released at the same moment each get their own value or error', async () => {
    const allWaiting = gate();
    let waiting = 0;
    const hostCall = async (request: HostCallRequest): Promise<HostCallOutcome> => {
      waiting += 1;
      if (waiting === 10) allWaiting.open();
      await allWaiting.passed;
      const { n } = JSON.parse(request.argsJson) as { n: number };
      return n % 3 === 0
        ? { ok: false, code: `E${n}`, message: `no ${n}` }
        : { ok: true, valueJson: JSON.stringify({ twice: n * 2 }) };
    };
    const outcome = await sandbox.run({
      code: `const all = await Promise.allSettled(Array.from({ length: 10 }, (_, n) => tools.f({ n })));
return all.map((r) => (r.status === 'fulfilled' ? r.value.twice : r.reason.code + ':' + r.reason.message));`,
      toolNames: ['f'],
      hostCall,
    });
    expectOk(
      outcome,
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => (n % 3 === 0 ? `E${n}:no ${n}` : n * 2)),
    );
  });

  it('a queued call (over maxConcurrentCalls) starts as soon as a batch frees its slot', async () => {
    const hostCall = async (request: HostCallRequest): Promise<HostCallOutcome> => ({
      ok: true,
      valueJson: request.argsJson,
    });
    const outcome = await sandbox.run({
      code: 'const r = await Promise.all(Array.from({ length: 50 }, (_, i) => tools.f({ i }))); return r.map((x) => x.i);',
      toolNames: ['f'],
      hostCall,
      limits: { maxConcurrentCalls: 3 },
    });
    expectOk(
      outcome,
      Array.from({ length: 50 }, (_, i) => i),
    );
  });
});

describe('batched calls (guest to host)', () => {
  const sandbox = createSandbox({ isolation: 'in-process', poolSize: 1 });
  afterAll(() => sandbox.close());

  it('calls made in one synchronous stretch cross to the host in one message', async () => {
    const messages: string[] = [];
    const receive = PreparedIsolate.prototype.receive;
    const spy = jest.spyOn(PreparedIsolate.prototype, 'receive').mockImplementation(function (
      this: PreparedIsolate,
      text,
    ) {
      messages.push(text);
      receive.call(this, text);
    });
    try {
      const outcome = await sandbox.run({
        code: 'const r = await Promise.all(Array.from({ length: 40 }, (_, i) => tools.f({ i }))); return r.map((x) => x.i);',
        toolNames: ['f'],
        hostCall: async (request) => ({ ok: true, valueJson: request.argsJson }),
        limits: { maxConcurrentCalls: 40 },
      });
      expectOk(
        outcome,
        Array.from({ length: 40 }, (_, i) => i),
      );
    } finally {
      spy.mockRestore();
    }
    const batches = messages.map((text) => JSON.parse(text) as { t: string; calls?: { seq: number }[] });
    const calls = batches.filter((m) => m.t === 'calls');
    expect(calls).toHaveLength(1);
    expect(calls[0]?.calls?.map((c) => c.seq)).toStrictEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(batches.filter((m) => m.t === 'call')).toHaveLength(0);
  });

  it('the host sees calls and log lines in the order the program made them', async () => {
    const seen: string[] = [];
    const outcome = await sandbox.run({
      code: 'const p = tools.f({ i: 1 }); console.log("after the call"); const q = tools.f({ i: 2 }); await Promise.all([p, q]); return 1;',
      toolNames: ['f'],
      hostCall: async (request) => {
        seen.push(`call ${request.argsJson}`);
        return { ok: true, valueJson: '1' };
      },
      onLog: (line) => seen.push(`log ${line}`),
    });
    expectOk(outcome, 1);
    expect(seen).toStrictEqual(['call {"i":1}', 'log after the call', 'call {"i":2}']);
  });
});
