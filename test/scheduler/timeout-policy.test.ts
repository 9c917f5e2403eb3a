// The timeout policy converges: on a deadline the call fails with TOOL_TIMEOUT only
// after its body really settled; a body that ignores its signal is reported, not
// leaked silently; the caller's cancellation wins. Timers here are small and the
// assertions are about outcomes and order, never durations.
import { describe, expect, it } from '@jest/globals';
import {
  createToolRuntime,
  defineTool,
  type JsonValue,
  type ToolExecution,
  type ToolRuntimeOptions,
} from '../../src/index.ts';
import { installTimeoutPolicy, type UnsettledBody } from '../../src/scheduler/timeout-policy.ts';
import { deferred, work, workTool } from './helpers.ts';

type Body = (exec: ToolExecution) => Promise<JsonValue>;

/** `timeoutMs: null` declares no timeout. */
function runtimeWith(
  body: Body,
  timeoutMs: number | null = 20,
  options: ToolRuntimeOptions = { timeoutPolicy: false },
) {
  const rt = createToolRuntime({ sandbox: false, ...options });
  rt.register(
    defineTool({
      name: 'slow',
      description: 'slow',
      parameters: {},
      output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'ok' }] },
      ...(timeoutMs === null ? {} : { timeoutMs }),
      isConcurrencySafe: () => true,
      execute: (_args, exec) => body(exec) as Promise<never>,
    }),
  );
  return rt;
}

const untilAborted = (signal: AbortSignal): Promise<unknown> =>
  new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));

describe('the runtime enforces timeoutMs by default', () => {
  const waitsForSignal: Body = async (exec) => {
    await untilAborted(exec.signal);
    throw new Error('stopped');
  };

  it('createToolRuntime installs the policy: a late call is TOOL_TIMEOUT with no extra step', async () => {
    const rt = runtimeWith(waitsForSignal, 20, {});
    const result = await rt.execute({ callId: 'd1', name: 'slow', arguments: {} });
    expect(result.error).toEqual({
      code: 'TOOL_TIMEOUT',
      message: 'tool "slow" timed out after 20 ms',
      info: { timeoutMs: 20, bodySettled: true },
    });
  });

  it('timeoutPolicy options reach the policy (graceMs, onUnsettled)', async () => {
    const release = deferred<JsonValue>();
    const reports: UnsettledBody[] = [];
    const rt = runtimeWith(() => release.promise, 20, {
      timeoutPolicy: { graceMs: 5, onUnsettled: (r) => void reports.push(r) },
    });
    const result = await rt.execute({ callId: 'd2', name: 'slow', arguments: {} });
    expect(result.error).toMatchObject({ code: 'TOOL_TIMEOUT', info: { bodySettled: false } });
    expect(reports.map((r) => r.graceMs)).toEqual([5]);
    release.resolve('late');
  });

  it('timeoutPolicy: false turns it off: timeoutMs is then only a declaration', async () => {
    const caller = new AbortController();
    const rt = runtimeWith(
      async (exec) => {
        // Without a policy the body sees its caller's own signal, and no deadline ever fires.
        const same = exec.signal === exec.callerSignal;
        await new Promise((resolve) => setTimeout(resolve, 40));
        return same;
      },
      5,
      { timeoutPolicy: false },
    );
    const result = await rt.execute({ callId: 'd3', name: 'slow', arguments: {}, signal: caller.signal });
    expect(result.isError).toBe(false);
    expect(result.value).toBe(true);
  });

  it('rejects a malformed timeoutPolicy', () => {
    expect(() => createToolRuntime({ sandbox: false, timeoutPolicy: true as unknown as false })).toThrow(
      'createToolRuntime: timeoutPolicy must be false or an options object such as { graceMs: 1000 }, got true',
    );
    expect(() => createToolRuntime({ sandbox: false, timeoutPolicy: { graceMs: -1 } })).toThrow(/graceMs/);
  });
});

describe('installTimeoutPolicy', () => {
  it('a body that honours its signal: TOOL_TIMEOUT after the body settled', async () => {
    const events: string[] = [];
    let reason: unknown;
    const rt = runtimeWith(async (exec) => {
      reason = await untilAborted(exec.signal);
      await new Promise<void>((resolve) => setImmediate(resolve));
      events.push('body settled');
      throw new Error('stopped');
    });
    installTimeoutPolicy(rt, { graceMs: 5000 });
    rt.on('tools/result', () => void events.push('result'));
    const result = await rt.execute({ callId: 't1', name: 'slow', arguments: {} });
    expect(result.error).toEqual({
      code: 'TOOL_TIMEOUT',
      message: 'tool "slow" timed out after 20 ms',
      info: { timeoutMs: 20, bodySettled: true },
    });
    expect(result.content).toEqual([{ type: 'text', text: 'Error: tool "slow" timed out after 20 ms' }]);
    expect(events).toEqual(['body settled', 'result']);
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe('TimeoutError');
  });

  it('a body that ignores its signal: reported (onUnsettled, bodySettled: false), not leaked silently', async () => {
    const release = deferred<JsonValue>();
    let bodyDone = false;
    const rt = runtimeWith(async () => {
      const v = await release.promise;
      bodyDone = true;
      return v;
    });
    const reports: UnsettledBody[] = [];
    installTimeoutPolicy(rt, { graceMs: 10, onUnsettled: (r) => void reports.push(r) });
    const result = await rt.execute({ callId: 't2', name: 'slow', arguments: {} });
    expect(result.error).toMatchObject({ code: 'TOOL_TIMEOUT', info: { timeoutMs: 20, bodySettled: false } });
    expect(result.error?.message).toMatch(/ignored its abort signal/);
    expect(reports.map(({ callId, name, timeoutMs, graceMs }) => ({ callId, name, timeoutMs, graceMs }))).toEqual([
      { callId: 't2', name: 'slow', timeoutMs: 20, graceMs: 10 },
    ]);
    expect(bodyDone).toBe(false);
    release.resolve('late');
    await reports[0]!.settled;
    expect(bodyDone).toBe(true);
  });

  it('a body that finishes in time keeps its result', async () => {
    const rt = runtimeWith(async () => 'fast', 10_000);
    installTimeoutPolicy(rt);
    const ok = await rt.execute({ callId: 't4', name: 'slow', arguments: {} });
    expect(ok.value).toBe('fast');
  });

  it('the caller’s abort wins over the deadline: ABORTED, not TOOL_TIMEOUT', async () => {
    const rt = runtimeWith(async (exec) => {
      await untilAborted(exec.signal);
      return 'stopped';
    }, 10_000);
    installTimeoutPolicy(rt);
    const caller = new AbortController();
    const pending = rt.execute({ callId: 't5', name: 'slow', arguments: {}, signal: caller.signal });
    setImmediate(() => caller.abort());
    expect((await pending).error?.code).toBe('ABORTED');
  });

  it('the caller’s abort during the grace period still wins', async () => {
    const release = deferred<JsonValue>();
    const caller = new AbortController();
    const rt = runtimeWith(async (exec) => {
      await untilAborted(exec.signal);
      // The deadline fired; now the caller cancels too, while the body winds down.
      caller.abort();
      return release.promise;
    });
    installTimeoutPolicy(rt, { graceMs: 10, onUnsettled: () => release.resolve('late') });
    const result = await rt.execute({ callId: 't6', name: 'slow', arguments: {}, signal: caller.signal });
    expect(result.error).toMatchObject({ code: 'ABORTED', message: 'tool call aborted', info: { bodySettled: false } });
  });

  it('tools without timeoutMs are untouched, and dispose removes the policy', async () => {
    const seen: boolean[] = [];
    const rt = runtimeWith(async (exec) => {
      seen.push(exec.signal === exec.callerSignal);
      return 'ok';
    }, null);
    const dispose = installTimeoutPolicy(rt);
    await rt.execute({ callId: 'u1', name: 'slow', arguments: {} });
    const timed = runtimeWith(async (exec) => {
      seen.push(exec.signal === exec.callerSignal);
      return 'ok';
    }, 10_000);
    const disposeTimed = installTimeoutPolicy(timed);
    await timed.execute({ callId: 'u2', name: 'slow', arguments: {} });
    disposeTimed();
    await timed.execute({ callId: 'u3', name: 'slow', arguments: {} });
    dispose();
    // No deadline: the caller's own signal. With a deadline: a fused one. Disposed: the caller's again.
    expect(seen).toEqual([true, false, true]);
  });

  it('checks its options', () => {
    const rt = runtimeWith(async () => 'ok');
    expect(() => installTimeoutPolicy(rt, { graceMs: -1 })).toThrow(
      'installTimeoutPolicy: expected `graceMs` to be a finite number >= 0, got -1',
    );
  });

  it('in a turn: a timed-out call converges and order holds', async () => {
    const rt = createToolRuntime({ sandbox: false, timeoutPolicy: false });
    rt.register(
      workTool({
        timeoutMs: 15,
        during: async (args, exec) => {
          if (args.id === 'stuck') await untilAborted(exec.signal);
        },
      }),
    );
    installTimeoutPolicy(rt, { graceMs: 5000 });
    const turn = await rt.executeTurn([
      work({ id: 'stuck', mode: 'safe', contexts: 1 }),
      work({ id: 'quick', mode: 'safe', contexts: 1 }),
      work({ id: 'after', mode: 'exclusive' }),
    ]);
    expect(turn.results.map((r) => `${r.callId}:${r.error?.code ?? 'ok'}`)).toEqual([
      'stuck:TOOL_TIMEOUT',
      'quick:ok',
      'after:ok',
    ]);
    // The timed-out body deferred its context after the abort: a failure still carries it, in order.
    expect(turn.additionalContexts.map((c) => (c.content[0] as { text: string }).text)).toEqual([
      'body:stuck:0',
      'body:quick:0',
    ]);
  });
});
