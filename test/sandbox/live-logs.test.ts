// `onLog` streams a run's console lines while it runs, in both isolation modes: a line
// logged before an await reaches the host before that await's tool call is answered,
// the streamed lines are exactly the outcome's logs (cap and marker included), and a
// listener that throws changes nothing.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import { expectOk, ok } from './helpers.ts';
import { gate } from '../support/gate.ts';

const MODES = ['in-process', 'process'] as const;

describe.each(MODES)('sandbox live logs (%s)', (isolation) => {
  const sandbox = createSandbox({ isolation, poolSize: 1, limits: { wallTimeMs: 20_000, cpuTimeMs: 5_000 } });
  afterAll(() => sandbox.close());

  it('delivers a line before the run ends: the tool answers only once it has seen the line', async () => {
    const seen: string[] = [];
    const before = gate();
    const code = `
      console.log('before', 1);
      const value = await tools.wait({});
      console.log('after', value);
      return value;
    `;
    const outcome = await sandbox.run({
      code,
      toolNames: ['wait'],
      // Were logs only delivered at the end, this call would never be answered and the run would time out.
      hostCall: async () => {
        await before.passed;
        return ok(`seen ${seen.length}`);
      },
      onLog: (line) => {
        seen.push(line);
        if (line === 'before 1') before.open();
      },
    });
    expectOk(outcome, 'seen 1');
    expect(seen).toStrictEqual(['before 1', 'after seen 1']);
    expect(outcome.logs).toStrictEqual(seen);
  });

  it('streams exactly the capped lines and the truncation marker, once', async () => {
    const seen: string[] = [];
    const code = `for (let i = 0; i < 50; i++) console.log('line ' + i + ' ' + 'x'.repeat(20)); return 1;`;
    const outcome = await sandbox.run({
      code,
      toolNames: [],
      hostCall: async () => ok(null),
      limits: { maxLogBytes: 200 },
      onLog: (line) => seen.push(line),
    });
    expectOk(outcome, 1);
    expect(seen.at(-1)).toBe('[log output truncated: more than 200 bytes]');
    expect(seen.filter((line) => line.startsWith('[log output truncated')).length).toBe(1);
    expect(outcome.logs).toStrictEqual(seen);
  });

  it('ignores a listener that throws', async () => {
    const code = `console.log('a'); console.log('b'); return 2;`;
    const outcome = await sandbox.run({
      code,
      toolNames: [],
      hostCall: async () => ok(null),
      onLog: () => {
        throw new Error('listener bug');
      },
    });
    expectOk(outcome, 2);
    expect(outcome.logs).toStrictEqual(['a', 'b']);
  });

  it('refuses an onLog that is not a function', async () => {
    const request = {
      code: 'return 1',
      toolNames: [],
      hostCall: async () => ok(null),
      onLog: 'yes',
    } as unknown as Parameters<typeof sandbox.run>[0];
    await expect(sandbox.run(request)).rejects.toThrow(/request\.onLog must be a function/);
  });
});
