// Budgets under attack: CPU and wall-clock loops (before and after awaits, inside
// getters and toJSON), heap and off-heap memory bombs with RSS checks, call floods,
// concurrency, log floods, result size and shape, and cancellation.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox, DEFAULT_LIMITS } from '../../sandbox/index.ts';
import type { HostCallRequest, SandboxLimits } from '../../sandbox/types.ts';
import {
  expectFailure,
  expectHealthy,
  expectNoHostLeak,
  expectResult,
  type HostileCase,
  memorySnapshot,
  okJson,
  peakGrowthMb,
  recordingHost,
  runCases,
  sleep,
  untilAborted,
} from './helpers.ts';

const sandbox = createSandbox({ limits: { wallTimeMs: 20_000, cpuTimeMs: 5_000 } });
afterAll(() => sandbox.close());

const LOOP = { cpuTimeMs: 500, wallTimeMs: 5_000 };

const loopCases: HostileCase[] = [
  {
    name: 'a synchronous infinite loop ends with timeout or cpu',
    limits: LOOP,
    code: 'while (true) {}',
    check: (o) => expectFailure(o, ['timeout', 'cpu']),
  },
  {
    name: 'an infinite loop that starts after awaiting a tool call still ends',
    limits: LOOP,
    code: 'await tools.a({}); await tools.slow({}); for (;;) {}',
    check: (o, rec) => {
      expectFailure(o, ['timeout', 'cpu']);
      expect(rec.calls.map((c) => c.toolName)).toStrictEqual(['a', 'slow']);
    },
  },
  {
    name: 'an infinite loop in a microtask queued before return still ends',
    limits: LOOP,
    code: 'Promise.resolve().then(() => { for (;;) {} }); return 1;',
    check: (o) => {
      if (!o.ok) expectFailure(o, ['timeout', 'cpu']);
      else expect(o.result).toBe(1);
    },
  },
  {
    name: 'a looping argument getter is never run: the call is refused before it reaches the host',
    limits: LOOP,
    code: 'await tools.a({ get x() { for (;;) {} } });',
    check: (o, rec) => {
      expectFailure(o, ['exception'], /accessor property/);
      expect(rec.calls).toHaveLength(0);
    },
  },
  {
    name: 'a looping toJSON on the returned value is never run: the value is refused as not JSON',
    limits: LOOP,
    code: 'return { toJSON() { for (;;) {} } };',
    check: (o) => expectFailure(o, ['invalid-output'], /function/),
  },
  {
    name: 'infinite recursion is a clean exception',
    code: 'const f = () => f() + 1; return f();',
    check: (o) => expectFailure(o, ['exception'], /call stack|recursion/i),
  },
  {
    name: 'a returned promise that never settles ends with timeout',
    limits: { wallTimeMs: 800 },
    code: 'return new Promise(() => {});',
    check: (o) => expectFailure(o, ['timeout']),
  },
  {
    name: 'a host call that never settles and ignores its signal ends with timeout, signal aborted',
    limits: { wallTimeMs: 800 },
    host: () => new Promise(() => {}),
    code: 'return await tools.a({});',
    check: (o, rec) => {
      expectFailure(o, ['timeout']);
      expect(rec.calls).toHaveLength(1);
      expect(rec.calls[0]?.signal.aborted).toBe(true);
    },
  },
  {
    name: 'a WebAssembly infinite loop ends (or WebAssembly is absent)',
    limits: LOOP,
    // (module (func (export "spin") (loop (br 0))))
    code: `
      const bytes = new Uint8Array([0,97,115,109,1,0,0,0,1,4,1,96,0,0,3,2,1,0,7,8,1,4,115,112,105,110,0,0,
        10,9,1,7,0,3,64,12,0,11,11]);
      const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes));
      instance.exports.spin();
      return 'returned';
    `,
    check: (o) => expectFailure(o, ['timeout', 'cpu', 'exception']),
  },
  {
    name: 'Atomics.wait cannot block the sandbox forever',
    limits: LOOP,
    code: 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); return "woke";',
    check: (o) => expectFailure(o, ['timeout', 'cpu', 'exception']),
  },
];

const resultCases: HostileCase[] = [
  {
    name: 'returning a function is invalid-output',
    code: 'return () => 1;',
    check: (o) => expectFailure(o, ['invalid-output']),
  },
  {
    name: 'returning a nested function is invalid-output',
    code: 'return { f() {} };',
    check: (o) => expectFailure(o, ['invalid-output']),
  },
  {
    name: 'returning a BigInt is invalid-output',
    code: 'return 10n;',
    check: (o) => expectFailure(o, ['invalid-output']),
  },
  {
    name: 'returning a nested BigInt is invalid-output',
    code: 'return [1, { n: 2n }];',
    check: (o) => expectFailure(o, ['invalid-output']),
  },
  {
    name: 'returning a Symbol is invalid-output',
    code: 'return Symbol("s");',
    check: (o) => expectFailure(o, ['invalid-output']),
  },
  {
    name: 'returning a nested Symbol is invalid-output',
    code: 'return { s: Symbol("s") };',
    check: (o) => expectFailure(o, ['invalid-output']),
  },
  {
    name: 'returning a cycle is invalid-output',
    code: 'const a = { b: {} }; a.b.a = a; return a;',
    check: (o) => expectFailure(o, ['invalid-output']),
  },
  {
    name: 'returning 100,000 nested arrays is invalid-output or output-limit',
    code: 'let v = []; for (let i = 0; i < 100000; i++) v = [v]; return v;',
    check: (o) => expectFailure(o, ['invalid-output', 'output-limit']),
  },
  {
    name: 'returning a Proxy whose traps throw fails cleanly',
    code: `return new Proxy({}, { ownKeys() { throw new Error('trap'); }, get() { throw new Error('trap'); },
      getOwnPropertyDescriptor() { throw new Error('trap'); } });`,
    check: (o) => expectFailure(o, ['invalid-output', 'exception']),
  },
  {
    name: 'returning 2 MB of text is output-limit',
    code: 'return "x".repeat(2 * 1024 * 1024);',
    check: (o) => expectFailure(o, ['output-limit']),
  },
  {
    name: 'the result limit counts UTF-8 bytes, not characters',
    // 600,000 two-byte characters: 1.2 MB of JSON text, 0.6 M characters.
    code: 'return "\\u00e9".repeat(600000);',
    check: (o) => expectFailure(o, ['output-limit']),
  },
  {
    name: 'a small custom maxResultBytes is enforced',
    limits: { maxResultBytes: 100 },
    code: 'return { text: "y".repeat(200) };',
    check: (o) => expectFailure(o, ['output-limit']),
  },
  {
    name: 'returning undefined succeeds with no result',
    code: 'return undefined;',
    check: (o) => expectResult(o, undefined),
  },
];

const memoryCases: HostileCase[] = [
  {
    name: 'a heap bomb ends with memory',
    limits: { memoryMb: 64 },
    timeoutMs: 60_000,
    code: 'const keep = []; for (;;) keep.push(new Array(100000).fill({ a: Math.random() }));',
    check: (o) => expectFailure(o, ['memory']),
  },
  {
    name: 'a heap bomb after awaiting a tool ends with memory',
    limits: { memoryMb: 64 },
    timeoutMs: 60_000,
    code: 'await tools.slow({}); const keep = []; for (;;) keep.push("x".repeat(100000) + keep.length);',
    // Near the heap limit V8 runs back-to-back full GCs; on a loaded machine those can use
    // up the CPU budget before the heap limit trips. Either way the run is stopped by a limit.
    check: (o) => expectFailure(o, ['memory', 'cpu']),
  },
];

/** Off-heap allocations that bypass a plain heap limit (each reaches 1 GiB in a bare isolate). */
const offHeapBombs: { name: string; code: string; limits?: Partial<SandboxLimits> }[] = [
  {
    name: 'WebAssembly.Memory of 1 GiB',
    code: 'const m = new WebAssembly.Memory({ initial: 16384 }); new Uint8Array(m.buffer).fill(1); return m.buffer.byteLength;',
  },
  {
    name: 'WebAssembly.Memory grown to 1 GiB',
    code: 'const m = new WebAssembly.Memory({ initial: 1, maximum: 16384 }); m.grow(16383); new Uint8Array(m.buffer).fill(1); return m.buffer.byteLength;',
  },
  {
    name: 'resizable ArrayBuffer resized to 1 GiB',
    code: 'const b = new ArrayBuffer(8, { maxByteLength: 2 ** 30 }); b.resize(2 ** 30); new Uint8Array(b).fill(1); return b.byteLength;',
  },
  {
    name: 'growable SharedArrayBuffer grown to 1 GiB',
    code: 'const b = new SharedArrayBuffer(8, { maxByteLength: 2 ** 30 }); b.grow(2 ** 30); new Uint8Array(b).fill(1); return b.byteLength;',
  },
  {
    name: 'plain ArrayBuffer of 1 GiB',
    code: 'const b = new ArrayBuffer(2 ** 30); new Uint8Array(b).fill(1); return b.byteLength;',
  },
  {
    name: '1 GiB in 1 MiB ArrayBuffers',
    code: 'const keep = []; for (let i = 0; i < 1024; i++) { const b = new ArrayBuffer(2 ** 20); new Uint8Array(b).fill(1); keep.push(b); } return keep.length;',
  },
  {
    // Each Intl object owns ICU memory outside the V8 heap (~2-28 KiB each): 300,000 of them is over 1 GiB.
    name: 'ICU memory of 300,000 Intl.NumberFormat objects',
    code: 'const keep = []; for (let i = 0; i < 300000; i++) keep.push(new Intl.NumberFormat("en")); return keep.length;',
    limits: { cpuTimeMs: 20_000 },
  },
];

describe('sandbox security: loops and deadlines', () => {
  runCases(() => sandbox, loopCases);
});

describe('sandbox security: returned values', () => {
  runCases(() => sandbox, resultCases);
});

describe('sandbox security: memory', () => {
  runCases(() => sandbox, memoryCases);

  for (const bomb of offHeapBombs) {
    it(`off-heap bomb fails without 1 GiB of RSS: ${bomb.name}`, async () => {
      const before = memorySnapshot();
      const rec = recordingHost([]);
      const outcome = await sandbox.run({
        code: bomb.code,
        toolNames: [],
        hostCall: rec.hostCall,
        limits: { memoryMb: 64, ...bomb.limits },
      });
      const growth = peakGrowthMb(before);
      expectFailure(outcome, ['memory', 'exception']);
      expectNoHostLeak(outcome);
      expect(growth.childMb).toBeLessThan(512);
      expect(growth.hostMb).toBeLessThan(512);
      await expectHealthy(sandbox);
    }, 60_000);
  }
});

describe('sandbox security: call floods and concurrency', () => {
  it('100,000 concurrent calls end with call-limit; the host sees at most maxCalls, never more than maxConcurrentCalls at once', async () => {
    const rec = recordingHost(['a'], async () => {
      await sleep(2);
      return okJson(1);
    });
    const outcome = await sandbox.run({
      code: 'const ps = []; for (let i = 0; i < 100000; i++) ps.push(tools.a({ i })); await Promise.all(ps); return "done";',
      toolNames: ['a'],
      hostCall: rec.hostCall,
      limits: { maxCalls: 100, maxConcurrentCalls: 4 },
    });
    expectFailure(outcome, ['call-limit']);
    expect(rec.calls.length).toBeLessThanOrEqual(100);
    expect(rec.maxInFlight).toBeLessThanOrEqual(4);
    expect(rec.violations).toStrictEqual([]);
    await expectHealthy(sandbox);
  }, 60_000);

  it('a serial flood that swallows every error still ends with call-limit', async () => {
    const rec = recordingHost(['a']);
    const outcome = await sandbox.run({
      code: 'for (let i = 0; i < 100000; i++) { try { await tools.a({ i }); } catch (e) {} } return "survived";',
      toolNames: ['a'],
      hostCall: rec.hostCall,
      limits: { maxCalls: 20 },
    });
    expectFailure(outcome, ['call-limit']);
    expect(rec.calls.length).toBeLessThanOrEqual(20);
    await expectHealthy(sandbox);
  }, 60_000);

  it('excess concurrent calls wait instead of running at once, and all complete', async () => {
    const rec = recordingHost(['a'], async (request: HostCallRequest) => {
      await sleep(20);
      return okJson((JSON.parse(request.argsJson) as { i: number }).i);
    });
    const outcome = await sandbox.run({
      code: 'const ps = []; for (let i = 0; i < 30; i++) ps.push(tools.a({ i })); const r = await Promise.all(ps); return r.reduce((s, x) => s + x, 0);',
      toolNames: ['a'],
      hostCall: rec.hostCall,
      limits: { maxConcurrentCalls: 3 },
    });
    expectResult(outcome, 435);
    expect(rec.calls).toHaveLength(30);
    expect(rec.maxInFlight).toBeLessThanOrEqual(3);
    expect(rec.calls.map((c) => c.seq).sort((x, y) => x - y)).toStrictEqual(
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
    await expectHealthy(sandbox);
  }, 60_000);
});

/** Captured logs stay within the byte budget plus one marker line, keeping the prefix. */
function expectTruncatedLogs(logs: readonly string[], limit: number, firstLine: string): void {
  const bytes = logs.reduce((sum, line) => sum + Buffer.byteLength(line, 'utf8'), 0);
  const last = logs[logs.length - 1] ?? '';
  expect(bytes).toBeLessThanOrEqual(limit + Buffer.byteLength(last, 'utf8'));
  expect(Buffer.byteLength(last, 'utf8')).toBeLessThan(1024);
  expect(last).toMatch(/truncat|omitted|dropped|limit/i);
  expect(logs[0]).toContain(firstLine.slice(0, 500));
}

describe('sandbox security: log floods', () => {
  const limit = DEFAULT_LIMITS.maxLogBytes;

  const floodCases: HostileCase[] = [
    {
      name: '10 MB of console.log lines are truncated with a marker, prefix kept',
      timeoutMs: 60_000,
      code: 'const line = "L".repeat(1000); for (let i = 0; i < 10000; i++) console.log(line); return "done";',
      check: (o) => {
        expectResult(o, 'done');
        expectTruncatedLogs(o.logs, limit, 'L'.repeat(1000));
      },
    },
    {
      name: 'one 10 MB console.log line is truncated with a marker',
      timeoutMs: 60_000,
      code: 'console.log("M".repeat(10 * 1024 * 1024)); return "done";',
      check: (o) => {
        expectResult(o, 'done');
        expectTruncatedLogs(o.logs, limit, 'M'.repeat(1000));
      },
    },
    {
      name: 'a log flood across every console method then a throw keeps truncated logs in the failure',
      timeoutMs: 60_000,
      code: `
        const line = "W".repeat(1000);
        for (let i = 0; i < 2000; i++) { console.warn(line); console.error(line); console.info(line); console.debug(line); }
        throw new Error("after flood");
      `,
      check: (o) => {
        expectFailure(o, ['exception'], /after flood/);
        expectTruncatedLogs(o.logs, limit, 'W'.repeat(1000));
      },
    },
    {
      name: 'a custom maxLogBytes is enforced',
      limits: { maxLogBytes: 1000 },
      code: 'for (let i = 0; i < 100; i++) console.log("z".repeat(100)); return 1;',
      check: (o) => {
        expectResult(o, 1);
        expectTruncatedLogs(o.logs, 1000, 'z'.repeat(100));
      },
    },
    {
      name: 'hostile values handed to console do not break the run',
      code: `
        const cycle = {}; cycle.self = cycle;
        const trap = new Proxy({}, { get() { throw new Error('trap'); }, ownKeys() { throw new Error('trap'); },
          getPrototypeOf() { throw new Error('trap'); }, has() { throw new Error('trap'); } });
        const recursive = { get message() { return this.message; } };
        const values = [cycle, 10n, Symbol('s'), () => 1, trap, recursive, { toString() { throw new Error('x'); } },
          Object.create(null)];
        for (const v of values) { try { console.log(v); } catch (e) {} try { console.error('x', v); } catch (e) {} }
        return 'done';
      `,
      check: (o) => {
        expectResult(o, 'done');
        for (const line of o.logs) expect(typeof line).toBe('string');
      },
    },
  ];
  runCases(() => sandbox, floodCases);
});

describe('sandbox security: cancellation', () => {
  it('aborting mid-call ends the run with abort and aborts the host call', async () => {
    const controller = new AbortController();
    const rec = recordingHost(['slow'], (request) => {
      setTimeout(() => controller.abort(), 50);
      return untilAborted(request);
    });
    const outcome = await sandbox.run({
      code: 'await tools.slow({}); return "finished";',
      toolNames: ['slow'],
      hostCall: rec.hostCall,
      signal: controller.signal,
    });
    expectFailure(outcome, ['abort']);
    expect(rec.calls).toHaveLength(1);
    expect(rec.calls[0]?.signal.aborted).toBe(true);
    await expectHealthy(sandbox);
  }, 30_000);

  it('aborting during a synchronous infinite loop ends the run with abort', async () => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 300);
    const rec = recordingHost([]);
    const outcome = await sandbox.run({
      code: 'for (;;) {}',
      toolNames: [],
      hostCall: rec.hostCall,
      signal: controller.signal,
      limits: { cpuTimeMs: 15_000, wallTimeMs: 15_000 },
    });
    clearTimeout(timer);
    expectFailure(outcome, ['abort']);
    await expectHealthy(sandbox);
  }, 30_000);

  it('an already aborted signal never runs the program', async () => {
    const rec = recordingHost(['a']);
    const outcome = await sandbox.run({
      code: 'await tools.a({}); return 1;',
      toolNames: ['a'],
      hostCall: rec.hostCall,
      signal: AbortSignal.abort(),
    });
    expectFailure(outcome, ['abort']);
    expect(rec.calls).toHaveLength(0);
    await expectHealthy(sandbox);
  }, 30_000);
});

describe('sandbox security: limit defaults', () => {
  it('DEFAULT_LIMITS match the specification', () => {
    expect(DEFAULT_LIMITS).toStrictEqual({
      memoryMb: 128,
      wallTimeMs: 120_000,
      cpuTimeMs: 30_000,
      maxCalls: 1000,
      maxConcurrentCalls: 10,
      maxResultBytes: 1_048_576,
      maxLogBytes: 65_536,
      maxLogLines: 1_000,
    });
  });
});
