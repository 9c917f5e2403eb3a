// finish: finalizeContent on every outcome, lossless frozen results,
// tools/result observers, deferred contexts, concludeTurn, presentationMeta.
import { describe, expect, it, jest } from '@jest/globals';
import {
  accept,
  block,
  cancel,
  deny,
  type ContentBlock,
  type ContextMessage,
  type ToolResult,
} from '../../src/index.ts';
import { barePipeline, call, echoRuntime, echoTool, isDeepFrozen, text } from './helpers.ts';

const ctx = (t: string): ContextMessage => ({ role: 'user', content: text(t) });
const tagged = (content: readonly ContentBlock[], result: ToolResult): ContentBlock[] => [
  ...content,
  ...text(`final:${result.isError ? result.error?.code : 'ok'}`),
];

describe('finalizeContent', () => {
  const outcomes: ReadonlyArray<
    readonly [string, (env: ReturnType<typeof echoRuntime>) => Promise<ToolResult>, string]
  > = [
    ['a success', (env) => env.rt.execute(call()), 'ok'],
    ['a denial', (env) => (env.rt.on('tools/pre-execute', () => deny('no')), env.rt.execute(call())), 'DENIED'],
    ['a cancellation', (env) => (env.rt.on('tools/pre-execute', () => cancel()), env.rt.execute(call())), 'CANCELLED'],
    ['a block', (env) => (env.rt.on('tools/post-execute', () => block('no')), env.rt.execute(call())), 'BLOCKED'],
    ['schema-invalid arguments', (env) => env.rt.execute(call('echo', { q: 1 })), 'INVALID_ARGS'],
    [
      'non-JSON arguments (final, no policy)',
      (env) => env.rt.execute(call('echo', { q: new Date(0) })),
      'INVALID_ARGS',
    ],
    [
      'an already-aborted call',
      (env) => env.rt.execute({ ...call(), signal: AbortSignal.abort() }),
      'ABORTED_BEFORE_DISPATCH',
    ],
    [
      'a pre-execute pipeline error',
      (env) => (
        env.rt.on('tools/pre-execute', () => {
          throw new Error('x');
        }),
        env.rt.execute(call())
      ),
      'PIPELINE_ERROR',
    ],
  ];

  it.each(outcomes)('is applied to %s', async (_label, run, tag) => {
    const env = echoRuntime({ finalizeContent: tagged });
    const result = await run(env);
    expect(result.content.at(-1)).toEqual({ type: 'text', text: `final:${tag}` });
  });

  it('changes content only: value, error and contexts stay', async () => {
    const { rt } = echoRuntime({
      body: (args, exec) => {
        exec.deferContext(ctx('kept'));
        return { echoed: args.q };
      },
      finalizeContent: () => text('only this'),
    });
    const result = await rt.execute(call());
    expect(result).toEqual({
      callId: 'c1',
      name: 'echo',
      isError: false,
      value: { echoed: 'hi' },
      content: text('only this'),
      additionalContexts: [ctx('kept')],
    });
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('finalizer bug');
      },
      'finalizeContent failed: finalizer bug',
    ],
    ['returns malformed content', () => 'text' as never, 'finalizeContent failed: finalizeContent must be an array'],
  ])(
    'a finalizer that %s still materializes an error (no value, no concludesTurn)',
    async (_label, finalizeContent, message) => {
      const { rt } = echoRuntime({
        finalizeContent,
        body: (args, exec) => {
          exec.concludeTurn();
          exec.deferContext(ctx('kept'));
          return { echoed: args.q };
        },
      });
      const observed: ToolResult[] = [];
      rt.on('tools/result', (r) => {
        observed.push(r);
      });
      const result = await rt.execute(call());
      expect(result.error).toMatchObject({ code: 'PIPELINE_ERROR', info: { stage: 'finalizeContent' } });
      expect(result.error?.message).toContain(message);
      expect('value' in result).toBe(false);
      expect('concludesTurn' in result).toBe(false);
      expect(result.additionalContexts).toEqual([ctx('kept')]);
      expect(observed).toEqual([result]);
      expect(isDeepFrozen(result)).toBe(true);
    },
  );
});

describe('results are frozen, plain JSON, and the same object for caller and observers', () => {
  it('a success with contexts, conclusion and meta is frozen all the way down and JSON-serializable', async () => {
    const { rt } = echoRuntime({
      body: (args, exec) => {
        exec.deferContext(ctx('note'));
        exec.concludeTurn();
        return { echoed: args.q };
      },
      presentationMeta: (args) => ({ ui: { badge: args.q } }),
    });
    rt.on('tools/post-execute', () => accept({ additionalContexts: [ctx('post note')] }));
    const result = await rt.execute(call());
    expect(result).toEqual({
      callId: 'c1',
      name: 'echo',
      isError: false,
      value: { echoed: 'hi' },
      content: text('echo:hi'),
      additionalContexts: [ctx('note'), ctx('post note')],
      concludesTurn: true,
      presentationMeta: { ui: { badge: 'hi' } },
    });
    expect(isDeepFrozen(result)).toBe(true);
    expect(() => (result.additionalContexts as ContextMessage[]).push(ctx('injected'))).toThrow(TypeError);
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });

  it('a failure is frozen all the way down, with error info', async () => {
    const { rt } = echoRuntime();
    rt.on('tools/pre-execute', (exec) => {
      exec.deferContext(ctx('why'));
      return deny('no', { rule: { id: 7 } });
    });
    const result = await rt.execute(call());
    expect(isDeepFrozen(result)).toBe(true);
    expect(result.error).toEqual({ code: 'DENIED', message: 'no', info: { rule: { id: 7 } } });
  });

  it('observers run one by one, in registration order, with the very object the caller gets', async () => {
    const { rt } = echoRuntime();
    const order: string[] = [];
    const received: ToolResult[] = [];
    rt.on('tools/result', async (r) => {
      received.push(r);
      await new Promise((resolve) => setImmediate(resolve));
      order.push('slow first');
    });
    rt.on('tools/result', (r) => {
      received.push(r);
      order.push('second');
    });
    const result = await rt.execute(call());
    expect(order).toEqual(['slow first', 'second']);
    expect(received[0]).toBe(result);
    expect(received[1]).toBe(result);
  });

  it('an observer that throws or rejects changes nothing and does not stop the others', async () => {
    const plain = await echoRuntime().rt.execute(call());
    const { rt } = echoRuntime();
    rt.on('tools/result', () => {
      throw new Error('observer bug');
    });
    rt.on('tools/result', async () => {
      throw new Error('async observer bug');
    });
    const last = jest.fn(() => undefined);
    rt.on('tools/result', last);
    const result = await rt.execute(call());
    expect(result).toEqual(plain);
    expect(last).toHaveBeenCalledTimes(1);
  });

  it('an observer cannot mutate the result', async () => {
    const { rt } = echoRuntime();
    rt.on('tools/result', (r) => {
      (r as { isError: boolean }).isError = true;
    });
    const result = await rt.execute(call());
    expect(result.isError).toBe(false);
  });
});

describe('deferContext', () => {
  it('attaches user messages from hooks and the body to this execution only', async () => {
    const { rt } = echoRuntime({
      body: (args, exec) => {
        exec.deferContext(ctx(`for ${args.q}`));
        return { echoed: args.q };
      },
    });
    const [a, b] = await Promise.all([
      rt.execute(call('echo', { q: 'a' }, 'ca')),
      rt.execute(call('echo', { q: 'b' }, 'cb')),
    ]);
    expect(a?.additionalContexts).toEqual([ctx('for a')]);
    expect(b?.additionalContexts).toEqual([ctx('for b')]);
    expect((await rt.execute(call('echo', { q: 'c' }))).additionalContexts).toEqual([ctx('for c')]);
  });

  it('copies the message, so later edits by the body do not leak in', async () => {
    const message = { role: 'user' as const, content: [{ type: 'text' as const, text: 'original' }] };
    const { rt } = echoRuntime({
      body: (args, exec) => {
        exec.deferContext(message);
        message.content[0]!.text = 'edited';
        return { echoed: args.q };
      },
    });
    expect((await rt.execute(call())).additionalContexts).toEqual([ctx('original')]);
  });

  it.each([
    ['a non-user role', { role: 'system', content: text('x') }],
    ['content that is not blocks', { role: 'user', content: 'x' }],
  ])('refuses %s (the body fails as TOOL_ERROR)', async (_label, message) => {
    const { rt } = echoRuntime({
      body: (args, exec) => {
        exec.deferContext(message as never);
        return { echoed: args.q };
      },
    });
    const result = await rt.execute(call());
    expect(result.error?.code).toBe('TOOL_ERROR');
    expect(result.error?.message).toContain('deferContext(message)');
  });

  it('body contexts survive a body failure (only block drops them)', async () => {
    const { rt } = echoRuntime({
      body: (_args, exec) => {
        exec.deferContext(ctx('before failing'));
        throw new Error('boom');
      },
    });
    expect((await rt.execute(call())).additionalContexts).toEqual([ctx('before failing')]);
  });
});

describe('concludeTurn takes effect only on a final success', () => {
  const concluding = (options: Parameters<typeof echoRuntime>[0] = {}) =>
    echoRuntime({
      ...options,
      body: async (args, exec) => {
        exec.concludeTurn();
        return options.body === undefined ? { echoed: args.q } : options.body(args, exec);
      },
    });

  it('a success that concluded says so', async () => {
    expect((await concluding().rt.execute(call())).concludesTurn).toBe(true);
  });

  it('a success that did not conclude has no flag', async () => {
    expect('concludesTurn' in (await echoRuntime().rt.execute(call()))).toBe(false);
  });

  it.each([
    [
      'the body then throws',
      {
        body: () => {
          throw new Error('x');
        },
      },
      undefined,
    ],
    ['the value is invalid', { body: () => ({ wrong: true }) as never }, undefined],
    ['post-execute blocks', {}, () => block('no')],
    ['post-execute replaces the value with an invalid one', {}, () => accept({ value: { echoed: 1 } })],
    [
      'post-execute throws',
      {},
      () => {
        throw new Error('x');
      },
    ],
  ] as const)('not when %s', async (_label, options, post) => {
    const { rt } = concluding(options);
    if (post !== undefined) rt.on('tools/post-execute', post as never);
    const result = await rt.execute(call());
    expect(result.isError).toBe(true);
    expect('concludesTurn' in result).toBe(false);
  });

  it('not when a pre-execute hook concluded and then denied', async () => {
    const { rt } = echoRuntime();
    rt.on('tools/pre-execute', (exec) => {
      exec.concludeTurn();
      return deny('no');
    });
    expect('concludesTurn' in (await rt.execute(call()))).toBe(false);
  });

  it('a post-execute value replacement on a concluded success keeps the conclusion', async () => {
    const { rt } = concluding();
    rt.on('tools/post-execute', () => accept({ value: { echoed: 'new' } }));
    expect((await rt.execute(call())).concludesTurn).toBe(true);
  });
});

describe('presentationMeta is for top-level direct calls only', () => {
  const meta = (args: { q: string }, value: unknown) => ({ shown: args.q, value: value as never });

  it('a top-level call gets it', async () => {
    const { rt } = echoRuntime({ presentationMeta: meta });
    expect((await rt.execute(call())).presentationMeta).toEqual({ shown: 'hi', value: { echoed: 'hi' } });
  });

  it('a nested call (with a parent token) does not, and the presenter is not even called', async () => {
    const presenter = jest.fn(meta);
    const { registry, execute } = barePipeline();
    registry.register(echoTool({ presentationMeta: presenter }).tool);
    const result = await execute({ ...call(), parent: Symbol('outer'), rootCallId: 'outer' });
    expect(result.isError).toBe(false);
    expect('presentationMeta' in result).toBe(false);
    expect(presenter).not.toHaveBeenCalled();
  });

  it('a failure has none', async () => {
    const { rt } = echoRuntime({
      presentationMeta: meta,
      body: () => {
        throw new Error('x');
      },
    });
    expect('presentationMeta' in (await rt.execute(call()))).toBe(false);
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('ui bug');
      },
    ],
    ['returns non-JSON', () => new Date(0) as never],
  ])('a presenter that %s never fails the call', async (_label, presentationMeta) => {
    const { rt } = echoRuntime({ presentationMeta });
    const result = await rt.execute(call());
    expect(result.isError).toBe(false);
    expect('presentationMeta' in result).toBe(false);
  });

  it('is computed for the replaced value after accept({ value })', async () => {
    const { rt } = echoRuntime({ presentationMeta: meta });
    rt.on('tools/post-execute', () => accept({ value: { echoed: 'new' } }));
    expect((await rt.execute(call())).presentationMeta).toEqual({ shown: 'hi', value: { echoed: 'new' } });
  });
});
