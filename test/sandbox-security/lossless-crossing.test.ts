// Values cross the sandbox boundary without loss in both directions: -0 arrives as -0;
// what JSON cannot carry (extra properties on arrays, non-enumerable and symbol-keyed
// properties) is refused with the path where it sits, never silently dropped.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import { createToolRuntime, defineTool } from '../../src/index.ts';
import type { JsonValue } from '../../src/index.ts';
import { guestValueJson } from '../../src/ptc/guest-value-json.ts';
import { expectFailure, expectHealthy, expectResult, memorySnapshot, peakGrowthMb, recordingHost } from './helpers.ts';

const sandbox = createSandbox();
afterAll(() => sandbox.close());

const REFUSED: readonly [string, string, RegExp][] = [
  ['an array with a named property', 'const v = [1, 2]; v.extra = 3;', /extra property "extra".*at \w+\.v/],
  ['an array with a negative index', 'const v = [1]; v["-1"] = 0;', /extra property "-1"/],
  ['an array with a non-canonical index', 'const v = [1]; v["01"] = 0;', /extra property "01"/],
  ['an array with a symbol key', 'const v = [1]; v[Symbol("s")] = 1;', /symbol-keyed property/],
  ['an object with a symbol key', 'const v = { a: 1, [Symbol.iterator]: 2 };', /symbol-keyed property/],
  [
    'an object with a non-enumerable property',
    'const v = { a: 1 }; Object.defineProperty(v, "hidden", { value: 2, enumerable: false });',
    /non-enumerable property "hidden"/,
  ],
  [
    'a deep non-enumerable property',
    'const v = { a: [{ b: {} }] }; Object.defineProperty(v.a[0].b, "h", { value: 1 });',
    /non-enumerable property "h".*\.v\.a\[0\]\.b/,
  ],
  [
    'a null-prototype object with a symbol key',
    'const v = Object.create(null); v.x = 1; v[Symbol("k")] = 2;',
    /symbol-keyed property/,
  ],
];

describe('guest to host', () => {
  it.each(REFUSED)(
    'tool arguments holding %s are refused with INVALID_ARGS and the path',
    async (_name, setup, message) => {
      const rec = recordingHost(['a']);
      const outcome = await sandbox.run({
        code: `${setup}\ntry { await tools.a({ v }); return "sent"; } catch (e) { return e.code + ": " + e.message; }`,
        toolNames: ['a'],
        hostCall: rec.hostCall,
      });
      if (!outcome.ok) throw new Error(outcome.message);
      expect(String(outcome.result)).toMatch(/^INVALID_ARGS: /);
      expect(String(outcome.result)).toMatch(message);
      expect(rec.calls).toHaveLength(0);
      await expectHealthy(sandbox);
    },
  );

  it.each(REFUSED)('a returned value holding %s is refused as invalid-output', async (_name, setup, message) => {
    const outcome = await sandbox.run({
      code: `${setup}\nreturn { v };`,
      toolNames: [],
      hostCall: recordingHost([]).hostCall,
    });
    expectFailure(outcome, ['invalid-output'], new RegExp(message.source.replace('\\w+', 'result')));
    await expectHealthy(sandbox);
  });

  it('-0 crosses as -0, in arguments and in the returned value, at any depth', async () => {
    const rec = recordingHost(['a']);
    const outcome = await sandbox.run({
      code: 'await tools.a({ z: -0, list: [0, -0, { n: -0 }], m: Math.round(-0.2) }); return [-0, 0, { d: -0 }];',
      toolNames: ['a'],
      hostCall: rec.hostCall,
    });
    expectResult(outcome, [-0, 0, { d: -0 }]);
    if (!outcome.ok) return;
    const result = outcome.result as [number, number, { d: number }];
    expect(Object.is(result[0], -0)).toBe(true);
    expect(Object.is(result[1], 0)).toBe(true);
    expect(Object.is(result[2].d, -0)).toBe(true);
    const args = JSON.parse(rec.calls[0]?.argsJson ?? 'null') as {
      z: number;
      list: [number, number, { n: number }];
      m: number;
    };
    expect([args.z, args.list[0], args.list[1], args.list[2].n, args.m].map((n) => Object.is(n, -0))).toStrictEqual([
      true,
      false,
      true,
      true,
      true,
    ]);
  });

  it('a large array is still checked and sent in full', async () => {
    const before = memorySnapshot();
    const rec = recordingHost(['a']);
    const outcome = await sandbox.run({
      code: 'const v = Array.from({ length: 200_000 }, (_, i) => i); v.at = 1; try { await tools.a({ v }); } catch (e) { return e.code; } return "sent";',
      toolNames: ['a'],
      hostCall: rec.hostCall,
    });
    expectResult(outcome, 'INVALID_ARGS');
    expect(peakGrowthMb(before).hostMb).toBeLessThan(100);
    const ok = await sandbox.run({
      code: 'const v = Array.from({ length: 200_000 }, (_, i) => i); await tools.a({ v }); return v.length;',
      toolNames: ['a'],
      hostCall: rec.hostCall,
    });
    expectResult(ok, 200_000);
    expect((JSON.parse(rec.calls[0]?.argsJson ?? '{}') as { v: number[] }).v).toHaveLength(200_000);
  });
});

describe('host to guest (through run_code)', () => {
  function runtimeWith(value: () => unknown) {
    const probe = defineTool({
      name: 'probe',
      description: 'Returns a fixed value.',
      parameters: {},
      output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'probe' }] },
      execute: () => value() as JsonValue,
    });
    const rt = createToolRuntime({ mode: 'ptc', sandbox });
    rt.register(probe);
    return rt;
  }

  it('a tool value holding -0 reaches the program as -0', async () => {
    const rt = runtimeWith(() => ({ a: -0, b: [0, -0], c: 'ptc-negative-zero' }));
    try {
      const result = await rt.execute({
        callId: 'c',
        name: 'run_code',
        arguments: {
          description: 'Read -0',
          code: 'const v = await tools.probe({}); return [Object.is(v.a, -0), Object.is(v.b[0], -0), Object.is(v.b[1], -0), v.c];',
        },
      });
      expect(result.isError).toBe(false);
      expect((result.value as { result: unknown }).result).toStrictEqual([true, false, true, 'ptc-negative-zero']);
    } finally {
      await rt.close();
    }
  });

  it.each([
    ['an array with a named property', () => Object.assign([1, 2], { extra: 3 })],
    ['a symbol-keyed property', () => ({ a: 1, [Symbol('s')]: 2 })],
    ['a non-enumerable property', () => Object.defineProperty({ a: 1 }, 'hidden', { value: 2, enumerable: false })],
  ])('a tool value holding %s reaches the program as an error, not a silently smaller value', async (_name, make) => {
    const rt = runtimeWith(make);
    try {
      const result = await rt.execute({
        callId: 'c',
        name: 'run_code',
        arguments: {
          description: 'Read a lossy value',
          code: 'try { return JSON.stringify(await tools.probe({})); } catch (e) { return "refused " + e.code; }',
        },
      });
      expect(result.isError).toBe(false);
      expect(String((result.value as { result: unknown }).result)).toMatch(/^refused [A-Z_]+$/);
    } finally {
      await rt.close();
    }
  });

  it('guestValueJson writes -0 as -0 and leaves a string that looks like the marker alone', () => {
    const text = guestValueJson({ a: -0, s: '"ptc-negative-zero-00"', list: [-0, 1] });
    const back = JSON.parse(text) as { a: number; s: string; list: number[] };
    expect(Object.is(back.a, -0)).toBe(true);
    expect(Object.is(back.list[0], -0)).toBe(true);
    expect(back.s).toBe('"ptc-negative-zero-00"');
    expect(guestValueJson({ a: 0 })).toBe('{"a":0}');
  });
});
