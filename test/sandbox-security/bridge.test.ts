// The JSON bridge under attack: non-JSON and self-changing tool arguments, prototype
// pollution in both directions, hostile host rejections, hostile thrown values,
// unhandled rejections, and calls made after the program ended.
import { afterAll, describe, expect } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import type { HostCallOutcome, RunOutcome } from '../../sandbox/types.ts';
import {
  expectFailure,
  expectResult,
  type HostileCase,
  type HostImpl,
  okJson,
  type Recorder,
  runCases,
  sleep,
} from './helpers.ts';
import { recursiveGetters, throwingTraps } from './hostile-host-values.ts';

const sandbox = createSandbox({ limits: { wallTimeMs: 20_000, cpuTimeMs: 5_000 } });
afterAll(() => sandbox.close());

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
process.on('unhandledRejection', onUnhandled);
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  // A host-side rejection nobody handled would take a real host down.
  expect(unhandled).toStrictEqual([]);
});

const LOOP = { cpuTimeMs: 1_000, wallTimeMs: 8_000 };
const REFUSED = ['refused', true];

/** The program calls tools.a with ARGS and reports whether the call was refused inside the guest. */
function argsProgram(setup: string, args: string): string {
  return `
    ${setup}
    try { await tools.a(${args}); return 'called'; }
    catch (e) { return ['refused', typeof e.message === 'string' && e.message.length > 0]; }
  `;
}

/** Non-JSON arguments: refused inside the program, and the host never called. */
const strictArgs: { name: string; setup?: string; args: string }[] = [
  { name: 'a BigInt', args: '{ n: 1n }' },
  { name: 'a cycle', setup: 'const c = { k: 1 }; c.self = c;', args: 'c' },
  { name: 'a nested function', args: '{ f() { return 1; } }' },
  { name: 'a function as the whole argument', args: '() => 1' },
  { name: 'a nested Symbol', args: "{ s: Symbol('s') }" },
  { name: 'undefined inside an array', args: '{ list: [1, undefined] }' },
  { name: 'NaN', args: '{ n: NaN }' },
  { name: '-Infinity', args: '{ n: -Infinity }' },
  { name: '100,000 nested arrays', setup: 'let d = []; for (let i = 0; i < 100000; i++) d = [d];', args: '{ d }' },
  { name: 'a getter that throws', args: "{ get x() { throw new Error('getter'); } }" },
  {
    name: 'a Proxy whose traps throw',
    args: "new Proxy({}, { ownKeys() { throw new Error('trap'); }, get() { throw new Error('trap'); } })",
  },
];

/** Arguments that may be refused, or encoded exactly as given (never lossy, never twice-read). */
const faithfulArgs: { name: string; setup?: string; args: string; json: string | readonly string[] }[] = [
  { name: 'a getter returning a value', args: '{ get x() { return 1; } }', json: '{"x":1}' },
  {
    name: 'a getter that turns into a function on its second read',
    setup: 'let n = 0;',
    args: '{ get x() { return n++ === 0 ? 1 : () => 1; } }',
    json: '{"x":1}',
  },
  {
    name: 'a getter that turns into a BigInt on its second read',
    setup: 'let n = 0;',
    args: '{ get x() { return n++ === 0 ? 1 : 5n; } }',
    json: '{"x":1}',
  },
  { name: 'a transparent Proxy', args: 'new Proxy({ a: 1 }, {})', json: '{"a":1}' },
  {
    name: 'a Proxy whose values change on every read',
    setup: 'let n = 0;',
    args: "new Proxy({ x: 0 }, { get(t, k) { return k === 'x' ? (n++ === 0 ? 1 : Symbol('later')) : Reflect.get(t, k); } })",
    json: '{"x":1}',
  },
  { name: 'an object with toJSON', args: '{ toJSON() { return { y: 2 }; } }', json: '{"y":2}' },
  { name: 'no argument at all', args: '', json: ['{}', 'null'] },
  { name: 'an undefined property', args: '{ a: undefined, b: 1 }', json: '{"b":1}' },
];

const argCases: HostileCase[] = [
  ...strictArgs.map<HostileCase>((arg) => ({
    name: `tool arguments with ${arg.name} are refused inside the program without a host call`,
    code: argsProgram(arg.setup ?? '', arg.args),
    check: (o, rec) => {
      expectResult(o, REFUSED);
      expect(rec.calls).toHaveLength(0);
    },
  })),
  ...faithfulArgs.map<HostileCase>((arg) => ({
    name: `tool arguments with ${arg.name} are refused or encoded exactly`,
    code: argsProgram(arg.setup ?? '', arg.args),
    check: (o, rec) => {
      if (rec.calls.length === 0) {
        expectResult(o, REFUSED);
        return;
      }
      expectResult(o, 'called');
      expect(rec.calls).toHaveLength(1);
      const allowed = typeof arg.json === 'string' ? [arg.json] : arg.json;
      expect(allowed).toContain(rec.calls[0]?.argsJson);
    },
  })),
  {
    name: 'a 20 MB string argument is refused or delivered intact',
    timeoutMs: 60_000,
    code: argsProgram('const s = "x".repeat(20 * 1024 * 1024);', '{ s }'),
    check: (o, rec) => {
      if (rec.calls.length === 0) {
        expectResult(o, REFUSED);
        return;
      }
      expectResult(o, 'called');
      expect(rec.calls[0]?.argsJson.length).toBe(20 * 1024 * 1024 + '{"s":""}'.length);
    },
  },
  {
    name: 'a __proto__ key in arguments reaches the host as plain JSON text',
    code: argsProgram('', `JSON.parse('{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}}}')`),
    check: (o, rec) => {
      expectResult(o, 'called');
      expect(rec.calls[0]?.argsJson).toBe('{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}}}');
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    },
  },
  {
    name: 'guest Object.prototype pollution never reaches arguments, results or the host',
    code: `
      Object.prototype.pwned = 1; Array.prototype.pwned = 2; Object.prototype.polluted = 3;
      const r = await tools.a({ b: 1 });
      return { b: 1, list: [1], seen: r.v };
    `,
    check: (o, rec) => {
      expect(rec.calls[0]?.argsJson).toBe('{"b":1}');
      expectResult(o, { b: 1, list: [1], seen: 1 });
      if (o.ok) expect(JSON.stringify(o.result)).toBe('{"b":1,"list":[1],"seen":1}');
    },
  },
  {
    name: 'JSON.stringify and JSON.parse replaced by the program cannot forge the bridge text',
    code: `
      JSON.stringify = () => 'not json{';
      JSON.parse = () => ({ forged: true });
      const r = await tools.a({ x: 1 });
      return r;
    `,
    check: (o, rec) => {
      for (const call of rec.calls) expect(call.argsJson).toBe('{"x":1}');
      if (o.ok) expect(o.result).toStrictEqual({ v: 1, list: [1, 2], nested: { s: 'x' } });
      else expectFailure(o, ['invalid-output', 'exception']);
    },
  },
];

const hostObject = { keep: 'original', nested: { n: 1 }, list: [1, 2, 3] };
const resultCases: HostileCase[] = [
  {
    name: 'a __proto__ key in a tool result stays an own key and pollutes nothing in the guest',
    host: () => ({ ok: true, valueJson: '{"__proto__":{"polluted":1},"a":1}' }),
    code: `
      const r = await tools.a({});
      return { own: Object.prototype.hasOwnProperty.call(r, '__proto__'), inherited: r.polluted === undefined,
        clean: ({}).polluted === undefined, a: r.a };
    `,
    check: (o) => expectResult(o, { own: true, inherited: true, clean: true, a: 1 }),
  },
  {
    name: 'a returned __proto__ key arrives as an own key and pollutes nothing in the host',
    code: `return JSON.parse('{"__proto__":{"polluted":1},"k":1}');`,
    check: (o) => {
      if (!o.ok) throw new Error(`expected success, got ${o.kind}: ${o.message}`);
      const result = o.result as Record<string, unknown>;
      // The result may come from another realm: check its prototype is a clean root object.
      expect(Object.getPrototypeOf(Object.getPrototypeOf(result))).toBeNull();
      expect(result['polluted']).toBeUndefined();
      expect(Object.hasOwn(result, '__proto__')).toBe(true);
      expect(JSON.stringify(result)).toBe('{"__proto__":{"polluted":1},"k":1}');
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    },
  },
  {
    name: 'the guest mutating a tool result leaves the host object unchanged',
    host: () => okJson(hostObject),
    code: `
      const r = await tools.a({});
      r.keep = 'mutated'; r.nested.n = 99; r.list.length = 0; delete r.nested;
      const again = await tools.a({});
      return again;
    `,
    check: (o) => {
      expectResult(o, { keep: 'original', nested: { n: 1 }, list: [1, 2, 3] });
      expect(hostObject).toStrictEqual({ keep: 'original', nested: { n: 1 }, list: [1, 2, 3] });
    },
  },
  {
    name: 'a 100,000-deep tool result is delivered or refused, never a crash',
    host: () => ({ ok: true, valueJson: '['.repeat(100_000) + ']'.repeat(100_000) }),
    code: `
      let r;
      try { r = await tools.a({}); } catch (e) { return 'refused'; }
      let depth = 0; while (Array.isArray(r) && r.length === 1) { r = r[0]; depth++; }
      return depth;
    `,
    check: (o) => {
      if (!o.ok) throw new Error(`expected success, got ${o.kind}: ${o.message}`);
      expect(['refused', 99_999]).toContain(o.result);
    },
  },
];

const CATCH_PROGRAM = `
  try { await tools.a({}); return 'resolved'; } catch (e) {
    return { tce: e instanceof ToolCallError, name: e.name, toolName: e.toolName,
      code: typeof e.code, message: typeof e.message, text: String(e.message) + '\\n' + String(e.stack) };
  }
`;

function expectToolCallError(o: RunOutcome): void {
  if (!o.ok) throw new Error(`expected the program to catch a ToolCallError, got ${o.kind}: ${o.message}`);
  const { text, ...shape } = o.result as Record<string, unknown>;
  expect(shape).toStrictEqual({ tce: true, name: 'ToolCallError', toolName: 'a', code: 'string', message: 'string' });
  expect(typeof text).toBe('string');
}

const hostFailures: { name: string; host: HostImpl }[] = [
  {
    name: 'throws synchronously',
    host: () => {
      throw new Error('sync host failure');
    },
  },
  {
    name: 'returns an already rejected promise (async function throwing before its first await)',
    host: async () => {
      throw new Error('async host failure');
    },
  },
  { name: 'rejects with a Proxy whose traps throw', host: () => Promise.reject(new Proxy({}, throwingTraps)) },
  {
    name: 'throws a Proxy synchronously',
    host: () => {
      throw new Proxy({}, throwingTraps);
    },
  },
  { name: 'rejects with an object whose getters recurse forever', host: () => Promise.reject(recursiveGetters()) },
  { name: 'rejects with null', host: () => Promise.reject(null) },
  { name: 'rejects with undefined', host: () => Promise.reject(undefined) },
  { name: 'rejects with a string', host: () => Promise.reject('plain string') },
  {
    name: 'rejects with an Error whose message getter throws',
    host: () =>
      Promise.reject(
        Object.defineProperty(new Error('x'), 'message', {
          get(): never {
            throw new Error('message getter');
          },
        }),
      ),
  },
  { name: 'resolves with non-JSON valueJson', host: () => ({ ok: true, valueJson: 'not json{' }) },
  { name: 'resolves with null instead of an outcome', host: () => null as unknown as HostCallOutcome },
  {
    name: 'resolves with a failure whose code and message are not strings',
    host: () => ({ ok: false, code: 42, message: { nested: true } }) as unknown as HostCallOutcome,
  },
];

const hostFailureCases: HostileCase[] = [
  ...hostFailures.map<HostileCase>((failure) => ({
    name: `a host call that ${failure.name} reaches the program as a ToolCallError`,
    toolNames: ['a'],
    host: failure.host,
    code: CATCH_PROGRAM,
    check: (o) => expectToolCallError(o),
  })),
  {
    name: 'a host refusal keeps its code and message in the ToolCallError',
    toolNames: ['a'],
    host: () => ({ ok: false, code: 'DENIED', message: 'not allowed here' }),
    code: `try { await tools.a({}); } catch (e) { return [e instanceof ToolCallError, e.toolName, e.code, e.message]; }`,
    check: (o) => {
      if (!o.ok) throw new Error(`expected success, got ${o.kind}: ${o.message}`);
      const [isTce, toolName, code, message] = o.result as unknown[];
      expect([isTce, toolName, code]).toStrictEqual([true, 'a', 'DENIED']);
      expect(message).toContain('not allowed here');
    },
  },
];

/** Thrown after awaiting a tool: each must be kind `exception` (message where it is knowable). */
const thrownValues: { name: string; code: string; message?: RegExp; kinds?: ('exception' | 'cpu' | 'timeout')[] }[] = [
  { name: 'throw 42', code: 'throw 42;', message: /42/ },
  { name: 'throw null', code: 'throw null;', message: /null/ },
  { name: 'throw undefined', code: 'throw undefined;', message: /undefined/ },
  { name: 'throw a string', code: "throw 'plain words';", message: /plain words/ },
  { name: 'throw a Symbol', code: "throw Symbol('sym');" },
  { name: 'throw a BigInt', code: 'throw 10n;', message: /10/ },
  { name: 'throw a function', code: 'throw function f() {};' },
  { name: 'throw an object without prototype', code: 'throw Object.create(null);' },
  {
    name: 'throw a Proxy whose traps throw',
    code: `throw new Proxy({}, { get() { throw new Error('t'); }, getPrototypeOf() { throw new Error('t'); },
      ownKeys() { throw new Error('t'); }, has() { throw new Error('t'); }, getOwnPropertyDescriptor() { throw new Error('t'); } });`,
  },
  { name: 'throw a revoked Proxy', code: 'const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); throw proxy;' },
  { name: 'throw an object whose message getter recurses', code: 'throw { get message() { return this.message; } };' },
  {
    name: 'throw an object whose message getter loops forever',
    code: 'throw { get message() { for (;;) {} } };',
    kinds: ['exception', 'cpu', 'timeout'],
  },
  {
    name: 'throw an Error whose stack getter throws',
    code: "const e = new Error('stackless'); Object.defineProperty(e, 'stack', { get() { throw new Error('no'); } }); throw e;",
    message: /stackless/,
  },
  {
    name: 'throw an Error subclass whose name getter throws',
    code: "throw new (class extends Error { get name() { throw new Error('no name'); } })('named');",
  },
  {
    name: 'throw after Error.prepareStackTrace was made to throw',
    code: "Error.prepareStackTrace = () => { throw new Error('pst'); }; throw new Error('after pst');",
  },
  {
    name: 'throw after Error.prepareStackTrace was made to loop',
    code: "Error.prepareStackTrace = () => { for (;;) {} }; throw new Error('after looping pst');",
    kinds: ['exception', 'cpu', 'timeout'],
  },
  {
    name: 'return a thenable whose then throws',
    code: "return { then() { throw new Error('then trap'); } };",
    message: /then trap/,
  },
  { name: 'throw an Error with a 10 MB message', code: "throw new Error('E'.repeat(10 * 1024 * 1024));" },
];

const thrownCases: HostileCase[] = thrownValues.map<HostileCase>((thrown) => ({
  name: `${thrown.name} after awaiting a tool fails cleanly`,
  limits: LOOP,
  code: `await tools.slow({}); ${thrown.code}`,
  check: (o, rec) => {
    expectFailure(o, thrown.kinds ?? ['exception'], thrown.kinds ? undefined : thrown.message);
    expect(rec.calls).toHaveLength(1);
  },
}));

function expectCalls(rec: Recorder, names: string[]): void {
  expect(rec.calls.map((c) => c.toolName)).toStrictEqual(names);
}

const lifecycleCases: HostileCase[] = [
  {
    name: 'an unhandled rejection in the program is reported, not lost',
    code: "Promise.reject(new Error('lost-rejection')); return 1;",
    check: (o) => {
      if (o.ok) {
        expect(o.result).toBe(1);
        expect(o.logs.join('\n')).toContain('lost-rejection');
      } else {
        expectFailure(o, ['exception'], /lost-rejection/);
      }
    },
  },
  {
    name: 'an un-awaited failing tool call ends the run cleanly',
    code: 'tools.fail({}); return 1;',
    check: (o, rec) => {
      if (o.ok) expect(o.result).toBe(1);
      else expectFailure(o, ['exception']);
      expectCalls(rec, ['fail']);
    },
  },
  {
    name: 'a tool call made after the program returned never reaches the host',
    toolNames: ['slow', 'late'],
    code: "tools.slow({}).then(() => tools.late({})).catch(() => {}); return 'done';",
    check: async (o, rec) => {
      expectResult(o, 'done');
      await sleep(300);
      expectCalls(rec, ['slow']);
    },
  },
  {
    name: 'a call loop that outlives the program makes no call after the end',
    code: "(async () => { for (let i = 0; i < 1000; i++) { try { await tools.a({ i }); } catch (e) {} } })(); return 'done';",
    check: async (o, rec) => {
      expectResult(o, 'done');
      await sleep(300);
      expectCalls(rec, ['a']);
    },
  },
  {
    name: 'an infinite loop scheduled after the program returned still ends',
    limits: LOOP,
    code: "tools.slow({}).then(() => { for (;;) {} }); return 'done';",
    check: (o) => {
      if (o.ok) expect(o.result).toBe('done');
      else expectFailure(o, ['timeout', 'cpu']);
    },
  },
  {
    name: 'a rejection raised after the program returned ends the run cleanly',
    code: "tools.slow({}).then(() => { throw new Error('late-rejection'); }); return 1;",
    check: (o) => {
      if (o.ok) expect(o.result).toBe(1);
      else expectFailure(o, ['exception'], /late-rejection/);
    },
  },
];

describe('sandbox security: tool arguments', () => {
  runCases(() => sandbox, argCases);
});

describe('sandbox security: tool results', () => {
  runCases(() => sandbox, resultCases);
});

describe('sandbox security: host call failures', () => {
  runCases(() => sandbox, hostFailureCases);
});

describe('sandbox security: hostile thrown values', () => {
  runCases(() => sandbox, thrownCases);
});

describe('sandbox security: run lifecycle', () => {
  runCases(() => sandbox, lifecycleCases);
});
