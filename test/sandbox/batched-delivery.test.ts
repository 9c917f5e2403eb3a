// Outcomes of calls that settle together are handed to the guest in one crossing: every
// call still gets its own outcome (values and errors never mix up), in both isolation modes.
import { afterAll, describe, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import type { HostCallOutcome, HostCallRequest } from '../../sandbox/types.ts';
import { expectOk } from './helpers.ts';

const boxes = {
  process: createSandbox({ poolSize: 1 }),
  'in-process': createSandbox({ isolation: 'in-process', poolSize: 1 }),
};
afterAll(() => Promise.all(Object.values(boxes).map((box) => box.close())));

describe.each(Object.entries(boxes))('batched delivery (%s)', (_mode, sandbox) => {
  it('ten calls released at the same moment each get their own value or error', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let waiting = 0;
    const hostCall = async (request: HostCallRequest): Promise<HostCallOutcome> => {
      waiting += 1;
      if (waiting === 10) release();
      await gate;
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
