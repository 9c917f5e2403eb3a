// The sandbox's `state` global (sessions): what a program leaves there comes back as text
// the next run reads, with Map, Set, Date, typed arrays and shared references intact;
// functions, symbols, getters and class instances are refused with their path while the
// run's result still returns; the size bound counts UTF-8 bytes and is re-checked on the
// host; a state text that is not one fails the run before the program starts.
import { afterAll, describe, expect, it } from '@jest/globals';
import { InProcessSandbox } from '../../sandbox/in-process-sandbox.ts';
import { ProcessSandbox } from '../../sandbox/process-sandbox.ts';
import type { RunOutcome, StateOutcome } from '../../sandbox/types.ts';
import { fakeHost } from './helpers.ts';

const sandbox = new InProcessSandbox({ poolSize: 1 });
afterAll(() => sandbox.close());

const MAX = 8 * 1_048_576;

async function runWith(code: string, saved = '', maxBytes = MAX): Promise<RunOutcome> {
  return sandbox.run({ code, toolNames: [], hostCall: fakeHost().hostCall, state: { saved, maxBytes } });
}

function savedText(outcome: RunOutcome): string {
  if (!outcome.ok) throw new Error(`run failed: ${outcome.message}`);
  const state = outcome.state as StateOutcome;
  if (!state.ok) throw new Error(`state refused: ${state.message}`);
  return state.text;
}

describe('program state', () => {
  it('starts as {} and round-trips structured data into the next run', async () => {
    const first = await runWith(`
      if (JSON.stringify(state) !== '{}') throw new Error('not empty');
      const shared = { n: 1 };
      state.orders = [{ id: 'o1', total: 12.5, tags: new Set(['a', 'b']) }];
      state.byId = new Map([['o1', shared], [2, shared]]);
      state.when = new Date(86400000);
      state.bytes = new Uint16Array([1, 65535]);
      state.buffer = new Uint8Array([1, 2, 3]).buffer;
      state.big = 12345678901234567890n;
      state.odd = { $: 'dollar', nothing: undefined, nan: NaN, inf: -Infinity, negZero: -0 };
      state.re = /a+b/gi;
      state.err = new RangeError('too far');
      state.self = state;
      return 'saved';
    `);
    expect(first.ok && first.result).toBe('saved');
    const text = savedText(first);
    expect(first.ok && first.state?.ok && first.state.bytes).toBe(Buffer.byteLength(text));
    const second = await runWith(
      `
      const s = state;
      const shared = s.byId.get('o1');
      return [
        s.orders[0].tags instanceof Set && [...s.orders[0].tags].join(),
        shared === s.byId.get(2) && shared.n,
        s.when instanceof Date && s.when.getTime(),
        s.bytes instanceof Uint16Array && [...s.bytes].join(),
        s.buffer instanceof ArrayBuffer && s.buffer.byteLength,
        typeof s.big === 'bigint' && String(s.big),
        s.odd.$, 'nothing' in s.odd && s.odd.nothing === undefined, Number.isNaN(s.odd.nan), String(s.odd.inf), Object.is(s.odd.negZero, -0),
        s.re.source + '/' + s.re.flags,
        s.err instanceof Error && s.err.name + ': ' + s.err.message,
        s.self === s,
      ];
    `,
      text,
    );
    expect(second).toMatchObject({ ok: true });
    expect(second.ok && second.result).toEqual([
      'a,b',
      1,
      86400000,
      '1,65535',
      3,
      '12345678901234567890',
      'dollar',
      true,
      true,
      '-Infinity',
      true,
      'a+b/gi',
      'RangeError: too far',
      true,
    ]);
  });

  it('saves a replaced or cleared state', async () => {
    const replaced = await runWith('state = { fresh: true };', '{"old":1}');
    expect(savedText(replaced)).toBe('{"fresh":true}');
    const cleared = await runWith('state = undefined;', '{"old":1}');
    expect(savedText(cleared)).toBe('{}');
  });

  it.each([
    ['a function', 'state.cache = { fn: () => 1 };', 'state.cache.fn is a function'],
    ['a symbol', 'state.list = [1, Symbol("x")];', 'state.list[1] is a symbol'],
    [
      'a class instance',
      'class Cart { total() { return 1; } }; state.cart = new Cart();',
      'state.cart is an instance of Cart',
    ],
    ['a getter', 'state.g = { get now() { return 1; } };', 'state.g.now is a getter/setter property'],
    ['a Promise', 'state.p = Promise.resolve(1);', 'state.p is a Promise (did you forget await?)'],
    ['a Map value', 'state.m = new Map([["k", () => 1]]);', 'state.m.get("k") is a function'],
  ])('refuses %s with its path, and the result still returns', async (_what, code, message) => {
    const outcome = await runWith(`${code} return 42;`);
    expect(outcome.ok && outcome.result).toBe(42);
    expect(outcome.ok && outcome.state).toEqual({ ok: false, message: expect.stringContaining(message) });
  });

  it('refuses a state over maxBytes with its size and the limit', async () => {
    const outcome = await runWith('state.text = "é".repeat(100); return 1;', '', 150);
    // {"text":"…"} with 100 two-byte characters: 11 + 200 bytes.
    expect(outcome.ok && outcome.state).toEqual({
      ok: false,
      message: expect.stringContaining('state is 211 bytes serialized, over the session limit of 150 bytes (maxBytes)'),
    });
    expect(outcome.ok && outcome.result).toBe(1);
  });

  it('reports no state for a failed run', async () => {
    const outcome = await runWith('state.x = 1; throw new Error("boom");');
    expect(outcome.ok).toBe(false);
    expect('state' in outcome).toBe(false);
  });

  it('fails the run before the program starts when the saved text is not a state', async () => {
    const outcome = await runWith('return "ran";', '{"$":["ref",7]}');
    expect(outcome).toMatchObject({ ok: false, kind: 'exception' });
    expect(!outcome.ok && outcome.message).toContain("The session's saved state could not be read");
  });

  it('has no state global without a session', async () => {
    const outcome = await sandbox.run({ code: 'return typeof state;', toolNames: [], hostCall: fakeHost().hostCall });
    expect(outcome).toEqual({ ok: true, logs: [], result: 'undefined' });
  });

  it('carries state through the sandbox process too', async () => {
    const processSandbox = new ProcessSandbox({ poolSize: 1, processes: 1 });
    try {
      const first = await processSandbox.run({
        code: 'state.seen = new Set([1, 2]);',
        toolNames: [],
        hostCall: fakeHost().hostCall,
        state: { saved: '', maxBytes: MAX },
      });
      const second = await processSandbox.run({
        code: 'return [...state.seen];',
        toolNames: [],
        hostCall: fakeHost().hostCall,
        state: { saved: savedText(first), maxBytes: MAX },
      });
      expect(second).toMatchObject({ ok: true });
      expect(second.ok && second.result).toEqual([1, 2]);
    } finally {
      await processSandbox.close();
    }
  });
});
