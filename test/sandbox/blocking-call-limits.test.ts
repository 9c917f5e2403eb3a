// Process mode: a call the guest blocks on crosses the blocking-call pipes, so every call
// the argument limit (MAX_ARGS_BYTES) accepts must cross them whole, whatever its text
// (quotes and backslashes that JSON escapes, characters of three UTF-8 bytes), and a call
// over it is refused with the same error as on the asynchronous path. Outcomes cross back
// the same way, at any size the host hands over. The sandbox process survives all of it.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import { ProcessSandbox } from '../../sandbox/process-sandbox.ts';
import { blockingPipeStats } from '../../sandbox/blocking-call-pipe.ts';
import { MAX_ARGS_BYTES } from '../../sandbox/limits.ts';
import type { HostCallOutcome, HostCallRequest } from '../../sandbox/types.ts';
import { expectOk } from './helpers.ts';

const blocking = new ProcessSandbox({ poolSize: 1, processes: 1 });
const asyncOnly = createSandbox({ poolSize: 1, processes: 1, blockingCalls: false });
afterAll(() => Promise.all([blocking.close(), asyncOnly.close()]));

const LIMITS = { wallTimeMs: 60_000 };
/** The tool answers with the length of the arguments it got and whether they parse back to `{ s }`. */
const measure = async (request: HostCallRequest): Promise<HostCallOutcome> => {
  const { s } = JSON.parse(request.argsJson) as { s: string };
  return { ok: true, valueJson: JSON.stringify({ chars: request.argsJson.length, s: s.length }) };
};

/** Counts the calls that crossed the pipes during `run`. */
async function overThePipes<T>(run: () => Promise<T>): Promise<{ value: T; crossed: number }> {
  const before = blockingPipeStats.answered + blockingPipeStats.released;
  const value = await run();
  return { value, crossed: blockingPipeStats.answered + blockingPipeStats.released - before };
}

// `{"s":"…"}` is 8 characters around the string's JSON.
const ENVELOPE = 8;
const cases = [
  // Each `"` is `\"` in the arguments: 2 characters, which a second escape would make 4.
  ['quotes', `'"'.repeat(${(MAX_ARGS_BYTES - ENVELOPE) / 2})`, (MAX_ARGS_BYTES - ENVELOPE) / 2],
  // Each `\` is `\\`: the same.
  ['backslashes', `'\\\\'.repeat(${(MAX_ARGS_BYTES - ENVELOPE) / 2})`, (MAX_ARGS_BYTES - ENVELOPE) / 2],
  // One character, three bytes of UTF-8: the frame is three times the limit in bytes.
  ['characters of three UTF-8 bytes', `'漢'.repeat(${MAX_ARGS_BYTES - ENVELOPE})`, MAX_ARGS_BYTES - ENVELOPE],
] as const;

describe('process mode, blocking calls: the argument limit', () => {
  it.each(cases)(
    'arguments of exactly the limit made of %s cross the pipes whole',
    async (_name, expr, length) => {
      const code = `return await tools.f({ s: ${expr} });`;
      const { value, crossed } = await overThePipes(() =>
        blocking.run({ code, toolNames: ['f'], hostCall: measure, limits: LIMITS }),
      );
      expectOk(value, { chars: MAX_ARGS_BYTES, s: length });
      expect(crossed).toBe(1);
    },
    90_000,
  );

  it('one character over the limit is refused with the asynchronous path’s error, and the process lives on', async () => {
    const code = `try { await tools.f({ s: '"'.repeat(${(MAX_ARGS_BYTES - ENVELOPE) / 2}) + 'x' }); return 'sent'; }
catch (e) { return e.code + ': ' + e.message; }`;
    const [overBlocking, overAsync] = await Promise.all([
      blocking.run({ code, toolNames: ['f'], hostCall: measure, limits: LIMITS }),
      asyncOnly.run({ code, toolNames: ['f'], hostCall: measure, limits: LIMITS }),
    ]);
    expect(overBlocking).toStrictEqual(overAsync);
    expectOk(
      overBlocking,
      `ARGS_TOO_LARGE: tools.f arguments are larger than ${MAX_ARGS_BYTES} bytes as JSON: not dispatched`,
    );
    const pid = blocking.childPid;
    expectOk(await blocking.run({ code: 'return await tools.f({ s: "a" });', toolNames: ['f'], hostCall: measure }), {
      chars: ENVELOPE + 1,
      s: 1,
    });
    expect(blocking.childPid).toBe(pid);
  }, 90_000);
});

describe('the argument limit counts the JSON exactly (both paths)', () => {
  // `{"s":[[],{},…]}` is 3K + 7 characters for K empty containers: each is 2 characters
  // and a comma, which a count of one per item would put at a third of their real size.
  const K = (MAX_ARGS_BYTES - 7) / 3;
  const shape = (last: string): string =>
    `const a = [], o = {}; const s = Array.from({ length: ${K} }, (_, i) => (i % 2 ? o : a)); s[${K - 1}] = ${last};
try { return await tools.f({ s }); } catch (e) { return e.code + ': ' + e.message; }`;
  const lengthOf = async (request: HostCallRequest): Promise<HostCallOutcome> => ({
    ok: true,
    valueJson: String(request.argsJson.length),
  });

  it.each([
    ['blocking', blocking],
    ['asynchronous', asyncOnly],
  ])(
    '%s: empty containers up to the limit cross; one character more is ARGS_TOO_LARGE',
    async (_name, sandbox) => {
      const at = await sandbox.run({ code: shape('[]'), toolNames: ['f'], hostCall: lengthOf, limits: LIMITS });
      expectOk(at, MAX_ARGS_BYTES);
      const over = await sandbox.run({ code: shape('[0]'), toolNames: ['f'], hostCall: lengthOf, limits: LIMITS });
      expectOk(
        over,
        `ARGS_TOO_LARGE: tools.f arguments are larger than ${MAX_ARGS_BYTES} bytes as JSON: not dispatched`,
      );
    },
    90_000,
  );
});

describe('process mode, blocking calls: outcomes cross back whole', () => {
  it('a large value full of quotes, newlines and multi-byte characters, and a large error message', async () => {
    const unit = '"\\\n漢😀';
    const text = unit.repeat(500_000);
    const hostCall = async (request: HostCallRequest): Promise<HostCallOutcome> =>
      request.toolName === 'value'
        ? { ok: true, valueJson: JSON.stringify({ text }) }
        : { ok: false, code: 'E_BIG', message: text };
    const code = `const unit = ${JSON.stringify(unit)};
const v = await tools.value({});
let m = '';
try { await tools.fail({}); } catch (e) { m = e.code + ':' + e.message; }
return [v.text === unit.repeat(500_000), m.length, m.slice(0, 100)];`;
    const { value, crossed } = await overThePipes(() =>
      blocking.run({ code, toolNames: ['value', 'fail'], hostCall, limits: LIMITS }),
    );
    expect(crossed).toBe(2);
    // The program sees what the asynchronous path gives it (an error message is clipped the same way).
    expect(value).toStrictEqual(await asyncOnly.run({ code, toolNames: ['value', 'fail'], hostCall, limits: LIMITS }));
    expectOk(value);
    expect(value.ok && (value.result as unknown[])[0]).toBe(true);
  }, 90_000);
});

describe('process mode, blocking calls: a tool name too long for a frame header', () => {
  it('goes the asynchronous way and gets its answer', async () => {
    const name = 't'.repeat(10_000);
    const code = `return await tools[${JSON.stringify(name)}]({ s: 'x' });`;
    const { value, crossed } = await overThePipes(() => blocking.run({ code, toolNames: [name], hostCall: measure }));
    expectOk(value, { chars: ENVELOPE + 1, s: 1 });
    expect(crossed).toBe(0);
  });
});
