// What a program sees: only tools, ToolCallError and console on top of the language;
// no host reference, no isolated-vm object, nothing that survives into the next run.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import { bareContextGlobals, namesBeyondIntrinsics, SANDBOX_GLOBALS, WEB_GLOBALS } from './bare-context-globals.ts';
import { expectKind, expectOk, fakeHost } from './helpers.ts';

describe.each(['in-process', 'process'] as const)('guest surface (%s)', (isolation) => {
  const sandbox = createSandbox({ isolation, poolSize: 1, limits: { wallTimeMs: 20_000, cpuTimeMs: 5_000 } });
  afterAll(() => sandbox.close());

  it('the global holds the intrinsics of a bare context plus tools, ToolCallError and console, and nothing else', async () => {
    const outcome = await sandbox.run({
      code: 'return [Object.getOwnPropertyNames(globalThis), Object.getOwnPropertySymbols(globalThis).map(String)];',
      toolNames: ['a'],
      hostCall: fakeHost().hostCall,
    });
    expectOk(outcome);
    const [names, symbols] = (outcome.ok ? outcome.result : [[], []]) as [string[], string[]];
    expect(namesBeyondIntrinsics(names)).toStrictEqual([...SANDBOX_GLOBALS]);
    const bareSymbols = bareContextGlobals().symbols;
    expect(symbols.filter((symbol) => !bareSymbols.includes(symbol))).toStrictEqual([]);
  });

  it('has no require, process, fetch, setImmediate, Wasm or shared memory, and import() fails', async () => {
    const code = `
      const names = ['require', 'process', 'fetch', 'setImmediate', 'clearImmediate', 'XMLHttpRequest', 'WebSocket',
        'WebAssembly', 'SharedArrayBuffer', 'Atomics', 'Buffer', 'module', 'global', '__ptc_send', '__ptc_start',
        '__ptc_configure', '__ptc_deliver'];
      const types = names.map((n) => typeof globalThis[n]);
      let imported;
      try { await import('node:fs'); imported = 'imported'; } catch (e) { imported = 'failed'; }
      return [types, imported];
    `;
    const outcome = await sandbox.run({ code, toolNames: [], hostCall: fakeHost().hostCall });
    expectOk(outcome, [Array(17).fill('undefined'), 'failed']);
  });

  it('has the web-standard globals: timers, queueMicrotask, structuredClone, URL, TextEncoder, crypto, AbortController', async () => {
    const code = `return ${JSON.stringify(WEB_GLOBALS)}.map((n) => typeof globalThis[n]);`;
    const outcome = await sandbox.run({ code, toolNames: [], hostCall: fakeHost().hostCall });
    expectOk(
      outcome,
      WEB_GLOBALS.map((name) => (name === 'crypto' || name === 'performance' ? 'object' : 'function')),
    );
  });

  it('tools is a frozen null-prototype object with one function per bound name', async () => {
    const code = `
      return [Object.getPrototypeOf(tools) === null, Object.isFrozen(tools), Object.keys(tools),
        typeof tools.search, tools.search.name, tools.search({ q: 1 }) instanceof Promise];
    `;
    const outcome = await sandbox.run({ code, toolNames: ['search', 'read'], hostCall: fakeHost().hostCall });
    expectOk(outcome, [true, true, ['search', 'read'], 'function', 'search', true]);
  });

  it('console formats strings raw and other values compactly, with a level prefix for warn/error/debug', async () => {
    const code = `
      console.log('plain', 42, null, undefined, true);
      console.info({ a: [1, 'x'], b: { c: null } });
      console.warn(new Error('careful'));
      console.error([1, 2], 10n, Symbol('s'));
      console.debug(function named() {}, new Map([[1, 'one']]), new Set([2]));
      const cyc = { name: 'loop' }; cyc.self = cyc;
      console.log(cyc, { get g() { throw new Error('getter ran'); } });
    `;
    const outcome = await sandbox.run({ code, toolNames: [], hostCall: fakeHost().hostCall });
    expectOk(outcome);
    expect(outcome.logs).toStrictEqual([
      'plain 42 null undefined true',
      '{"a":[1,"x"],"b":{"c":null}}',
      '[warn] Error: careful',
      '[error] [1,2] 10n Symbol(s)',
      '[debug] [Function named] Map(1) {1 => "one"} Set(1) {2}',
      '{"name":"loop","self":[Circular]} {"g":[Getter]}',
    ]);
  });

  it('ToolCallError is a global Error subclass a program can use', async () => {
    const code = `
      const e = new ToolCallError('t', 'CODE', 'msg');
      return [e instanceof Error, e.name, e.toolName, e.code, e.message];
    `;
    expectOk(await sandbox.run({ code, toolNames: [], hostCall: fakeHost().hostCall }), [
      true,
      'ToolCallError',
      't',
      'CODE',
      'msg',
    ]);
  });

  it('an exception reports the line and column in the model code (types stripped, lines kept)', async () => {
    const code = [
      'interface Row { id: number }',
      'const rows: Row[] = [{ id: 1 }];',
      '',
      'function check(row: Row): void {',
      '  if (row.id === 1) throw new RangeError(`bad row ${row.id}`);',
      '}',
      'rows.forEach(check);',
    ].join('\n');
    const outcome = await sandbox.run({ code, toolNames: [], hostCall: fakeHost().hostCall });
    // V8 reports the position of the `new` expression.
    const column = code.split('\n')[4]!.indexOf('new RangeError') + 1;
    expectKind(outcome, 'exception', new RegExp(`^RangeError: bad row 1 \\(at line 5, column ${column}\\)$`));
    expect(outcome.ok ? undefined : outcome.location).toStrictEqual({ line: 5, column });
  });

  it('a thrown non-Error value fails with exception and a readable message', async () => {
    expectKind(
      await sandbox.run({ code: 'throw "plain text";', toolNames: [], hostCall: fakeHost().hostCall }),
      'exception',
      /Uncaught plain text/,
    );
    expectKind(
      await sandbox.run({ code: 'throw { code: 7 };', toolNames: [], hostCall: fakeHost().hostCall }),
      'exception',
      /Uncaught \{"code":7\}/,
    );
  });

  it('logs survive a failure', async () => {
    const outcome = await sandbox.run({
      code: 'console.log("before"); throw new Error("after");',
      toolNames: [],
      hostCall: fakeHost().hostCall,
    });
    expectKind(outcome, 'exception');
    expect(outcome.logs).toStrictEqual(['before']);
  });

  it('nothing survives between runs: globals, patched intrinsics, tools', async () => {
    const first = await sandbox.run({
      code: 'globalThis.leak = 1; Array.prototype.push = null; JSON.stringify = () => "x"; Object.prototype.polluted = 1; return 1;',
      toolNames: ['a'],
      hostCall: fakeHost().hostCall,
    });
    expectOk(first, 1);
    const second = await sandbox.run({
      code: 'const r = await tools.a({ q: 1 }); return [typeof globalThis.leak, typeof [].push, JSON.stringify([1]), ({}).polluted === undefined, r.args];',
      toolNames: ['a'],
      hostCall: fakeHost().hostCall,
    });
    expectOk(second, ['undefined', 'function', '[1]', true, { q: 1 }]);
  });

  it('a program that patches built-ins the prelude relies on only breaks itself', async () => {
    const host = fakeHost();
    const code = `
      Promise.prototype.then = function () { throw new Error('hijacked'); };
      JSON.stringify = () => { throw new Error('hijacked'); };
      Object.defineProperty(Array.prototype, '0', { set() { throw new Error('hijacked'); }, configurable: true });
      Object.prototype.toJSON = function () { return 'hijacked'; };
      console.log('still logging', { a: 1 });
      return { status: 'finished' };
    `;
    const outcome = await sandbox.run({ code, toolNames: ['a'], hostCall: host.hostCall });
    // The returned value is the plain data the program built: an inherited toJSON is not applied.
    expectOk(outcome, { status: 'finished' });
    expect(outcome.logs).toStrictEqual(['still logging {"a":1}']);
  });
});
