// The frame a blocked call crosses in (guest -> host): what the guest writes reads back as
// the same call, and the host refuses any text that is not such a frame.
import { afterAll, describe, expect, it } from '@jest/globals';
import { readBlockedCall, writeBlockedCall } from '../../sandbox/blocked-call-text.ts';
import { createSandbox } from '../../sandbox/index.ts';
import { blockingCallStats } from '../../sandbox/isolate-run.ts';
import type { HostCallOutcome, HostCallRequest } from '../../sandbox/types.ts';
import { expectOk } from './helpers.ts';

describe('blocked call frames', () => {
  it('read back as the call written, whatever the tool name and arguments hold', () => {
    const cases: [number, string, string][] = [
      [1, 'noop', '{"n":1}'],
      [42, '', '{}'],
      [7, 'a 1 b', '{"text":"c1 2 x"}'],
      [123_456_789_012, '12', ' 9 '],
      [3, 'é😀 tool', '{"s":"\\u2028 😀"}'],
      [5, 'x', ''],
    ];
    for (const [seq, tool, args] of cases) {
      expect(readBlockedCall(writeBlockedCall(seq, tool, args))).toStrictEqual({ seq, tool, args });
    }
  });

  it('refuse text that is not a frame', () => {
    const bad = [
      '',
      'c',
      '{"t":"call","seq":1,"tool":"a","args":"{}"}',
      'x1 1 a{}',
      'c 1 a{}',
      'c1 a{}',
      'c1  1 a{}',
      'c-1 1 a{}',
      'c1.5 1 a{}',
      'c1 1e1 a{}',
      'c1 +1 a{}',
      'c1 9 a{}',
      'c1234567890123456 1 a{}',
      'c1 1234567890123456 a{}',
    ];
    for (const text of bad) expect([text, readBlockedCall(text)]).toStrictEqual([text, undefined]);
  });
});

describe('a blocked call through the sandbox', () => {
  const sandbox = createSandbox({ isolation: 'in-process', poolSize: 1 });
  afterAll(() => sandbox.close());

  it('keeps a tool name with spaces and digits, and its arguments, as the program gave them', async () => {
    const seen: [number, string, string][] = [];
    const hostCall = async (request: HostCallRequest): Promise<HostCallOutcome> => {
      seen.push([request.seq, request.toolName, request.argsJson]);
      return { ok: true, valueJson: request.argsJson };
    };
    const before = blockingCallStats.answered;
    const code = `const a = await tools['a 1 b']({ text: 'c1 2 x', n: -0 });
const b = await tools['12']({ s: '\\u2028 😀' });
return [a, b];`;
    expectOk(await sandbox.run({ code, toolNames: ['a 1 b', '12'], hostCall }), [
      { text: 'c1 2 x', n: -0 },
      { s: '\u2028 😀' },
    ]);
    expect(seen).toStrictEqual([
      [1, 'a 1 b', '{"text":"c1 2 x","n":-0}'],
      [2, '12', '{"s":"\u2028 😀"}'],
    ]);
    expect(blockingCallStats.answered - before).toBe(2);
  });
});
