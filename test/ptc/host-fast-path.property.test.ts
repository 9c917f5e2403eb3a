// The host fast path: with no hook installed, a call skips the empty waterfalls, the
// outcome snapshot only post-execute handlers would see and the result object only a
// tools/execute wrapper would see; the runtime's own timeout policy is left out of the
// chain of a call whose tool has no timeoutMs. For random turns, direct calls and nested
// run_code programs, a runtime with no hooks and one with a no-op handler of every hook
// kind and the timeout policy installed as a plain hook on every call (which forces the
// full path) give identical results, in the same order, with the same bodies run in the
// same order.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { defineTool, installTimeoutPolicy, type JsonValue, type ToolResult } from '../../src/index.ts';
import type { ToolRuntime } from '../../src/runtime/create-tool-runtime.ts';
import { ptcRuntimes } from './helpers.ts';

const runtime = ptcRuntimes();

type ArgKind = 'valid' | 'invalid' | 'throws';
const argsOf = (n: number, kind: ArgKind, hops: number): { [k: string]: JsonValue } =>
  kind === 'invalid' ? { n: `not-a-number-${n}` } : { n, hops, fail: kind === 'throws' };

function work(name: string, safe: boolean, log: string[], timeoutMs?: number) {
  return defineTool({
    name,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    description: `Records its call and returns its number (${safe ? 'concurrency-safe' : 'exclusive'}).`,
    parameters: {
      n: { type: 'integer', required: true },
      hops: { type: 'integer', minimum: 0 },
      fail: { type: 'boolean' },
    },
    output: {
      schema: { type: 'json' },
      render: (_args, value) => [{ type: 'text', text: `${name}:${JSON.stringify(value)}` }],
    },
    isConcurrencySafe: () => safe,
    execute: async ({ n, hops, fail }, exec) => {
      log.push(`>${exec.callId}|${exec.parentCallId ?? '-'}|${name}|${n}`);
      for (let i = 0; i < (hops ?? 0); i += 1) await Promise.resolve();
      log.push(`<${exec.callId}`);
      if (n % 3 === 0)
        exec.deferContext({ role: 'user', content: [{ type: 'text', text: `context of ${exec.callId}` }] });
      if (n % 5 === 4) exec.concludeTurn();
      if (fail === true) throw new Error(`${name} ${n} failed`);
      return { n, seq: log.length };
    },
  });
}

const nestedCall = fc.record({
  tool: fc.constantFrom('safe', 'excl', 'timed'),
  kind: fc.constantFrom<ArgKind>('valid', 'valid', 'invalid', 'throws'),
  hops: fc.nat({ max: 4 }),
  parallel: fc.boolean(),
});
type NestedCall = typeof nestedCall extends fc.Arbitrary<infer T> ? T : never;

/** A program making the calls in order; a run of `parallel` calls goes through one Promise.all. */
function program(calls: readonly NestedCall[]): string {
  const lines = [
    'const out = [];',
    'const call = async (f) => { try { out.push(["ok", await f()]); } catch (e) { out.push(["err", e.code, e.message]); } };',
  ];
  let group: string[] = [];
  const flush = (): void => {
    if (group.length > 0) lines.push(`await Promise.all([${group.join(', ')}]);`);
    group = [];
  };
  calls.forEach((c, i) => {
    const expr = `call(() => tools.${c.tool}(${JSON.stringify(argsOf(i, c.kind, c.hops))}))`;
    if (c.parallel) group.push(expr);
    else {
      flush();
      lines.push(`await ${expr};`);
    }
  });
  flush();
  lines.push('return out;');
  return lines.join('\n');
}

const topCall = fc.oneof(
  fc.record({
    type: fc.constant('tool' as const),
    tool: fc.constantFrom('safe', 'excl', 'timed', 'nope'),
    kind: fc.constantFrom<ArgKind>('valid', 'valid', 'invalid', 'throws'),
    hops: fc.nat({ max: 4 }),
  }),
  fc.record({ type: fc.constant('run' as const), calls: fc.array(nestedCall, { maxLength: 6 }) }),
);
type TopCall = typeof topCall extends fc.Arbitrary<infer T> ? T : never;

const scenario = fc.record({
  turn: fc.array(topCall, { maxLength: 5 }),
  turnAborted: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
  direct: fc.array(fc.record({ call: topCall, aborted: fc.integer({ min: 0, max: 3 }).map((n) => n === 0) }), {
    maxLength: 3,
  }),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

const requestOf = (call: TopCall, callId: string) =>
  call.type === 'run'
    ? { callId, name: 'run_code', arguments: { description: 'equivalence program', code: program(call.calls) } }
    : { callId, name: call.tool, arguments: argsOf(Number(callId.replace(/\D/g, '')), call.kind, call.hops) };

/** Everything observable of a result, frozen-ness included. */
const observable = (result: ToolResult) => ({
  result,
  frozen: Object.isFrozen(result) && Object.isFrozen(result.content) && result.content.every((b) => Object.isFrozen(b)),
});

async function play(rt: ToolRuntime, log: string[], s: Scenario) {
  const aborted = AbortSignal.abort(new Error('stopped'));
  const turn = await rt.executeTurn(
    s.turn.map((c, i) => requestOf(c, `t${i}`)),
    s.turnAborted ? { signal: aborted } : {},
  );
  const direct: unknown[] = [];
  for (const [i, d] of s.direct.entries()) {
    direct.push(
      observable(await rt.execute({ ...requestOf(d.call, `d${i}`), ...(d.aborted ? { signal: aborted } : {}) })),
    );
  }
  return { turn: { ...turn, results: turn.results.map(observable) }, direct, log: [...log] };
}

function equipped(noOpHooks: boolean): { rt: ToolRuntime; log: string[] } {
  const log: string[] = [];
  // The full path: the timeout policy as an ordinary outermost hook, run for every call.
  const rt = runtime({ mode: 'both', ...(noOpHooks ? { timeoutPolicy: false } : {}) });
  rt.register(work('safe', true, log));
  rt.register(work('excl', false, log));
  // Its deadline never fires: the policy wraps its calls on both paths.
  rt.register(work('timed', true, log, 60_000));
  if (noOpHooks) {
    installTimeoutPolicy(rt);
    rt.on('tools/pre-execute', (_exec, next) => next());
    rt.on('tools/execute', (_exec, next) => next());
    rt.on('tools/post-execute', (_exec, _outcome, next) => next());
    rt.on('tools/result', () => {});
  }
  return { rt, log };
}

describe('host fast path (property)', () => {
  it('no hooks installed and no-op hooks installed give identical results, order and body runs', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const fast = equipped(false);
        const full = equipped(true);
        const a = await play(fast.rt, fast.log, s);
        const b = await play(full.rt, full.log, s);
        expect(a).toEqual(b);
        await Promise.all([fast.rt.close(), full.rt.close()]);
      }),
      { numRuns: 30 },
    );
  }, 120_000);

  it('the generated programs reach the nested path (a sanity check of the property above)', async () => {
    const { rt, log } = equipped(false);
    const s: Scenario = {
      turn: [
        {
          type: 'run',
          calls: [
            { tool: 'safe', kind: 'valid', hops: 1, parallel: false },
            { tool: 'excl', kind: 'throws', hops: 0, parallel: false },
            { tool: 'safe', kind: 'invalid', hops: 0, parallel: false },
          ],
        },
      ],
      turnAborted: false,
      direct: [{ call: { type: 'tool', tool: 'nope', kind: 'valid', hops: 0 }, aborted: false }],
    };
    const { turn, direct } = await play(rt, log, s);
    const value = turn.results[0]!.result.value as { result: JsonValue[] };
    expect(value.result).toEqual([
      ['ok', { n: 0, seq: 2 }],
      ['err', 'TOOL_ERROR', expect.stringContaining('excl 1 failed')],
      ['err', 'INVALID_ARGS', expect.any(String)],
    ]);
    expect(log.filter((e) => e.startsWith('>')).map((e) => e.split('|')[1])).toEqual(['t0', 't0']);
    expect((direct[0] as { result: ToolResult }).result.error?.code).toBe('UNKNOWN_TOOL');
  });
});
