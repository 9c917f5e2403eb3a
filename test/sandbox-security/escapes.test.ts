// Hostile programs that try to reach the host realm: constructor chains from every
// object the guest can touch, global inventory, graph crawls for isolated-vm handles,
// stack-frame inspection during host calls, harvesting internal functions through
// patched intrinsics, eval/import/require, and breaking out of the body wrapper.
import { afterAll, describe, expect } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import type { RunOutcome } from '../../sandbox/types.ts';
import { expectFailure, expectNoHostLeak, expectResult, type HostileCase, okJson, runCases, sleep } from './helpers.ts';
import { bareContextGlobals, namesBeyondIntrinsics, SANDBOX_GLOBALS } from '../sandbox/bare-context-globals.ts';

const sandbox = createSandbox({ limits: { wallTimeMs: 20_000, cpuTimeMs: 5_000 } });
afterAll(() => sandbox.close());

const CLEAN = 'undefined,undefined,undefined,undefined,undefined';
const INTERNAL_NAME = /^\$|ivm|reference|externalcopy|callback|isolate|bridge|dispatch|host|^_/i;

function resultOf(outcome: RunOutcome): Record<string, unknown> {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.kind}: ${outcome.message}`);
  const result = outcome.result;
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    throw new Error(`expected an object result, got ${JSON.stringify(result)}`);
  }
  return result;
}

const cases: HostileCase[] = [
  {
    name: 'constructor chains from every reachable object stay in the guest realm',
    code: `
      let tce = null;
      try { await tools.fail({}); } catch (e) { tce = e; }
      const result = await tools.a({});
      const pending = tools.a({});
      const targets = {
        this: this, globalThis: globalThis, tools: tools, toolFn: tools.a, toolFail: tools.fail,
        fn: function () {}, arrow: () => 0, asyncFn: async () => 0, generator: function* () {},
        console: console, consoleLog: console.log, consoleError: console.error,
        toolResult: result, toolResultList: result.list, toolResultNested: result.nested,
        error: new Error('e'), toolCallError: tce, ToolCallError: ToolCallError,
        pendingCall: pending, json: JSON, proxy: new Proxy({}, {}),
      };
      const out = {};
      for (const key of Object.keys(targets)) {
        const value = targets[key];
        try {
          const F = value.constructor.constructor;
          out[key] = [
            F('return this')() === globalThis,
            F('return [typeof process, typeof require, typeof module, typeof Buffer, typeof global].join()')(),
          ];
        } catch (e) {
          out[key] = ['threw', e instanceof TypeError];
        }
      }
      await pending;
      const AsyncFunction = (async () => 0).constructor;
      out.asyncCtor = await AsyncFunction('return [this === globalThis, typeof process, typeof require].join()')();
      // tools.a may be an async function: its prototype's constructor is then AsyncFunction.
      out.protoCtor = await Object.getPrototypeOf(tools.a).constructor('return typeof process')();
      out.protoChain = tools.a.__proto__.__proto__.constructor.constructor('return typeof require')();
      out.errorChain = tce.constructor.constructor.constructor('return typeof process')();
      out.toolsNullProto = Object.getPrototypeOf(tools) === null;
      return out;
    `,
    check: (outcome) => {
      const out = resultOf(outcome);
      const keys = [
        'globalThis',
        'toolFn',
        'toolFail',
        'fn',
        'arrow',
        'asyncFn',
        'generator',
        'console',
        'consoleLog',
        'consoleError',
        'toolResult',
        'toolResultList',
        'toolResultNested',
        'error',
        'toolCallError',
        'ToolCallError',
        'pendingCall',
        'json',
        'proxy',
      ];
      for (const key of keys) expect([key, out[key]]).toStrictEqual([key, [true, CLEAN]]);
      // A null-prototype `tools` has no constructor to climb; any other must stay in the guest.
      expect(out['tools']).toStrictEqual(out['toolsNullProto'] === true ? ['threw', true] : [true, CLEAN]);
      // `this` of the body may be undefined (strict) or the guest global.
      expect([
        [true, CLEAN],
        ['threw', true],
      ]).toContainEqual(out['this']);
      expect(out['asyncCtor']).toBe('true,undefined,undefined');
      expect(out['protoCtor']).toBe('undefined');
      expect(out['protoChain']).toBe('undefined');
      expect(out['errorChain']).toBe('undefined');
    },
  },
  {
    name: 'the guest global holds only the intrinsics of a bare context plus tools, ToolCallError and console',
    toolNames: ['a', 'fail', 'slow'],
    code: `
      return {
        names: Object.getOwnPropertyNames(globalThis),
        symbols: Object.getOwnPropertySymbols(globalThis).map(String),
        toolsNames: Object.getOwnPropertyNames(tools),
        toolsSymbols: Object.getOwnPropertySymbols(tools).map(String),
        toolFnNames: Object.getOwnPropertyNames(tools.a),
        ctorNames: Object.getOwnPropertyNames(ToolCallError),
        consoleNames: Object.getOwnPropertyNames(console),
        logNames: Object.getOwnPropertyNames(console.log),
      };
    `,
    check: (outcome) => {
      const out = resultOf(outcome);
      const names = out['names'] as string[];
      expect(namesBeyondIntrinsics(names)).toStrictEqual([...SANDBOX_GLOBALS]);
      const bareSymbols = bareContextGlobals().symbols;
      expect((out['symbols'] as string[]).filter((symbol) => !bareSymbols.includes(symbol))).toStrictEqual([]);
      expect((out['toolsNames'] as string[]).slice().sort()).toStrictEqual(['a', 'fail', 'slow']);
      expect(out['toolsSymbols']).toStrictEqual([]);
      for (const key of ['toolFnNames', 'logNames', 'ctorNames', 'consoleNames']) {
        const suspicious = (out[key] as string[]).filter(
          (name) => INTERNAL_NAME.test(name) && name !== 'captureStackTrace',
        );
        expect([key, suspicious]).toStrictEqual([key, []]);
      }
      for (const name of out['toolFnNames'] as string[]) expect(['length', 'name', 'prototype']).toContain(name);
    },
  },
  {
    name: 'a crawl of every object reachable from the guest finds no isolated-vm handle',
    code: `
      const queue = [globalThis, tools, console, ToolCallError, await tools.a({})];
      try { await tools.fail({}); } catch (e) { queue.push(e); }
      const MARKERS = ['applySync', 'applyIgnored', 'applySyncPromise', 'derefInto', 'copySync', 'copyInto',
        'getSync', 'setSync', 'release', 'compileScriptSync', 'evalClosureSync', 'createContextSync', 'transferIn'];
      const CTORS = ['Reference', 'ExternalCopy', 'Callback', 'Isolate', 'Context', 'Script', 'NativeModule'];
      const seen = new Set();
      const findings = [];
      let head = 0;
      while (head < queue.length && seen.size < 100000) {
        const obj = queue[head++];
        if (obj === null || (typeof obj !== 'object' && typeof obj !== 'function') || seen.has(obj)) continue;
        seen.add(obj);
        let keys;
        try { keys = Reflect.ownKeys(obj); } catch (e) { findings.push('ownKeys threw'); continue; }
        for (const key of keys) {
          if (typeof key === 'string' && MARKERS.includes(key)) findings.push('marker ' + key);
          let d;
          try { d = Object.getOwnPropertyDescriptor(obj, key); } catch (e) { continue; }
          if (!d) continue;
          if ('value' in d) queue.push(d.value); else queue.push(d.get, d.set);
        }
        try { queue.push(Object.getPrototypeOf(obj)); } catch (e) { findings.push('getPrototypeOf threw'); }
        if (typeof obj === 'function' && CTORS.includes(obj.name)) findings.push('constructor ' + obj.name);
      }
      return { findings, crawled: seen.size > 500 };
    `,
    check: (outcome) => expectResult(outcome, { findings: [], crawled: true }),
  },
  {
    name: 'stack inspection while a host call is in flight shows no host frame or path',
    host: async (request) => {
      await sleep(150);
      if (request.toolName === 'fail') throw new Error('host failure with a host stack');
      return okJson({ v: 1 });
    },
    code: `
      const frames = [];
      Error.stackTraceLimit = Infinity;
      Error.prepareStackTrace = (err, callSites) => {
        for (const f of callSites) {
          frames.push([String(f.getFileName()), String(f.getFunctionName()), String(f.getTypeName()),
            String(f.getEvalOrigin()), String(f.getScriptNameOrSourceURL()), String(f)]);
        }
        return 'custom:' + callSites.length;
      };
      const pending = tools.slow({});
      const stacks = [];
      for (let i = 0; i < 5; i++) { stacks.push(new Error('probe').stack); await Promise.resolve(); }
      let tceStack = 'none';
      try { await tools.fail({}); } catch (e) {
        tceStack = String(e.stack);
        stacks.push(String(e.message), String(e.code), Object.getOwnPropertyNames(e).join());
      }
      await pending;
      const holder = {};
      Error.captureStackTrace(holder);
      stacks.push(String(holder.stack));
      Error.prepareStackTrace = undefined;
      stacks.push(String(new Error('plain').stack));
      try { await tools.fail({}); } catch (e) { stacks.push(String(e.stack)); }
      return { frames, stacks, tceStack, sawFrames: frames.length > 0 };
    `,
    check: (outcome) => {
      const out = resultOf(outcome);
      expect(out['sawFrames']).toBe(true);
      expectNoHostLeak(out);
      // No frame may name an absolute path or a Node internal module.
      for (const frame of out['frames'] as string[][]) {
        expect(frame[0]).not.toMatch(/^(\/|node:|file:)/);
      }
    },
  },
  {
    name: 'eval and new Function run in the guest realm and see no host globals',
    code: `
      const direct = eval('[typeof process, typeof require, typeof fetch].join()');
      const indirect = (0, eval)('this') === globalThis;
      const viaFunction = new Function('return [typeof process, typeof require, this === globalThis].join()')();
      const nested = eval('new Function("return eval(\\'typeof process\\')")()');
      const ctor = eval('tools.a').constructor.constructor('return typeof require')();
      return [direct, indirect, viaFunction, nested, ctor];
    `,
    check: (outcome) =>
      expectResult(outcome, [
        'undefined,undefined,undefined',
        true,
        'undefined,undefined,true',
        'undefined',
        'undefined',
      ]),
  },
  {
    name: 'dynamic import() of host modules fails',
    code: `
      const out = [];
      for (const spec of ['node:fs', 'fs', 'child_process', 'data:text/javascript,export default 1', '/etc/passwd']) {
        try { const m = await import(spec); out.push('imported:' + spec + ':' + Object.keys(m).length); }
        catch (e) { out.push('failed'); }
      }
      return out;
    `,
    check: (outcome) => {
      if (outcome.ok) expect(outcome.result).toStrictEqual(['failed', 'failed', 'failed', 'failed', 'failed']);
      else expectFailure(outcome, ['compile', 'exception']);
    },
  },
  {
    name: 'a static import is refused',
    code: `import { readFileSync } from 'node:fs';\nreturn String(readFileSync('/etc/hostname'));`,
    check: (outcome) => expectFailure(outcome, ['compile', 'exception']),
  },
  {
    name: 'require() is not defined',
    code: `return require('node:child_process').execSync('id').toString();`,
    check: (outcome) => expectFailure(outcome, ['exception'], /require/),
  },
  {
    name: 'no host globals: process, require, fetch, setImmediate, Buffer (timers are guest code)',
    code: `
      return [typeof require, typeof process, typeof fetch, typeof clearImmediate, typeof importScripts,
        typeof setImmediate, typeof Headers, typeof Buffer, typeof global, typeof __dirname,
        typeof __filename, typeof XMLHttpRequest, typeof WebSocket, typeof Deno, typeof Bun].join();
    `,
    check: (outcome) => expectResult(outcome, Array(15).fill('undefined').join()),
  },
  {
    name: 'SharedArrayBuffer is not exposed',
    code: 'return typeof SharedArrayBuffer;',
    check: (outcome) => expectResult(outcome, 'undefined'),
  },
  {
    name: 'closing the body wrapper early is a compile error, not top-level code',
    code: `return 1 })(); globalThis.escaped = true; (async () => {`,
    check: (outcome) => expectFailure(outcome, ['compile']),
  },
  {
    name: 'closing a function-declaration wrapper early is a compile error',
    code: `} globalThis.escaped = true; async function again() {`,
    check: (outcome) => expectFailure(outcome, ['compile']),
  },
  {
    name: 'tools bound under prototype-ish names call exactly those tools',
    toolNames: ['__proto__', 'constructor', 'then', 'hasOwnProperty', 'odd-name', 'toString'],
    host: (request) => okJson(request.toolName),
    code: `
      const out = [];
      out.push(await tools['__proto__']({}));
      out.push(await tools.constructor({}));
      out.push(await tools.then({}));
      out.push(await tools.hasOwnProperty({}));
      out.push(await tools['odd-name']({}));
      out.push(await tools.toString({}));
      out.push(tools.valueOf === undefined || typeof tools.valueOf === 'function');
      return out;
    `,
    check: (outcome, rec) => {
      expectResult(outcome, ['__proto__', 'constructor', 'then', 'hasOwnProperty', 'odd-name', 'toString', true]);
      expect(rec.calls.map((c) => c.toolName)).toStrictEqual([
        '__proto__',
        'constructor',
        'then',
        'hasOwnProperty',
        'odd-name',
        'toString',
      ]);
    },
  },
  {
    name: 'harvesting internals through patched intrinsics and stack frames finds no handle',
    code: `
      const harvested = [];
      const seen = new Set();
      const note = (x) => {
        if (x !== null && (typeof x === 'object' || typeof x === 'function') && !seen.has(x)) {
          seen.add(x); harvested[harvested.length] = x;
        }
      };
      const RA = Reflect.apply;
      const saved = [];
      const trap = (owner, key) => {
        const original = owner[key];
        saved[saved.length] = [owner, key, original];
        owner[key] = function (...args) { note(this); for (const a of args) note(a); return RA(original, this, args); };
      };
      trap(Function.prototype, 'call'); trap(Function.prototype, 'apply'); trap(Function.prototype, 'bind');
      trap(Reflect, 'apply'); trap(Reflect, 'construct'); trap(Array.prototype, 'push');
      trap(Array.prototype, 'map'); trap(Promise.prototype, 'then'); trap(JSON, 'stringify'); trap(JSON, 'parse');
      trap(Object, 'defineProperty'); trap(Object, 'freeze'); trap(Map.prototype, 'set'); trap(Map.prototype, 'get');
      Error.prepareStackTrace = (err, callSites) => {
        for (const f of callSites) { try { note(f.getFunction()); note(f.getThis()); } catch (e) {} }
        return 'x';
      };
      await tools.a({ x: 1 });
      try { await tools.a({ get x() { new Error('probe').stack; note(this); return 1; } }); } catch (e) { note(e); }
      try { await tools.fail({}); } catch (e) { new Error('probe').stack; note(e); }
      for (const [owner, key, original] of saved) owner[key] = original;
      Error.prepareStackTrace = undefined;
      const MARKERS = ['applySync', 'applyIgnored', 'applySyncPromise', 'derefInto', 'copySync', 'copyInto',
        'getSync', 'setSync', 'release', 'evalClosureSync'];
      const handles = harvested.filter((h) => { try { return MARKERS.some((m) => m in h); } catch (e) { return false; } });
      return { handles: handles.length, harvested: harvested.length > 0 };
    `,
    check: (outcome) => expectResult(outcome, { handles: 0, harvested: true }),
  },
  {
    name: 'harvested internal functions called with forged arguments cannot exceed the call budget or reach unbound tools',
    limits: { maxCalls: 5, wallTimeMs: 20_000 },
    timeoutMs: 40_000,
    code: `
      if (globalThis.reentered) return 'reentered';
      globalThis.reentered = true;
      const harvested = [];
      const seen = new Set();
      const note = (x) => {
        if (typeof x === 'function' && !seen.has(x)) { seen.add(x); harvested[harvested.length] = x; }
      };
      const RA = Reflect.apply;
      const saved = [];
      const trap = (owner, key) => {
        const original = owner[key];
        saved[saved.length] = [owner, key, original];
        owner[key] = function (...args) { note(this); for (const a of args) note(a); return RA(original, this, args); };
      };
      trap(Function.prototype, 'call'); trap(Function.prototype, 'apply'); trap(Function.prototype, 'bind');
      trap(Reflect, 'apply'); trap(Array.prototype, 'push'); trap(Promise.prototype, 'then');
      trap(JSON, 'stringify'); trap(JSON, 'parse');
      Error.prepareStackTrace = (err, callSites) => {
        for (const f of callSites) { try { note(f.getFunction()); } catch (e) {} }
        return 'x';
      };
      await tools.a({ x: 1 });
      try { await tools.a({ get x() { new Error('probe').stack; return 1; } }); } catch (e) {}
      try { await tools.fail({}); } catch (e) { new Error('probe').stack; }
      for (const [owner, key, original] of saved) owner[key] = original;
      Error.prepareStackTrace = undefined;
      const own = new Set([note, trap, ...Object.values(tools)]);
      const forged = [['a', '{"forged":1}'], ['evil', '{}'], [{ toolName: 'evil', argsJson: '{}' }],
        [1, 'a', '{"forged":2}'], ['a', { forged: 3 }]];
      for (const f of harvested.slice(0, 300)) {
        if (own.has(f)) continue;
        for (const args of forged) {
          for (let i = 0; i < 5; i++) {
            try {
              const r = RA(f, undefined, args);
              if (r && typeof r === 'object' && typeof r.then === 'function') r.then(() => {}, () => {});
            } catch (e) {}
          }
        }
      }
      for (let i = 0; i < 50; i++) await null;
      return 'done';
    `,
    check: (outcome, rec) => {
      // Whatever the forged calls did, the host saw at most maxCalls well-formed calls.
      expect(rec.calls.length).toBeLessThanOrEqual(5);
      if (!outcome.ok) expectFailure(outcome, ['call-limit', 'exception', 'invalid-output']);
    },
  },
];

describe('sandbox security: escapes', () => {
  runCases(() => sandbox, cases);
});
