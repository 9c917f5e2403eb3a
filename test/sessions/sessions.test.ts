// Sessions through run_code: a program's `state` is there for the next program of the
// session; an unknown, expired, deleted or other agent's id fails loudly with
// SESSION_EXPIRED; a second program on a busy session is refused with SESSION_BUSY and
// the first one's save is not lost; the size bound and refused values keep the previous
// state while the program's result still returns; a failed program saves nothing.
import { describe, expect, it } from '@jest/globals';
import type { JsonValue, RunSessionValue, ToolResult } from '../../src/index.ts';
import type { ToolRuntime } from '../../src/runtime/create-tool-runtime.ts';
import { gate } from '../support/gate.ts';
import { probeTool, ptcRuntimes, textOf } from '../ptc/helpers.ts';

const runtime = ptcRuntimes();

interface RunArgs {
  readonly session?: string;
  readonly agent?: string;
  readonly callId?: string;
  readonly principal?: string;
}

function run(rt: ToolRuntime, code: string, args: RunArgs = {}): Promise<ToolResult> {
  return rt.execute({
    callId: args.callId ?? 'rc',
    name: 'run_code',
    arguments: {
      description: 'Use the session',
      code,
      ...(args.session === undefined ? {} : { session: args.session }),
    },
    ...(args.agent === undefined ? {} : { agent: args.agent }),
    ...(args.principal === undefined ? {} : { principal: args.principal }),
  });
}

function sessionOf(result: ToolResult): RunSessionValue {
  if (result.isError) throw new Error(`run_code failed: ${result.error?.code} ${result.error?.message}`);
  return (result.value as unknown as { session: RunSessionValue }).session;
}

const resultOf = (result: ToolResult): JsonValue | undefined => (result.value as { result?: JsonValue }).result;

function ordersRuntime(options: Parameters<typeof runtime>[0] = {}): { rt: ToolRuntime; calls: () => number } {
  let calls = 0;
  const rt = runtime({ sessions: true, ...options });
  rt.register(
    probeTool({
      name: 'listOrders',
      body: () => {
        calls += 1;
        return Array.from({ length: 500 }, (_, i) => ({ id: `o${i}`, total: i, status: i % 5 === 0 ? 'late' : 'ok' }));
      },
    }),
  );
  return { rt, calls: () => calls };
}

describe('sessions', () => {
  it('keeps 500 orders in state for the next program, which filters them without a tool call', async () => {
    const { rt, calls } = ordersRuntime();
    const first = await run(rt, 'state.orders = await tools.listOrders({}); return state.orders.length;');
    const session = sessionOf(first);
    expect(resultOf(first)).toBe(500);
    expect(session.id).toMatch(/^[A-Za-z0-9_-]{22,}$/); // 128 random bits, base64url
    expect(session.bytes).toBeGreaterThan(10_000);
    expect(textOf(first)).toContain(`[session "${session.id}": state saved, ${session.bytes} bytes]`);
    const second = await run(rt, 'return state.orders.filter((o) => o.status === "late").length;', {
      session: session.id,
    });
    expect(resultOf(second)).toBe(100);
    expect(calls()).toBe(1);
    expect(sessionOf(second).id).toBe(session.id);
  });

  it('documents `session` in the run_code schema and `state` in the SDK only when sessions are on', () => {
    const on = runtime({ sessions: true });
    const off = runtime();
    const params = (rt: ToolRuntime) =>
      (rt.schemas()[0]!.parameters as { properties: Record<string, unknown> }).properties;
    expect(params(on)).toHaveProperty('session');
    expect(params(off)).not.toHaveProperty('session');
    expect(on.sdk()).toContain('declare var state: any;');
    expect(off.sdk()).not.toContain('state');
  });

  it('fails an unknown id with SESSION_EXPIRED, telling the model to start a new session', async () => {
    const rt = runtime({ sessions: true });
    const result = await run(rt, 'return 1;', { session: 'no-such-session' });
    expect(result.error?.code).toBe('SESSION_EXPIRED');
    expect(textOf(result)).toMatch(
      /unknown or has expired.*everything its programs kept in `state` is gone.*without `session`/s,
    );
  });

  it('expires an idle session after ttlMs, and each use renews it', async () => {
    const rt = runtime({ sessions: { ttlMs: 300 } });
    const first = sessionOf(await run(rt, 'state.n = 1;'));
    const second = sessionOf(await run(rt, 'state.n += 1;', { session: first.id }));
    expect(second.expiresAt).toBeGreaterThanOrEqual(first.expiresAt);
    expect(second.expiresAt).toBeLessThanOrEqual(Date.now() + 300);
    // Waits for the clock to pass the expiry (bounded by the test timeout), then uses it.
    while (Date.now() <= second.expiresAt) await new Promise((resolve) => setTimeout(resolve, 20));
    const late = await run(rt, 'return state.n;', { session: first.id });
    expect(late.error?.code).toBe('SESSION_EXPIRED');
  });

  it("treats another agent's session as unknown", async () => {
    const rt = runtime({ sessions: true });
    rt.createAgent('a');
    rt.createAgent('b');
    const mine = sessionOf(await run(rt, 'state.secret = "a-only";', { agent: 'a' }));
    const theirs = await run(rt, 'return state.secret;', { agent: 'b', session: mine.id });
    expect(theirs.error?.code).toBe('SESSION_EXPIRED');
    expect(textOf(theirs)).not.toContain('a-only');
    expect(resultOf(await run(rt, 'return state.secret;', { agent: 'a', session: mine.id }))).toBe('a-only');
  });

  it("treats another principal's session as unknown, within one agent", async () => {
    const rt = runtime({ sessions: true });
    const alice = sessionOf(await run(rt, 'state.owner = "alice";', { principal: 'alice' }));
    expect((await run(rt, 'return state.owner;', { principal: 'bob', session: alice.id })).error?.code).toBe(
      'SESSION_EXPIRED',
    );
    expect((await run(rt, 'return state.owner;', { session: alice.id })).error?.code).toBe('SESSION_EXPIRED');
    expect(resultOf(await run(rt, 'return state.owner;', { principal: 'alice', session: alice.id }))).toBe('alice');
  });

  it('refuses a second program on a busy session with SESSION_BUSY, and the first one saves', async () => {
    const held = gate();
    const entered = gate();
    const rt = runtime({ sessions: true });
    rt.register(
      probeTool({
        name: 'slow',
        body: async () => {
          entered.open();
          await held.passed;
          return 'done';
        },
      }),
    );
    const session = sessionOf(await run(rt, 'state.count = 0;'));
    const first = run(rt, 'await tools.slow({}); state.count += 1;', { session: session.id, callId: 'first' });
    await entered.passed;
    const second = await run(rt, 'state.count += 100;', { session: session.id, callId: 'second' });
    expect(second.error?.code).toBe('SESSION_BUSY');
    expect(textOf(second)).toContain('this program did not run');
    held.open();
    expect(sessionOf(await first).notSaved).toBeUndefined();
    expect(resultOf(await run(rt, 'return state.count;', { session: session.id }))).toBe(1);
  });

  it('refuses a state over maxBytes with its size and the limit; the result returns and the old state stays', async () => {
    const rt = runtime({ sessions: { maxBytes: 1000 } });
    const session = sessionOf(await run(rt, 'state.small = "kept";'));
    const big = await run(rt, 'state.big = "x".repeat(2000); return "answer";', { session: session.id });
    expect(resultOf(big)).toBe('answer');
    expect(sessionOf(big).notSaved).toMatch(/state is \d+ bytes serialized, over the session limit of 1000 bytes/);
    expect(textOf(big)).toContain('state NOT saved');
    expect(resultOf(await run(rt, 'return [state.small, "big" in state];', { session: session.id }))).toEqual([
      'kept',
      false,
    ]);
  });

  it('refuses a function in state naming its path, and keeps the previous state', async () => {
    const rt = runtime({ sessions: true });
    const session = sessionOf(await run(rt, 'state.cache = { n: 1 };'));
    const bad = await run(rt, 'state.cache.fn = () => 1; return "still returned";', { session: session.id });
    expect(resultOf(bad)).toBe('still returned');
    expect(sessionOf(bad).notSaved).toContain('state.cache.fn is a function');
    expect(resultOf(await run(rt, 'return Object.keys(state.cache);', { session: session.id }))).toEqual(['n']);
  });

  it('saves nothing for a failed program, and a cleared state is saved empty', async () => {
    const rt = runtime({ sessions: true });
    const session = sessionOf(await run(rt, 'state.v = 1;'));
    const failed = await run(rt, 'state.v = 2; throw new Error("boom");', { session: session.id });
    expect(failed.error?.code).toBe('CODE_RUN_FAILED');
    expect(resultOf(await run(rt, 'const v = state.v; state = {}; return v;', { session: session.id }))).toBe(1);
    const after = await run(rt, 'return Object.keys(state).length;', { session: session.id });
    expect(resultOf(after)).toBe(0);
    expect(sessionOf(after).bytes).toBe(2);
  });

  it('lets an operator list, show and delete sessions; a deleted id is SESSION_EXPIRED', async () => {
    const rt = runtime({ sessions: true });
    const session = sessionOf(await run(rt, 'state.x = new Map([["k", 1]]);'));
    expect((await rt.sessions.list()).map((s) => s.id)).toEqual([session.id]);
    expect((await rt.sessions.get(session.id))?.state).toBe('{"x":{"$":["Map",["k",1]]}}');
    expect(await rt.sessions.delete(session.id)).toBe(true);
    expect((await run(rt, 'return 1;', { session: session.id })).error?.code).toBe('SESSION_EXPIRED');
    expect(() => runtime().sessions.list()).toThrow(/sessions are off/);
  });
});
