// The verification checklist items that concern one execution, one test each,
// named after the item. The other suites pin each rule in detail.
import { describe, expect, it } from '@jest/globals';
import { ask, block, createToolRuntime, type ContextMessage } from '../../src/index.ts';
import { call, codeOf, deferred, echoRuntime, echoTool, text } from './helpers.ts';

const ctx = (t: string): ContextMessage => ({ role: 'user', content: text(t) });

describe('8.13 checklist (one execution)', () => {
  it('invalid input never runs the body', async () => {
    const { rt, calls } = echoRuntime();
    const inputs: unknown[] = [{}, { q: 1 }, null, 'q', [], { q: new Date(0) }, { q: 'x', extra: [undefined] }];
    for (const args of inputs) expect(codeOf(await rt.execute(call('echo', args)))).toBe('INVALID_ARGS');
    expect(calls.count).toBe(0);
  });

  it('invalid output is a normalized error', async () => {
    const outputs: unknown[] = [
      { echoed: 1 },
      { echoed: 'x', extra: true },
      undefined,
      new Date(0),
      { echoed: 'x', f: () => 1 },
    ];
    for (const output of outputs) {
      const { rt } = echoRuntime({ body: () => output as never });
      const result = await rt.execute(call());
      expect(result).toMatchObject({ isError: true, error: { code: 'INVALID_TOOL_OUTPUT' } });
      expect(result.content[0]?.type).toBe('text');
      expect('value' in result).toBe(false);
    }
  });

  it('ask without approval is refused', async () => {
    const { rt, calls } = echoRuntime();
    rt.on('tools/pre-execute', () => ask());
    const result = await rt.execute(call());
    expect(result.error).toMatchObject({ code: 'APPROVAL_UNAVAILABLE', info: { reason: 'no-approval-service' } });
    expect(calls.count).toBe(0);
  });

  it('a wrapper cannot hide caller cancellation', async () => {
    const caller = new AbortController();
    const started = deferred<void>();
    const { rt } = echoRuntime({
      body: async (args, exec) => {
        started.resolve();
        await new Promise((resolve) => exec.signal.addEventListener('abort', resolve));
        return { echoed: args.q };
      },
    });
    rt.on('tools/execute', (exec, next) => {
      exec.signal = new AbortController().signal; // a deadline that never fires
      return next();
    });
    const pending = rt.execute({ ...call(), signal: caller.signal });
    await started.promise;
    caller.abort();
    expect(codeOf(await pending)).toBe('ABORTED');
  });

  it('block drops body-only contexts', async () => {
    const { rt } = echoRuntime({
      body: (args, exec) => {
        exec.deferContext(ctx('from the body'));
        return { echoed: args.q };
      },
    });
    rt.on('tools/post-execute', () => block('blocked', { additionalContexts: [ctx('from the decision')] }));
    const result = await rt.execute(call());
    expect(result.error?.code).toBe('BLOCKED');
    expect(result.additionalContexts).toEqual([ctx('from the decision')]);
  });

  it('conclude only on final success', async () => {
    let fail = false;
    const { rt } = echoRuntime({
      body: (args, exec) => {
        exec.concludeTurn();
        if (fail) throw new Error('late failure');
        return { echoed: args.q };
      },
    });
    expect((await rt.execute(call())).concludesTurn).toBe(true);
    fail = true;
    expect('concludesTurn' in (await rt.execute(call()))).toBe(false);
  });

  it('scope override and restriction apply', async () => {
    const rt = createToolRuntime();
    rt.createAgent('a');
    rt.register(echoTool().tool);
    rt.register(echoTool({ body: () => ({ echoed: 'agent override' }) }).tool, { agent: 'a' });
    rt.register(echoTool({ name: 'secret' }).tool);
    expect((await rt.execute({ ...call(), agent: 'a' })).value).toEqual({ echoed: 'agent override' });
    expect((await rt.execute(call())).value).toEqual({ echoed: 'hi' });
    rt.restrict('a', { deny: ['secret'] });
    expect(rt.schemas({ agent: 'a' }).map((s) => s.name)).toEqual(['echo']);
    expect(codeOf(await rt.execute({ ...call('secret'), agent: 'a' }))).toBe('UNKNOWN_TOOL');
    expect(codeOf(await rt.execute(call('secret')))).toBe('ok');
  });

  it('disposal removes contributions', async () => {
    const rt = createToolRuntime();
    rt.createAgent('a');
    const disposers = [
      rt.register(echoTool().tool),
      rt.guard(() => ({ deny: 'guard' })),
      rt.on('tools/pre-execute', (_exec, next) => next()),
      rt.on(
        'tools/execute',
        () => ({ isError: true, error: { code: 'WRAPPED', message: 'wrapped' }, content: [] }) as never,
      ),
      rt.on('tools/post-execute', () => block('post')),
      rt.restrict('a', { deny: ['echo'] }),
    ];
    expect(codeOf(await rt.execute(call()))).toBe('BLOCKED'); // the guard's denial, then blocked by post
    for (const dispose of disposers) dispose();
    expect(rt.schemas()).toEqual([]);
    expect(rt.schemas({ agent: 'a' })).toEqual([]);
    expect(codeOf(await rt.execute(call()))).toBe('UNKNOWN_TOOL');
    rt.register(echoTool().tool);
    expect(codeOf(await rt.execute(call()))).toBe('ok');
    expect(codeOf(await rt.execute({ ...call(), agent: 'a' }))).toBe('ok');
  });
});
