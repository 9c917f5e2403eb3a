// Every limit is hit once, in both isolation modes; each failure has its own kind and
// the next run on the same sandbox works.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSandbox, DEFAULT_LIMITS } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import { gate } from '../support/gate.ts';
import { expectKind, expectOk, fakeHost, ok, sleep, untilAborted } from './helpers.ts';
import { untilArrived } from '../support/until-arrived.ts';

const MODES = ['in-process', 'process'] as const;

async function expectHealthy(sandbox: Sandbox): Promise<void> {
  const host = fakeHost();
  const outcome = await sandbox.run({
    code: 'const r = await tools.echo({ n: 1 }); return r.args.n + 1;',
    toolNames: ['echo'],
    hostCall: host.hostCall,
  });
  expectOk(outcome, 2);
}

describe.each(MODES)('sandbox limits (%s)', (isolation) => {
  const sandbox = createSandbox({ isolation, poolSize: 1, limits: { wallTimeMs: 20_000, cpuTimeMs: 5_000 } });
  afterAll(() => sandbox.close());
  // The compile step counts against a run's wall clock: start the compiler (and the
  // sandbox process) first, so a cold start on a loaded machine does not end the 300 ms
  // run below as `compile` before it runs.
  beforeAll(async () => {
    expectOk(await sandbox.run({ code: 'return 1;', toolNames: [], hostCall: fakeHost().hostCall }), 1);
  }, 60_000);

  it('wall clock: a run that awaits a tool that never answers ends with timeout', async () => {
    const host = fakeHost((request) => untilAborted(request.signal).then(() => ok('late')));
    const outcome = await sandbox.run({
      code: 'await tools.hang({}); return 1;',
      toolNames: ['hang'],
      hostCall: host.hostCall,
      // Long enough for the call to reach the host on a loaded machine (it is what is checked).
      limits: { wallTimeMs: 1_500 },
    });
    expectKind(outcome, 'timeout', /wall-clock limit of 1500 ms/);
    // The in-flight call was aborted and waited for.
    expect(host.aborted).toStrictEqual([1]);
    expect(host.settled).toStrictEqual([1]);
    await expectHealthy(sandbox);
  });

  it('cpu: a loop that starts after an await ends with cpu', async () => {
    const host = fakeHost();
    const outcome = await sandbox.run({
      code: 'await tools.a({}); for (;;) {}',
      toolNames: ['a'],
      hostCall: host.hostCall,
      limits: { cpuTimeMs: 200 },
    });
    expectKind(outcome, 'cpu', /CPU budget of 200 ms/);
    await expectHealthy(sandbox);
  });

  it('cpu: a synchronous loop ends with cpu', async () => {
    const outcome = await sandbox.run({
      code: 'while (true) {}',
      toolNames: [],
      hostCall: fakeHost().hostCall,
      limits: { cpuTimeMs: 200 },
    });
    expectKind(outcome, 'cpu');
    await expectHealthy(sandbox);
  });

  it('memory: a heap bomb ends with memory', async () => {
    const outcome = await sandbox.run({
      code: 'const keep = []; for (;;) keep.push(new Array(100000).fill({ x: 1 }));',
      toolNames: [],
      hostCall: fakeHost().hostCall,
      limits: { memoryMb: 32 },
    });
    expectKind(outcome, 'memory');
    await expectHealthy(sandbox);
  });

  it('memory: a 1 GiB resizable ArrayBuffer is refused with memory', async () => {
    const code = 'const b = new ArrayBuffer(0, { maxByteLength: 2 ** 30 }); b.resize(2 ** 30); return b.byteLength;';
    const outcome = await sandbox.run({ code, toolNames: [], hostCall: fakeHost().hostCall, limits: { memoryMb: 64 } });
    expectKind(outcome, 'memory', /maxByteLength/);
    await expectHealthy(sandbox);
  });

  it('memory: resizable buffers share one budget, so many small reservations cannot add up to 1 GiB', async () => {
    const code =
      'const all = []; for (let i = 0; i < 64; i++) all.push(new ArrayBuffer(0, { maxByteLength: 16 * 2 ** 20 })); return all.length;';
    const outcome = await sandbox.run({ code, toolNames: [], hostCall: fakeHost().hostCall, limits: { memoryMb: 64 } });
    expectKind(outcome, 'memory');
    // Within the budget, resizable buffers work.
    const small = await sandbox.run({
      code: 'const b = new ArrayBuffer(1, { maxByteLength: 1024 }); b.resize(512); return [b.resizable, b.byteLength, b.constructor === ArrayBuffer];',
      toolNames: [],
      hostCall: fakeHost().hostCall,
    });
    expectOk(small, [true, 512, true]);
  });

  it('memory: the intrinsic ArrayBuffer is not reachable to bypass the cap', async () => {
    const code = `
      const paths = [
        Object.getPrototypeOf(new Uint8Array(1).buffer).constructor,
        new Uint8Array(1).buffer.constructor,
        ArrayBuffer.prototype.constructor,
        Reflect.getPrototypeOf(new DataView(new ArrayBuffer(1)).buffer).constructor,
      ];
      return paths.map((C) => C === ArrayBuffer && C.name === 'ArrayBuffer');
    `;
    const outcome = await sandbox.run({ code, toolNames: [], hostCall: fakeHost().hostCall });
    // Every path leads to the capped constructor.
    expectOk(outcome, [true, true, true, true]);
  });

  it('memory: a 1 GiB WebAssembly memory and a 1 GiB growable SharedArrayBuffer are impossible', async () => {
    const wasm = await sandbox.run({
      code: 'const m = new WebAssembly.Memory({ initial: 1, maximum: 16384 }); m.grow(16383); return m.buffer.byteLength;',
      toolNames: [],
      hostCall: fakeHost().hostCall,
    });
    expectKind(wasm, 'exception', /WebAssembly is not defined/);
    const sab = await sandbox.run({
      code: 'const b = new SharedArrayBuffer(0, { maxByteLength: 2 ** 30 }); b.grow(2 ** 30); return b.byteLength;',
      toolNames: [],
      hostCall: fakeHost().hostCall,
    });
    expectKind(sab, 'exception', /SharedArrayBuffer is not defined/);
    const probe = await sandbox.run({
      code: 'return [typeof WebAssembly, typeof SharedArrayBuffer, typeof Atomics];',
      toolNames: [],
      hostCall: fakeHost().hostCall,
    });
    expectOk(probe, ['undefined', 'undefined', 'undefined']);
  });

  it('memory: keeping hundreds of thousands of Intl objects (ICU memory outside the heap) ends with memory', async () => {
    for (const make of ['new Intl.DateTimeFormat("en")', 'Intl.Collator("en")', 'new Intl.PluralRules("en")']) {
      const code = `const keep = []; for (let i = 0; i < 300000; i++) keep.push(${make}); return keep.length;`;
      const outcome = await sandbox.run({
        code,
        toolNames: [],
        hostCall: fakeHost().hostCall,
        limits: { memoryMb: 64 },
      });
      expectKind(outcome, 'memory', /reuse it/);
    }
    const reuse = await sandbox.run({
      code: 'const f = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }); return [f.format(1234.5), f instanceof Intl.NumberFormat, f.constructor === Intl.NumberFormat];',
      toolNames: [],
      hostCall: fakeHost().hostCall,
    });
    expectOk(reuse, ['$1,234.50', true, true]);
  });

  it('memory: a plain ArrayBuffer over the heap limit is refused inside the guest (memory when uncaught)', async () => {
    const outcome = await sandbox.run({
      code: 'return new ArrayBuffer(2 ** 30).byteLength;',
      toolNames: [],
      hostCall: fakeHost().hostCall,
      limits: { memoryMb: 64 },
    });
    expectKind(outcome, 'memory');
    await expectHealthy(sandbox);
  });

  it('call budget: call maxCalls + 1 ends with call-limit and the host sees only maxCalls calls', async () => {
    const host = fakeHost();
    const code = 'for (let i = 0; i < 10; i++) { try { await tools.a({ i }); } catch (e) {} } return "finished";';
    const outcome = await sandbox.run({ code, toolNames: ['a'], hostCall: host.hostCall, limits: { maxCalls: 3 } });
    expectKind(outcome, 'call-limit', /more than 3 tool calls/);
    expect(host.calls.map((c) => c.seq)).toStrictEqual([1, 2, 3]);
    await expectHealthy(sandbox);
  });

  it('concurrency: at most maxConcurrentCalls run at once; the excess waits and completes', async () => {
    // The first two calls are held until both are in: under load the second may arrive
    // after a 20 ms first one has ended, and the cap would never be reached.
    const twoIn = gate();
    const host = fakeHost(async (request) => {
      if (host.inFlight === 2) twoIn.open();
      await twoIn.passed;
      await sleep(20);
      return ok(request.seq);
    });
    const code = 'return await Promise.all(Array.from({ length: 7 }, (_, i) => tools.a({ i })));';
    const outcome = await sandbox.run({
      code,
      toolNames: ['a'],
      hostCall: host.hostCall,
      limits: { maxConcurrentCalls: 2 },
    });
    expectOk(outcome, [1, 2, 3, 4, 5, 6, 7]);
    expect(host.maxInFlight).toBe(2);
    expect(host.calls.map((c) => c.seq)).toStrictEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('result size: a returned value over maxResultBytes ends with output-limit', async () => {
    const outcome = await sandbox.run({
      code: 'return "x".repeat(5000);',
      toolNames: [],
      hostCall: fakeHost().hostCall,
      limits: { maxResultBytes: 1000 },
    });
    expectKind(outcome, 'output-limit', /1000 bytes/);
    const fits = await sandbox.run({
      code: 'return "x".repeat(990);',
      toolNames: [],
      hostCall: fakeHost().hostCall,
      limits: { maxResultBytes: 1000 },
    });
    expectOk(fits, 'x'.repeat(990));
  });

  it('result shape: a value that is not JSON ends with invalid-output naming where', async () => {
    const cases: [string, RegExp][] = [
      ['return { a: { b: () => 1 } };', /a function at result\.a\.b/],
      ['return 10n;', /BigInt/],
      ['const o = {}; o.self = o; return o;', /circular/],
      ['return new Map([[1, 2]]);', /a Map/],
      ['return [1, NaN];', /non-finite/],
    ];
    for (const [code, message] of cases) {
      expectKind(await sandbox.run({ code, toolNames: [], hostCall: fakeHost().hostCall }), 'invalid-output', message);
    }
    await expectHealthy(sandbox);
  });

  it('logs: output over maxLogBytes keeps the prefix and ends with a marker; the run still succeeds', async () => {
    const code = 'for (let i = 0; i < 100; i++) console.log("line " + i + " " + "y".repeat(20)); return "done";';
    const outcome = await sandbox.run({
      code,
      toolNames: [],
      hostCall: fakeHost().hostCall,
      limits: { maxLogBytes: 100 },
    });
    expectOk(outcome, 'done');
    const logs = outcome.logs;
    expect(logs[0]).toBe(`line 0 ${'y'.repeat(20)}`);
    expect(logs.at(-1)).toBe('[log output truncated: more than 100 bytes]');
    const kept = logs.slice(0, -1).join('');
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(100);
    expect(
      `line 0 ${'y'.repeat(20)}line 1 ${'y'.repeat(20)}line 2 ${'y'.repeat(20)}line 3 ${'y'.repeat(20)}`.startsWith(
        kept,
      ),
    ).toBe(true);
  });

  it('logs: a single huge log line is cut at the byte limit without splitting a character', async () => {
    const outcome = await sandbox.run({
      code: 'console.log("é".repeat(100000)); return 1;',
      toolNames: [],
      hostCall: fakeHost().hostCall,
      limits: { maxLogBytes: 101 },
    });
    expectOk(outcome, 1);
    expect(outcome.logs).toStrictEqual(['é'.repeat(50), '[log output truncated: more than 101 bytes]']);
  });

  it('abort: the caller signal ends the run with abort and aborts the in-flight call', async () => {
    const host = fakeHost((request) => untilAborted(request.signal).then(() => ok('late')));
    const controller = new AbortController();
    const pending = sandbox.run({
      code: 'await tools.hang({}); return 1;',
      toolNames: ['hang'],
      hostCall: host.hostCall,
      signal: controller.signal,
    });
    await untilArrived(() => host.calls.length > 0, [pending]);
    controller.abort();
    expectKind(await pending, 'abort');
    expect(host.aborted).toStrictEqual([1]);
    await expectHealthy(sandbox);
  });

  it('abort: an already aborted signal never starts the program', async () => {
    const host = fakeHost();
    const outcome = await sandbox.run({
      code: 'await tools.a({});',
      toolNames: ['a'],
      hostCall: host.hostCall,
      signal: AbortSignal.abort(),
    });
    expectKind(outcome, 'abort');
    expect(host.calls).toHaveLength(0);
  });
});

describe('sandbox limit defaults', () => {
  it('match the specification', () => {
    expect(DEFAULT_LIMITS).toStrictEqual({
      memoryMb: 128,
      wallTimeMs: 120_000,
      cpuTimeMs: 30_000,
      maxCalls: 1_000,
      maxConcurrentCalls: 10,
      maxResultBytes: 1_048_576,
      maxLogBytes: 65_536,
      maxLogLines: 1_000,
    });
  });

  it('bad limits are refused with a message naming the field', async () => {
    expect(() => createSandbox({ isolation: 'in-process', poolSize: 0, limits: { maxCalls: -1 } })).toThrow(
      /maxCalls must be a positive integer/,
    );
    const sandbox = createSandbox({ isolation: 'in-process', poolSize: 0 });
    try {
      await expect(
        sandbox.run({ code: '', toolNames: [], hostCall: fakeHost().hostCall, limits: { wallTimeMs: 1.5 } }),
      ).rejects.toThrow(/wallTimeMs/);
      await expect(
        sandbox.run({ code: '', toolNames: [], hostCall: fakeHost().hostCall, limits: { memoryMb: 4 } }),
      ).rejects.toThrow(/memoryMb must be at least 8/);
    } finally {
      await sandbox.close();
    }
  });
});
