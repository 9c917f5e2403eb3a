// Nested-call semantics of the bridge, in both isolation modes: submission order,
// concurrency cap, JSON-only crossing, host failures as ToolCallError, calls after the
// program settled, and draining of in-flight calls when the program ends early.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox, InProcessSandbox } from '../../sandbox/index.ts';
import { gate } from '../support/gate.ts';
import { expectKind, expectOk, fakeHost, ok, sleep, untilAborted } from './helpers.ts';

const MODES = ['in-process', 'process'] as const;

describe.each(MODES)('sandbox bridge (%s)', (isolation) => {
  const sandbox = createSandbox({ isolation, poolSize: 1, limits: { wallTimeMs: 20_000, cpuTimeMs: 5_000 } });
  afterAll(() => sandbox.close());

  it('numbers calls 1, 2, 3... in the order the program made them, even when they overlap', async () => {
    // The first two calls are held until both are in (under load the second may arrive
    // after the first has ended), so the cap of 2 is reached.
    const twoIn = gate();
    const host = fakeHost(async (request) => {
      if (host.inFlight === 2) twoIn.open();
      await twoIn.passed;
      // Later calls finish first: order of completion must not renumber anything.
      await sleep(40 - request.seq * 5);
      return ok(JSON.parse(request.argsJson) as { name: string });
    });
    const code = `
      const first = tools.b({ name: 'first' });
      const second = tools.a({ name: 'second' });
      const rest = await Promise.all([tools.c({ name: 'third' }), tools.a({ name: 'fourth' })]);
      return [await first, await second, ...rest];
    `;
    const outcome = await sandbox.run({
      code,
      toolNames: ['a', 'b', 'c'],
      hostCall: host.hostCall,
      limits: { maxConcurrentCalls: 2 },
    });
    expectOk(outcome);
    expect(host.calls.map((c) => [c.seq, c.toolName, c.argsJson])).toStrictEqual([
      [1, 'b', '{"name":"first"}'],
      [2, 'a', '{"name":"second"}'],
      [3, 'c', '{"name":"third"}'],
      [4, 'a', '{"name":"fourth"}'],
    ]);
    expect(host.maxInFlight).toBe(2);
  });

  it('passes arguments and results as JSON text only', async () => {
    const host = fakeHost((request) =>
      ok({ got: request.argsJson, date: '2020-01-01T00:00:00.000Z', nested: [1, { x: null }] }),
    );
    const code =
      'const r = await tools.a({ when: new Date(0).toISOString(), list: [1, "two", null], skip: undefined }); return r;';
    const outcome = await sandbox.run({ code, toolNames: ['a'], hostCall: host.hostCall });
    expectOk(outcome, {
      got: '{"when":"1970-01-01T00:00:00.000Z","list":[1,"two",null]}',
      date: '2020-01-01T00:00:00.000Z',
      nested: [1, { x: null }],
    });
    expect(typeof host.calls[0]?.argsJson).toBe('string');
  });

  it('sends only lossless data: a Date, a getter, a toJSON method or a class instance is refused, never converted', async () => {
    const host = fakeHost();
    for (const [args, reason] of [
      ['{ when: new Date(0) }', /a Date/],
      ['{ get x() { return 1; } }', /accessor property/],
      ['{ toJSON() { return 1; } }', /a function/],
      ['new (class Point { constructor() { this.x = 1; } })()', /instance of a class/],
    ] as const) {
      const outcome = await sandbox.run({
        code: `try { await tools.a(${args}); return 'sent'; } catch (e) { return e.code + ': ' + e.message; }`,
        toolNames: ['a'],
        hostCall: host.hostCall,
      });
      expectOk(outcome);
      expect(String(outcome.ok ? outcome.result : '')).toMatch(/^INVALID_ARGS: /);
      expect(String(outcome.ok ? outcome.result : '')).toMatch(reason);
    }
    expect(host.calls).toHaveLength(0);
  });

  it('refuses non-JSON arguments inside the guest with INVALID_ARGS, without a host call', async () => {
    const host = fakeHost();
    const code = `
      const out = [];
      for (const args of [{ f: () => 1 }, { n: 1n }, [1, undefined], { m: new Map() }]) {
        try { await tools.a(args); out.push('called'); } catch (e) { out.push([e instanceof ToolCallError, e.code, e.toolName]); }
      }
      return out;
    `;
    const outcome = await sandbox.run({ code, toolNames: ['a'], hostCall: host.hostCall });
    expectOk(outcome, Array(4).fill([true, 'INVALID_ARGS', 'a']));
    expect(host.calls).toHaveLength(0);
  });

  it('turns every kind of host failure into a ToolCallError with toolName, code and message', async () => {
    const failures: Record<string, () => unknown> = {
      refuse: () => ({ ok: false, code: 'DENIED', message: 'no access' }),
      syncThrow: () => {
        throw new Error('sync boom');
      },
      asyncThrow: () => Promise.reject(new Error('async boom')),
      rejectString: () => Promise.reject('plain string'),
      rejectProxy: () =>
        Promise.reject(
          new Proxy(
            {},
            {
              get() {
                throw new Error('trap');
              },
              getPrototypeOf() {
                throw new Error('trap');
              },
            },
          ),
        ),
      malformed: () => ({ ok: 'yes' }),
      badJson: () => ({ ok: true, valueJson: '{nope' }),
    };
    const names = Object.keys(failures);
    const hostCall = ((request: { toolName: string }) => failures[request.toolName]!()) as never;
    const code = `
      const out = {};
      for (const name of ${JSON.stringify(names)}) {
        try { await tools[name]({}); out[name] = 'resolved'; }
        catch (e) { out[name] = [e instanceof ToolCallError, e.name, e.toolName, e.code, typeof e.message]; }
      }
      return out;
    `;
    const outcome = await sandbox.run({ code, toolNames: names, hostCall });
    expectOk(outcome, {
      refuse: [true, 'ToolCallError', 'refuse', 'DENIED', 'string'],
      syncThrow: [true, 'ToolCallError', 'syncThrow', 'HOST_CALL_FAILED', 'string'],
      asyncThrow: [true, 'ToolCallError', 'asyncThrow', 'HOST_CALL_FAILED', 'string'],
      rejectString: [true, 'ToolCallError', 'rejectString', 'HOST_CALL_FAILED', 'string'],
      rejectProxy: [true, 'ToolCallError', 'rejectProxy', 'HOST_CALL_FAILED', 'string'],
      malformed: [true, 'ToolCallError', 'malformed', 'INVALID_HOST_OUTCOME', 'string'],
      badJson: [true, 'ToolCallError', 'badJson', 'INVALID_RESULT', 'string'],
    });
  });

  it('keeps the host message of a failure', async () => {
    const hostCall = () => Promise.resolve({ ok: false as const, code: 'NOT_FOUND', message: 'no such file: a.txt' });
    const outcome = await sandbox.run({
      code: 'try { await tools.read({}); } catch (e) { return e.message; }',
      toolNames: ['read'],
      hostCall,
    });
    expectOk(outcome, 'no such file: a.txt');
  });

  it('an uncaught ToolCallError fails the run as exception, naming the tool and code', async () => {
    const hostCall = () => Promise.resolve({ ok: false as const, code: 'DENIED', message: 'no access' });
    const outcome = await sandbox.run({ code: 'await tools.secret({});', toolNames: ['secret'], hostCall });
    expectKind(outcome, 'exception', /ToolCallError: no access \(tools\.secret, code DENIED\)/);
  });

  it('a call made after the program settled is refused (NOT_DISPATCHED) and never reaches the host', async () => {
    const host = fakeHost();
    const code = `
      let late;
      Promise.resolve().then(() => Promise.resolve()).then(() => Promise.resolve()).then(() => {
        late = tools.a({ late: true });
      });
      return 'early';
    `;
    const outcome = await sandbox.run({ code, toolNames: ['a'], hostCall: host.hostCall });
    expectOk(outcome, 'early');
    expect(host.calls).toHaveLength(0);
  });

  it('ending early aborts in-flight calls, abandons queued ones and waits for the aborted calls to settle', async () => {
    const host = fakeHost(async (request) => {
      await untilAborted(request.signal);
      await sleep(30); // the host needs a moment to wind down
      return ok('aborted');
    });
    const code = 'for (let i = 0; i < 5; i++) tools.slow({ i }); await Promise.resolve(); return "left";';
    const outcome = await sandbox.run({
      code,
      toolNames: ['slow'],
      hostCall: host.hostCall,
      limits: { maxConcurrentCalls: 2 },
    });
    expectOk(outcome, 'left');
    // Calls 1 and 2 were running: aborted, and settled before run() returned. 3-5 never started.
    expect(host.calls.map((c) => c.seq)).toStrictEqual([1, 2]);
    expect([...host.aborted].sort()).toStrictEqual([1, 2]);
    expect([...host.settled].sort()).toStrictEqual([1, 2]);
  });

  it('reports an unhandled rejection as a log line instead of losing it', async () => {
    const host = fakeHost();
    const code = 'Promise.reject(new TypeError("nobody caught me")); await tools.a({}); return 1;';
    const outcome = await sandbox.run({ code, toolNames: ['a'], hostCall: host.hostCall });
    expectOk(outcome, 1);
    expect(outcome.logs).toContain('[unhandled rejection] TypeError: nobody caught me');
  });

  it('any string is a tool name, including ones that are not identifiers', async () => {
    const host = fakeHost((request) => ok(request.toolName));
    const names = ['odd-name', '__proto__', 'constructor', 'then', 'with space'];
    const code = `return [await tools["odd-name"]({}), await tools["__proto__"]({}), await tools.constructor({}), await tools.then({}), await tools["with space"]({})];`;
    const outcome = await sandbox.run({ code, toolNames: names, hostCall: host.hostCall });
    expectOk(outcome, names);
  });
});

describe('sandbox bridge: a hung host tool', () => {
  it('cannot hold the run forever: waiting for aborted calls is bounded by the settle grace', async () => {
    const sandbox = new InProcessSandbox({ poolSize: 0, settleGraceMs: 100 });
    try {
      const host = fakeHost(() => new Promise(() => undefined)); // ignores its abort signal
      const outcome = await sandbox.run({
        code: 'tools.stuck({}); return "done";',
        toolNames: ['stuck'],
        hostCall: host.hostCall,
      });
      expectOk(outcome, 'done');
      expect(host.aborted).toStrictEqual([1]);
      expect(host.settled).toStrictEqual([]);
    } finally {
      await sandbox.close();
    }
  });
});
