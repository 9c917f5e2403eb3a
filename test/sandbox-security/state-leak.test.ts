// Nothing a program does survives into the next run: globals, mutated intrinsics,
// replaced tools, late callbacks, failed runs, and concurrent runs on one sandbox.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import type { FailureKind, Sandbox, SandboxLimits } from '../../sandbox/types.ts';
import { expectFailure, expectHealthy, expectResult, okJson, recordingHost, sleep } from './helpers.ts';

const sandbox = createSandbox({ limits: { wallTimeMs: 20_000, cpuTimeMs: 5_000 } });
afterAll(() => sandbox.close());

const PRISTINE_PROBE = `
  return {
    x: typeof globalThis.x,
    stash: typeof globalThis.stash,
    push: typeof [].push,
    polluted: ({}).polluted === undefined,
    arrayPolluted: [].polluted === undefined,
    stringify: JSON.stringify({ a: [1] }),
    then: typeof Promise.prototype.then,
    log: typeof console.log,
    toolA: await tools.a({ probe: true }),
    tceProto: ToolCallError.prototype.hijacked === undefined,
    functionProto: typeof Function.prototype.call,
    errorPst: Error.prepareStackTrace === undefined,
    limit: Error.stackTraceLimit,
    frozen: Object.isFrozen(Object.prototype),
  };
`;

async function expectPristine(box: Sandbox): Promise<void> {
  const rec = recordingHost(['a'], () => okJson('from host'));
  const outcome = await box.run({ code: PRISTINE_PROBE, toolNames: ['a'], hostCall: rec.hostCall });
  const base = {
    x: 'undefined',
    stash: 'undefined',
    push: 'function',
    polluted: true,
    arrayPolluted: true,
    stringify: '{"a":[1]}',
    then: 'function',
    log: 'function',
    toolA: 'from host',
    tceProto: true,
    functionProto: 'function',
    errorPst: true,
  };
  if (!outcome.ok) throw new Error(`probe failed: ${outcome.kind}: ${outcome.message}`);
  const { limit, frozen, ...rest } = outcome.result as Record<string, unknown>;
  expect(rest).toStrictEqual(base);
  expect(limit).toBe(baselineStackLimit);
  expect(frozen).toBe(baselineFrozen);
  expect(rec.calls.map((c) => c.argsJson)).toStrictEqual(['{"probe":true}']);
}

let baselineStackLimit: unknown;
let baselineFrozen: unknown;

describe('sandbox security: no state survives between runs', () => {
  it('records the pristine baseline', async () => {
    const rec = recordingHost(['a']);
    const outcome = await sandbox.run({
      code: 'return [Error.stackTraceLimit, Object.isFrozen(Object.prototype)];',
      toolNames: ['a'],
      hostCall: rec.hostCall,
    });
    if (!outcome.ok) throw new Error(`${outcome.kind}: ${outcome.message}`);
    [baselineStackLimit, baselineFrozen] = outcome.result as unknown[];
    await expectPristine(sandbox);
  }, 30_000);

  it('globals, intrinsics, console, tools and ToolCallError mutated in one run are pristine in the next', async () => {
    const rec = recordingHost(['a']);
    const outcome = await sandbox.run({
      code: `
        globalThis.x = 1;
        globalThis.stash = { secret: 'run-1' };
        Object.prototype.polluted = 1; Array.prototype.polluted = 1;
        Error.stackTraceLimit = 0;
        Error.prepareStackTrace = () => 'hijacked';
        ToolCallError.prototype.hijacked = true;
        const realA = tools.a;
        try { tools.a = async () => 'hijacked'; } catch (e) {}
        try { Object.defineProperty(tools, 'a', { value: async () => 'hijacked' }); } catch (e) {}
        await realA({});
        Array.prototype.push = null;
        JSON.stringify = () => 'hijacked';
        Function.prototype.call = null;
        console.log = null;
        Promise.prototype.then = function () { throw new Error('hijacked then'); };
        return 'mutated';
      `,
      toolNames: ['a'],
      hostCall: rec.hostCall,
    });
    // The sabotage may break this run's own result: that is the program's business.
    if (outcome.ok) expect(outcome.result).toBe('mutated');
    else expectFailure(outcome, ['exception', 'invalid-output']);
    await expectPristine(sandbox);
    await expectHealthy(sandbox);
  }, 30_000);

  it('a frozen Object.prototype in one run does not carry over', async () => {
    const rec = recordingHost([]);
    const outcome = await sandbox.run({
      code: 'Object.freeze(Object.prototype); Object.freeze(Array.prototype); return Object.isFrozen(Object.prototype);',
      toolNames: [],
      hostCall: rec.hostCall,
    });
    expectResult(outcome, true);
    await expectPristine(sandbox);
  }, 30_000);

  it('late callbacks of a finished run cannot write into the next run', async () => {
    const rec1 = recordingHost(['slow'], async () => {
      await sleep(150);
      return okJson(1);
    });
    const first = await sandbox.run({
      code: `
        tools.slow({}).then(() => { globalThis.x = 'late'; Object.prototype.polluted = 'late'; });
        (async () => { for (let i = 0; i < 50; i++) { await null; } globalThis.stash = 'late'; })();
        return 'first';
      `,
      toolNames: ['slow'],
      hostCall: rec1.hostCall,
    });
    expectResult(first, 'first');
    await expectPristine(sandbox);
    await sleep(300);
    await expectPristine(sandbox);
  }, 30_000);

  it('runs that died of cpu, memory and exceptions leave no state behind', async () => {
    const rec = recordingHost([]);
    // Each killer gets limits that only it can hit: the memory bomb allocates 8 MB a step
    // (few, large objects, little GC work) under a CPU budget it cannot exhaust first, so
    // it ends with memory even on a loaded machine; the CPU loop allocates nothing.
    const killers: [string, FailureKind[], Partial<SandboxLimits>][] = [
      [
        'globalThis.x = 1; Object.prototype.polluted = 1; for (;;) {}',
        ['cpu', 'timeout'],
        { cpuTimeMs: 500, wallTimeMs: 5_000 },
      ],
      [
        'globalThis.x = 1; Object.prototype.polluted = 1; const k = []; for (;;) k.push(new Array(1_000_000).fill(0));',
        ['memory'],
        { cpuTimeMs: 15_000, wallTimeMs: 20_000, memoryMb: 64 },
      ],
      [
        'globalThis.x = 1; Object.prototype.polluted = 1; throw new Error("boom");',
        ['exception'],
        { cpuTimeMs: 500, wallTimeMs: 5_000 },
      ],
    ];
    for (const [code, kinds, limits] of killers) {
      const outcome = await sandbox.run({ code, toolNames: [], hostCall: rec.hostCall, limits });
      expectFailure(outcome, kinds);
      await expectPristine(sandbox);
    }
  }, 60_000);

  it('ten consecutive runs each start from a fresh global', async () => {
    const rec = recordingHost([]);
    const seen: unknown[] = [];
    for (let i = 0; i < 10; i++) {
      const outcome = await sandbox.run({
        code: 'globalThis.counter = (globalThis.counter ?? 0) + 1; return globalThis.counter;',
        toolNames: [],
        hostCall: rec.hostCall,
      });
      if (!outcome.ok) throw new Error(`${outcome.kind}: ${outcome.message}`);
      seen.push(outcome.result);
    }
    expect(seen).toStrictEqual(Array(10).fill(1));
  }, 60_000);

  it('concurrent runs on one sandbox share neither globals nor host calls', async () => {
    const recA = recordingHost(['slow'], async () => {
      await sleep(200);
      return okJson('A');
    });
    const recB = recordingHost(['slow'], async () => okJson('B'));
    const runA = sandbox.run({
      code: `globalThis.secret = 'A'; Object.prototype.polluted = 'A'; const r = await tools.slow({ who: 'A' });
        return [r, globalThis.secret];`,
      toolNames: ['slow'],
      hostCall: recA.hostCall,
    });
    await sleep(50);
    const runB = sandbox.run({
      code: `const r = await tools.slow({ who: 'B' }); return [r, typeof globalThis.secret, ({}).polluted === undefined];`,
      toolNames: ['slow'],
      hostCall: recB.hostCall,
    });
    const [a, b] = await Promise.all([runA, runB]);
    expectResult(a, ['A', 'A']);
    expectResult(b, ['B', 'undefined', true]);
    expect(recA.calls.map((c) => c.argsJson)).toStrictEqual(['{"who":"A"}']);
    expect(recB.calls.map((c) => c.argsJson)).toStrictEqual(['{"who":"B"}']);
    await expectHealthy(sandbox);
  }, 30_000);
});
