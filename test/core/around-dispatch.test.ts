// tools/execute and the body: signal fusion, re-resolution at body start,
// bodyInvoked, normalized failures, aborts, output validation, and canonical results
// recognised only by their exact execution token.
import { describe, expect, it } from '@jest/globals';
import { getEventListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { createToolRuntime, defineTool, type ToolExecution, type ToolResult } from '../../src/index.ts';
import { call, codeOf, deferred, echoRuntime, echoTool, isDeepFrozen, text } from './helpers.ts';

describe('signal fusion: a wrapper may swap exec.signal but never hide the caller', () => {
  it('the body sees a fused signal that aborts when the caller aborts, despite a swapped signal', async () => {
    const caller = new AbortController();
    const started = deferred<void>();
    let bodySignal: AbortSignal | undefined;
    const { rt } = echoRuntime({
      body: async (args, exec) => {
        bodySignal = exec.signal;
        started.resolve();
        await new Promise((resolve) => exec.signal.addEventListener('abort', resolve));
        return { echoed: args.q };
      },
    });
    const quiet = new AbortController(); // never aborts
    rt.on('tools/execute', (exec, next) => {
      exec.signal = quiet.signal;
      return next();
    });
    const pending = rt.execute({ ...call(), signal: caller.signal });
    await started.promise;
    caller.abort(new Error('user pressed stop'));
    const result = await pending;
    expect(bodySignal?.aborted).toBe(true);
    expect(bodySignal?.reason).toEqual(new Error('user pressed stop'));
    expect(result.error).toEqual({ code: 'ABORTED', message: 'tool call aborted' });
    expect(result.content).toEqual(text('Error: tool call aborted'));
  });

  it("the wrapper's own signal (a deadline) also aborts the body", async () => {
    const deadline = new AbortController();
    const { rt } = echoRuntime({
      body: async (args, exec) => {
        deadline.abort(new Error('deadline'));
        expect(exec.signal.aborted).toBe(true);
        return { echoed: args.q };
      },
    });
    rt.on('tools/execute', (exec, next) => {
      exec.signal = deadline.signal;
      return next();
    });
    expect((await rt.execute(call())).error?.code).toBe('ABORTED');
  });

  it("after settle the wrapper's signal is restored and no relay listener is left behind", async () => {
    const caller = new AbortController();
    const wrapper = new AbortController();
    let during: AbortSignal | undefined;
    let after: AbortSignal | undefined;
    const { rt } = echoRuntime({
      body: (args, exec) => {
        during = exec.signal;
        return { echoed: args.q };
      },
    });
    rt.on('tools/execute', async (exec, next) => {
      exec.signal = wrapper.signal;
      const result = await next();
      after = exec.signal;
      return result;
    });
    expect((await rt.execute({ ...call(), signal: caller.signal })).isError).toBe(false);
    expect(during).not.toBe(wrapper.signal);
    expect(during).not.toBe(caller.signal);
    expect(after).toBe(wrapper.signal);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(wrapper.signal, 'abort')).toHaveLength(0);
  });

  it('a wrapper returning its own success after the caller aborted still yields ABORTED', async () => {
    const caller = new AbortController();
    const { rt } = echoRuntime({
      body: (args) => {
        caller.abort();
        return { echoed: args.q };
      },
    });
    rt.on('tools/execute', async (exec, next) => {
      exec.signal = new AbortController().signal;
      const real = await next();
      expect(real.error?.code).toBe('ABORTED');
      return {
        callId: exec.callId,
        name: exec.name,
        isError: false,
        value: { echoed: 'pretend' },
        content: text('fine'),
      };
    });
    const result = await rt.execute({ ...call(), signal: caller.signal });
    expect(result.error?.code).toBe('ABORTED');
  });

  it('a wrapper that skips the body and returns success after the caller aborted yields ABORTED_BEFORE_DISPATCH', async () => {
    const caller = new AbortController();
    const { rt, calls } = echoRuntime();
    rt.on('tools/execute', (exec) => {
      caller.abort();
      return { callId: exec.callId, name: exec.name, isError: false, value: { echoed: 'cached' }, content: [] };
    });
    const result = await rt.execute({ ...call(), signal: caller.signal });
    expect(result.error?.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(calls.count).toBe(0);
  });

  it.each([
    ['pre-execute', 'tools/pre-execute'],
    ['post-execute', 'tools/post-execute'],
  ] as const)('exec.signal cannot be swapped in %s', async (_label, hook) => {
    const { rt } = echoRuntime();
    rt.on(hook, ((exec: ToolExecution, ...rest: unknown[]) => {
      exec.signal = new AbortController().signal;
      return (rest[rest.length - 1] as () => unknown)();
    }) as never);
    const result = await rt.execute(call());
    expect(result.error?.code).toBe('PIPELINE_ERROR');
    expect(result.error?.message).toContain('only be swapped by a tools/execute wrapper');
  });

  it('exec.signal cannot be swapped by the body, and only to an AbortSignal by a wrapper', async () => {
    const { rt } = echoRuntime({
      body: (args, exec) => {
        exec.signal = new AbortController().signal;
        return { echoed: args.q };
      },
    });
    const result = await rt.execute(call());
    expect(result.error?.code).toBe('TOOL_ERROR');
    expect(result.error?.message).toContain('only be swapped by a tools/execute wrapper');
    const other = echoRuntime();
    other.rt.on('tools/execute', (exec, next) => {
      exec.signal = { aborted: false } as AbortSignal;
      return next();
    });
    expect((await other.rt.execute(call())).error?.message).toContain('must be an AbortSignal');
  });

  it('an already-aborted wrapper signal is ABORTED_BEFORE_DISPATCH and the body does not run', async () => {
    const { rt, calls } = echoRuntime();
    rt.on('tools/execute', (exec, next) => {
      exec.signal = AbortSignal.abort();
      return next();
    });
    expect((await rt.execute(call())).error?.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(calls.count).toBe(0);
  });
});

describe('the definition is re-resolved at body start', () => {
  it('a tool disposed during pre-execute is UNKNOWN_TOOL and its body never runs', async () => {
    const { rt, calls, dispose } = echoRuntime();
    rt.on('tools/pre-execute', (_exec, next) => {
      dispose();
      return next();
    });
    const result = await rt.execute(call());
    expect(result.error).toEqual({ code: 'UNKNOWN_TOOL', message: 'unknown tool "echo"' });
    expect(calls.count).toBe(0);
  });

  it('a tool hidden by a restriction during pre-execute is UNKNOWN_TOOL', async () => {
    const { rt, calls } = echoRuntime();
    rt.createAgent('a');
    rt.register(echoTool({ name: 'other' }).tool);
    rt.on('tools/pre-execute', (_exec, next) => {
      rt.restrict('a', { deny: ['echo'] });
      return next();
    });
    expect(codeOf(await rt.execute({ ...call(), agent: 'a' }))).toBe('UNKNOWN_TOOL');
    expect(calls.count).toBe(0);
  });

  it('a tool replaced during the wrapper runs the replacement body', async () => {
    const { rt, dispose } = echoRuntime();
    rt.on('tools/execute', (_exec, next) => {
      dispose();
      rt.register(echoTool({ body: () => ({ echoed: 'replacement' }) }).tool);
      return next();
    });
    expect((await rt.execute(call())).value).toEqual({ echoed: 'replacement' });
  });
});

describe('bodyInvoked', () => {
  it('is false through policy and until the body starts, true from then on', async () => {
    const seen: Array<[string, boolean]> = [];
    const { rt } = echoRuntime({
      body: (args, exec) => {
        seen.push(['body', exec.bodyInvoked]);
        return { echoed: args.q };
      },
    });
    rt.on('tools/pre-execute', (exec, next) => {
      seen.push(['pre', exec.bodyInvoked]);
      return next();
    });
    rt.guard((exec) => {
      seen.push(['guard', exec.bodyInvoked]);
      return undefined;
    });
    rt.on('tools/execute', async (exec, next) => {
      seen.push(['wrapper before', exec.bodyInvoked]);
      const r = await next();
      seen.push(['wrapper after', exec.bodyInvoked]);
      return r;
    });
    rt.on('tools/post-execute', (exec, _o, next) => {
      seen.push(['post', exec.bodyInvoked]);
      return next();
    });
    await rt.execute(call());
    expect(seen).toEqual([
      ['pre', false],
      ['guard', false],
      ['wrapper before', false],
      ['body', true],
      ['wrapper after', true],
      ['post', true],
    ]);
  });

  it.each([
    ['the arguments fail the schema', { q: 1 }, 'INVALID_ARGS'],
    ['the tool is unknown at body start', null, 'UNKNOWN_TOOL'],
  ])('stays false when %s', async (_label, args, code) => {
    const { rt, calls, dispose } = echoRuntime();
    let invoked: boolean | undefined;
    rt.on('tools/post-execute', (exec, _o, next) => {
      invoked = exec.bodyInvoked;
      return next();
    });
    if (args === null) dispose();
    expect(codeOf(await rt.execute(call('echo', args ?? { q: 'x' })))).toBe(code);
    expect(invoked).toBe(false);
    expect(calls.count).toBe(0);
  });
});

describe('body failures are normalized', () => {
  const hostile = new Proxy(
    {},
    {
      get() {
        throw new Error('trap');
      },
    },
  );
  const table: ReadonlyArray<readonly [string, unknown, string, string]> = [
    ['an Error', new Error('disk full'), 'TOOL_ERROR', 'disk full'],
    ['a string', 'plain string', 'TOOL_ERROR', 'plain string'],
    [
      'an error with its own string code',
      Object.assign(new Error('slow down'), { code: 'RATE_LIMITED' }),
      'RATE_LIMITED',
      'slow down',
    ],
    ['an object with a code', { code: 'NOT_FOUND', message: 'no such row' }, 'NOT_FOUND', 'no such row'],
    ['an error with a numeric code', Object.assign(new Error('errno'), { code: 5 }), 'TOOL_ERROR', 'errno'],
    ['a hostile Proxy', hostile, 'TOOL_ERROR', 'unreadable thrown value'],
    ['undefined', undefined, 'TOOL_ERROR', 'undefined'],
  ];

  it.each(table)('throwing %s', async (_label, thrown, code, message) => {
    const { rt } = echoRuntime({
      body: () => {
        throw thrown;
      },
    });
    const result = await rt.execute(call());
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe(code);
    expect(result.error?.message).toBe(message);
    expect(result.content).toEqual(text(`Error: ${message}`));
    expect('value' in result).toBe(false);
  });

  it('a body that throws after the caller aborted is ABORTED', async () => {
    const caller = new AbortController();
    const { rt } = echoRuntime({
      body: (_args, exec) => {
        caller.abort();
        exec.signal.throwIfAborted();
        return { echoed: 'unreachable' };
      },
    });
    expect((await rt.execute({ ...call(), signal: caller.signal })).error).toEqual({
      code: 'ABORTED',
      message: 'tool call aborted',
    });
  });

  it("a body cancelled through Node's AbortError (code ABORT_ERR) is ABORTED, not ABORT_ERR", async () => {
    const caller = new AbortController();
    const { rt } = echoRuntime({
      body: async (args, exec) => {
        const waiting = sleep(60_000, undefined, { signal: exec.signal });
        caller.abort();
        await waiting;
        return { echoed: args.q };
      },
    });
    expect((await rt.execute({ ...call(), signal: caller.signal })).error?.code).toBe('ABORTED');
  });

  it('a structured error thrown while aborted keeps its own code and info', async () => {
    const caller = new AbortController();
    const { rt } = echoRuntime({
      body: () => {
        caller.abort();
        throw Object.assign(new Error('partial write'), { code: 'PARTIAL_WRITE', info: { written: 3 } });
      },
    });
    expect((await rt.execute({ ...call(), signal: caller.signal })).error).toEqual({
      code: 'PARTIAL_WRITE',
      message: 'partial write',
      info: { written: 3 },
    });
  });

  it('a body that succeeds after the caller aborted is ABORTED (the value is dropped)', async () => {
    const caller = new AbortController();
    const { rt, calls } = echoRuntime({
      body: (args) => {
        caller.abort();
        return { echoed: args.q };
      },
    });
    const result = await rt.execute({ ...call(), signal: caller.signal });
    expect(result.error?.code).toBe('ABORTED');
    expect(result.content).toEqual(text('Error: tool call aborted'));
    expect('value' in result).toBe(false);
    expect(calls.count).toBe(1);
  });
});

describe('success values: snapshotted, validated, frozen, rendered', () => {
  const jsonTool = (value: unknown) =>
    defineTool({
      name: 'v',
      description: 'd',
      parameters: {},
      output: { schema: { type: 'json' }, render: (_a, v) => text(JSON.stringify(v)) },
      execute: () => value as never,
    });

  it.each([
    ['an object', { a: [1, { b: null }] }],
    ['an array', [1, 'two']],
    ['a string', 'text'],
    ['a number', 4.5],
    ['a boolean', false],
    ['null', null],
  ])('%s is a valid value, frozen, and rendered', async (_label, value) => {
    const rt = createToolRuntime();
    rt.register(jsonTool(value));
    const result = await rt.execute(call('v', {}));
    expect(result.isError).toBe(false);
    expect(result.value).toEqual(value);
    expect(isDeepFrozen(result.value)).toBe(true);
    expect(result.content).toEqual(text(JSON.stringify(value)));
  });

  class Row {
    id = 1;
  }
  it.each([
    ['a Date', new Date(0), 'value: a Date'],
    ['undefined', undefined, 'undefined is not JSON'],
    ['a class instance', new Row(), 'value: only plain objects'],
    ['a function', () => 1, 'a function is not JSON'],
    ['NaN deep inside', { a: [Number.NaN] }, 'value.a[0]'],
  ])('%s is INVALID_TOOL_OUTPUT', async (_label, value, mention) => {
    const rt = createToolRuntime();
    rt.register(jsonTool(value));
    const result = await rt.execute(call('v', {}));
    expect(result.error?.code).toBe('INVALID_TOOL_OUTPUT');
    expect(result.error?.message).toContain(mention);
  });

  it('a value that fails output.schema is INVALID_TOOL_OUTPUT naming the path', async () => {
    const { rt } = echoRuntime({ body: () => ({ echoed: 5 }) as never });
    const result = await rt.execute(call());
    expect(result.error?.code).toBe('INVALID_TOOL_OUTPUT');
    expect(result.error?.message).toBe(
      'tool "echo" returned a value that does not match its output schema: /echoed must be string',
    );
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('bad template');
      },
      'bad template',
    ],
    ['returns no array', () => 'text' as never, 'must be an array'],
    ['returns a malformed block', () => [{ type: 'html', html: '<b>' }] as never, "must be { type: 'text', text }"],
  ])('a render that %s is INVALID_TOOL_OUTPUT', async (_label, render, mention) => {
    const rt = createToolRuntime();
    rt.register(
      defineTool({
        name: 'r',
        description: 'd',
        parameters: {},
        output: { schema: { type: 'json' }, render },
        execute: () => 1,
      }),
    );
    const result = await rt.execute(call('r', {}));
    expect(result.error?.code).toBe('INVALID_TOOL_OUTPUT');
    expect(result.error?.message).toContain(mention);
  });

  it('renders with the snapshotted arguments and value, and copies image blocks', async () => {
    const rt = createToolRuntime();
    rt.register(
      defineTool({
        name: 'img',
        description: 'd',
        parameters: { n: { type: 'integer', required: true } },
        output: {
          schema: { type: 'integer' },
          render: (args, v) => [
            { type: 'text', text: `${args.n}->${v}` },
            { type: 'image', data: 'AAAA', mimeType: 'image/png', extra: 'dropped' } as never,
          ],
        },
        execute: (args) => args.n * 2,
      }),
    );
    const result = await rt.execute(call('img', { n: 2 }));
    expect(result.content).toEqual([
      { type: 'text', text: '2->4' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    ]);
  });
});

describe('a wrapper-authored result is re-normalized; canonical results are known by exact token', () => {
  /** A tool whose rendering shows both the call's argument and the value. */
  const showing = () => ({
    tool: defineTool({
      name: 'echo',
      description: 'd',
      parameters: { q: { type: 'string', required: true } },
      output: {
        schema: {
          type: 'object',
          additionalProperties: false,
          properties: { echoed: { type: 'string', required: true } },
        },
        render: (args, value) => text(`q=${args.q} echoed=${value.echoed}`),
      },
      execute: (args) => ({ echoed: args.q }),
    }),
  });

  it("a wrapper's own success is re-validated (INVALID_TOOL_OUTPUT) and re-rendered", async () => {
    const rt = createToolRuntime();
    rt.register(showing().tool);
    let value: unknown = { echoed: 'wrapped' };
    rt.on(
      'tools/execute',
      (exec) =>
        ({
          callId: exec.callId,
          name: exec.name,
          isError: false,
          value,
          content: text('wrapper content'),
        }) as ToolResult,
    );
    const ok = await rt.execute(call('echo', { q: 'a' }));
    expect(ok.value).toEqual({ echoed: 'wrapped' });
    expect(ok.content).toEqual(text('q=a echoed=wrapped'));
    value = { echoed: 1 };
    expect((await rt.execute(call('echo', { q: 'a' }))).error?.code).toBe('INVALID_TOOL_OUTPUT');
    value = undefined;
    expect((await rt.execute(call('echo', { q: 'a' }))).error?.code).toBe('INVALID_TOOL_OUTPUT');
  });

  it("a wrapper's own failure keeps its code and message; a failure without a code is TOOL_ERROR", async () => {
    const rt = createToolRuntime();
    rt.register(showing().tool);
    let error: unknown = { code: 'TOOL_TIMEOUT', message: 'deadline of 5 ms passed', info: { ms: 5 } };
    rt.on('tools/execute', () => ({ isError: true, error, content: [] }) as unknown as ToolResult);
    expect((await rt.execute(call('echo', { q: 'a' }))).error).toEqual({
      code: 'TOOL_TIMEOUT',
      message: 'deadline of 5 ms passed',
      info: { ms: 5 },
    });
    error = undefined;
    expect((await rt.execute(call('echo', { q: 'a' }))).error).toEqual({ code: 'TOOL_ERROR', message: 'TOOL_ERROR' });
  });

  it('a canonical result borrowed from another execution is re-normalized for this one', async () => {
    const rt = createToolRuntime();
    rt.register(showing().tool);
    let stolen: ToolResult | undefined;
    rt.on('tools/execute', async (_exec, next) => {
      if (stolen === undefined) {
        stolen = await next();
        return stolen;
      }
      return stolen;
    });
    const first = await rt.execute(call('echo', { q: 'one' }, 'first'));
    expect(first.content).toEqual(text('q=one echoed=one'));
    const second = await rt.execute(call('echo', { q: 'two' }, 'second'));
    expect(second.callId).toBe('second');
    expect(second.value).toEqual({ echoed: 'one' });
    expect(second.content).toEqual(text('q=two echoed=one')); // re-rendered with this call's arguments
  });

  it('a borrowed result whose value does not fit this tool is INVALID_TOOL_OUTPUT', async () => {
    const rt = createToolRuntime();
    rt.register(showing().tool);
    rt.register(
      defineTool({
        name: 'num',
        description: 'd',
        parameters: {},
        output: { schema: { type: 'integer' }, render: () => text('n') },
        execute: () => 7,
      }),
    );
    let stolen: ToolResult | undefined;
    rt.on('tools/execute', async (exec, next) => {
      const own = await next();
      if (exec.name === 'num') stolen = own;
      return exec.name === 'echo' && stolen !== undefined ? stolen : own;
    });
    expect((await rt.execute(call('num', {}))).value).toBe(7);
    const result = await rt.execute(call('echo', { q: 'x' }));
    expect(result.error?.code).toBe('INVALID_TOOL_OUTPUT');
  });

  it('a final result (not the canonical dispatch result) handed back by a wrapper is re-normalized too', async () => {
    const rt = createToolRuntime();
    rt.register(showing().tool);
    const finals: ToolResult[] = [];
    rt.on('tools/result', (r) => {
      finals.push(r);
    });
    rt.on('tools/execute', async (_exec, next) => finals[0] ?? (await next()));
    await rt.execute(call('echo', { q: 'one' }, 'first'));
    const second = await rt.execute(call('echo', { q: 'two' }, 'second'));
    expect(second.content).toEqual(text('q=two echoed=one'));
  });

  it.each([
    ['undefined', undefined],
    ['a string', 'done'],
  ])('a wrapper returning %s is a PIPELINE_ERROR that skips post-execute', async (_label, garbage) => {
    const { rt } = echoRuntime();
    let postRan = false;
    rt.on('tools/execute', () => garbage as never);
    rt.on('tools/post-execute', (_e, _o, next) => {
      postRan = true;
      return next();
    });
    const result = await rt.execute(call());
    expect(result.error?.code).toBe('PIPELINE_ERROR');
    expect(result.error?.message).toContain('tools/execute failed');
    expect(postRan).toBe(false);
  });

  it('a throwing wrapper is a PIPELINE_ERROR that skips post-execute', async () => {
    const { rt } = echoRuntime();
    let postRan = false;
    rt.on('tools/execute', () => {
      throw new Error('wrapper bug');
    });
    rt.on('tools/post-execute', (_e, _o, next) => {
      postRan = true;
      return next();
    });
    expect((await rt.execute(call())).error?.message).toBe('tools/execute failed: wrapper bug');
    expect(postRan).toBe(false);
  });
});
