// The pre-execute, execute and post-execute waterfalls compose safely: each `next()`
// runs the rest of the chain (for tools/execute: the tool body) at most once and only
// while the chain runs. A second or late call fails the call with PIPELINE_ERROR naming
// the hook and the handler, and never runs the body again.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { allow, accept, type ToolResult } from '../../src/index.ts';
import { call, echoRuntime } from './helpers.ts';

let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});
// Lets any unobserved rejection surface before the test checks for it.
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('tools/execute: next() runs the body at most once', () => {
  it('a wrapper that awaits next() twice fails the call with an error naming the hook and the handler; the body ran once', async () => {
    const { rt, calls } = echoRuntime();
    rt.on('tools/execute', async function retryTwice(_exec, next) {
      await next();
      return next();
    });
    const result = await rt.execute(call());
    expect(calls.count).toBe(1);
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe('PIPELINE_ERROR');
    expect(result.error?.message).toBe(
      'tools/execute failed: handler "retryTwice" called next() more than once; next() runs the rest of the chain and the tool body, so call it once and reuse its result',
    );
  });

  it('swallowing the second call’s error does not hide it: the call still fails', async () => {
    const { rt, calls } = echoRuntime();
    rt.on('tools/execute', async (_exec, next) => {
      const first = await next();
      try {
        await next();
      } catch {
        // a careless retry loop
      }
      return first;
    });
    const result = await rt.execute(call());
    expect(calls.count).toBe(1);
    expect(result.error?.code).toBe('PIPELINE_ERROR');
    expect(result.error?.message).toMatch(
      /^tools\/execute failed: handler #\d+ \(anonymous: give it a function name to see it here\) called next\(\) more than once/,
    );
  });

  it('two calls without awaiting the first run the body once, and leave no unhandled rejection', async () => {
    const { rt, calls } = echoRuntime();
    rt.on('tools/execute', (_exec, next) => {
      void next();
      void next();
      return next();
    });
    const result = await rt.execute(call());
    await settle();
    expect(calls.count).toBe(1);
    expect(result.error?.code).toBe('PIPELINE_ERROR');
    expect(unhandled).toStrictEqual([]);
  });

  it('the handler that misbehaves is the one named; the others run once', async () => {
    const { rt, calls } = echoRuntime();
    const seen: string[] = [];
    rt.on('tools/execute', async function outer(_exec, next) {
      seen.push('outer');
      return next();
    });
    rt.on('tools/execute', async function inner(_exec, next) {
      seen.push('inner');
      await next();
      return next();
    });
    const result = await rt.execute(call());
    expect(seen).toStrictEqual(['outer', 'inner']);
    expect(calls.count).toBe(1);
    expect(result.error?.message).toMatch(/^tools\/execute failed: handler "inner" called next\(\) more than once/);
  });

  it('next() kept and called after the call finished is refused and never runs the body', async () => {
    const { rt, calls } = echoRuntime();
    let kept: (() => Promise<ToolResult>) | undefined;
    rt.on('tools/execute', async function keeper(_exec, next) {
      kept = next;
      return next();
    });
    const result = await rt.execute(call());
    expect(result.isError).toBe(false);
    await expect(kept!()).rejects.toThrow('handler "keeper" called next() after the chain finished');
    expect(calls.count).toBe(1);
  });

  it('a wrapper that calls next() once still works, and the next call starts a fresh chain', async () => {
    const { rt, calls } = echoRuntime();
    rt.on('tools/execute', async (_exec, next) => next());
    expect((await rt.execute(call('echo', { q: 'a' }, 'c1'))).value).toEqual({ echoed: 'a' });
    expect((await rt.execute(call('echo', { q: 'b' }, 'c2'))).value).toEqual({ echoed: 'b' });
    expect(calls.count).toBe(2);
  });
});

describe('pre-execute and post-execute waterfalls', () => {
  it('a pre-execute handler calling next() twice fails the call before the body runs; later handlers ran once', async () => {
    const { rt, calls } = echoRuntime();
    let inner = 0;
    rt.on('tools/pre-execute', async function twice(_exec, next) {
      await next();
      return next();
    });
    rt.on('tools/pre-execute', () => {
      inner += 1;
      return allow();
    });
    const result = await rt.execute(call());
    expect(inner).toBe(1);
    expect(calls.count).toBe(0);
    expect(result.error?.code).toBe('PIPELINE_ERROR');
    expect(result.error?.message).toMatch(/^tools\/pre-execute failed: handler "twice" called next\(\) more than once/);
  });

  it('a post-execute handler calling next() twice fails the call; later handlers ran once', async () => {
    const { rt, calls } = echoRuntime();
    let inner = 0;
    rt.on('tools/post-execute', async function twice(_exec, _outcome, next) {
      await next();
      return next();
    });
    rt.on('tools/post-execute', () => {
      inner += 1;
      return accept();
    });
    const result = await rt.execute(call());
    expect(inner).toBe(1);
    expect(calls.count).toBe(1);
    expect(result.error?.code).toBe('PIPELINE_ERROR');
    expect(result.error?.message).toMatch(
      /^tools\/post-execute failed: handler "twice" called next\(\) more than once/,
    );
  });
});
