// projectContent and tools/post-execute: accept with value or content (never
// both, never a value on failure), additional contexts, block, and throwing handlers.
import { describe, expect, it, jest } from '@jest/globals';
import {
  accept,
  block,
  createToolRuntime,
  defineTool,
  deny,
  type ContextMessage,
  type ToolResult,
} from '../../src/index.ts';
import { call, echoRuntime, isDeepFrozen, text } from './helpers.ts';

const ctx = (t: string): ContextMessage => ({ role: 'user', content: text(t) });

describe('projectContent', () => {
  it('installs content on a success before post-execute sees it; the value is untouched', async () => {
    const { rt } = echoRuntime({
      projectContent: (args, value, content) => [
        ...content,
        ...text(`projected ${String((args as { q: string }).q)}/${JSON.stringify(value)}`),
      ],
    });
    const seen: ToolResult[] = [];
    rt.on('tools/post-execute', (_e, outcome, next) => {
      seen.push(outcome);
      return next();
    });
    const result = await rt.execute(call());
    expect(seen[0]?.content).toEqual(text('echo:hi').concat(text('projected hi/{"echoed":"hi"}')));
    expect(result.content).toEqual(seen[0]?.content);
    expect(result.value).toEqual({ echoed: 'hi' });
  });

  it('is not applied to a failure', async () => {
    const projectContent = jest.fn(() => text('never'));
    const { rt } = echoRuntime({
      projectContent,
      body: () => {
        throw new Error('boom');
      },
    });
    expect((await rt.execute(call())).content).toEqual(text('Error: boom'));
    expect(projectContent).not.toHaveBeenCalled();
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('projector bug');
      },
      'projectContent failed: projector bug',
    ],
    ['returns malformed content', () => [{ type: 'nope' }] as never, 'projectContent[0] must be'],
  ])('a projector that %s is a PIPELINE_ERROR that skips post-execute', async (_label, projectContent, message) => {
    const { rt } = echoRuntime({ projectContent });
    const post = jest.fn((_e: unknown, _o: unknown, next: () => unknown) => next());
    rt.on('tools/post-execute', post as never);
    const result = await rt.execute(call());
    expect(result.error?.code).toBe('PIPELINE_ERROR');
    expect(result.error?.message).toContain(message);
    expect(post).not.toHaveBeenCalled();
  });
});

describe('post-execute accept', () => {
  it('accepts by default, and the outcome it sees is frozen', async () => {
    const { rt } = echoRuntime();
    let outcome: ToolResult | undefined;
    rt.on('tools/post-execute', (_e, o, next) => {
      outcome = o;
      return next();
    });
    const result = await rt.execute(call());
    expect(result.value).toEqual({ echoed: 'hi' });
    expect(isDeepFrozen(outcome)).toBe(true);
  });

  it('accept({ content }) replaces the content and leaves the canonical value alone', async () => {
    const { rt } = echoRuntime();
    rt.on('tools/post-execute', () => accept({ content: text('redacted') }));
    const result = await rt.execute(call());
    expect(result.content).toEqual(text('redacted'));
    expect(result.value).toEqual({ echoed: 'hi' });
  });

  it('accept({ content }) may also reword a failure', async () => {
    const { rt } = echoRuntime({
      body: () => {
        throw new Error('boom');
      },
    });
    rt.on('tools/post-execute', () => accept({ content: text('try again later') }));
    const result = await rt.execute(call());
    expect(result.error?.code).toBe('TOOL_ERROR');
    expect(result.content).toEqual(text('try again later'));
  });

  it('accept({ value }) is re-validated and re-rendered by the output contract', async () => {
    const { rt } = echoRuntime();
    rt.on('tools/post-execute', () => accept({ value: { echoed: 'replaced' } }));
    const result = await rt.execute(call());
    expect(result.value).toEqual({ echoed: 'replaced' });
    expect(result.content).toEqual(text('echo:replaced'));
    expect(isDeepFrozen(result.value)).toBe(true);
  });

  it('accept({ value }) that breaks the output schema is INVALID_TOOL_OUTPUT', async () => {
    const { rt } = echoRuntime();
    rt.on('tools/post-execute', () => accept({ value: { echoed: 1 } }));
    const result = await rt.execute(call());
    expect(result.error?.code).toBe('INVALID_TOOL_OUTPUT');
    expect('value' in result).toBe(false);
  });

  it('accept({ value }) is validated and rendered by the definition whose body ran, not the one registered at post time', async () => {
    const rt = createToolRuntime();
    const version = (n: number, schema: 'number' | 'string') =>
      defineTool({
        name: 'count',
        description: `v${n}`,
        parameters: {},
        output: { schema: { type: schema }, render: (_a, v) => text(`v${n}:${String(v)}`) },
        execute: () => (schema === 'number' ? 1 : 'one') as never,
      });
    const disposeV1 = rt.register(version(1, 'number'));
    rt.on('tools/post-execute', () => {
      // While the call is in post-execute, v1 is replaced by a v2 that outputs strings.
      disposeV1();
      rt.register(version(2, 'string'));
      return accept({ value: 5 });
    });
    const result = await rt.execute({ callId: 'c', name: 'count', arguments: {} });
    expect(result.error).toBeUndefined();
    expect(result.value).toBe(5);
    expect(result.content).toEqual(text('v1:5'));
  });

  it('accept({ value, content }) is a PIPELINE_ERROR', async () => {
    const { rt } = echoRuntime();
    rt.on('tools/post-execute', () => accept({ value: { echoed: 'x' }, content: text('x') }));
    const result = await rt.execute(call());
    expect(result.error?.code).toBe('PIPELINE_ERROR');
    expect(result.error?.message).toContain('value or content, not both');
  });

  it.each([
    [
      'a body failure',
      {
        body: () => {
          throw new Error('boom');
        },
      },
      undefined,
    ],
    ['a denial', {}, () => deny('no')],
  ] as const)('accept({ value }) on %s is refused (PIPELINE_ERROR)', async (_label, options, pre) => {
    const { rt } = echoRuntime(options);
    if (pre !== undefined) rt.on('tools/pre-execute', pre);
    rt.on('tools/post-execute', () => accept({ value: { echoed: 'rescued' } }));
    const result = await rt.execute(call());
    expect(result.error?.code).toBe('PIPELINE_ERROR');
    expect(result.error?.message).toContain('cannot give a failed call a value');
    expect('value' in result).toBe(false);
  });

  it('accept({ additionalContexts }) adds to the body contexts, in order', async () => {
    const { rt } = echoRuntime({
      body: (args, exec) => {
        exec.deferContext(ctx('from body'));
        return { echoed: args.q };
      },
    });
    rt.on('tools/pre-execute', (exec, next) => {
      exec.deferContext(ctx('from pre'));
      return next();
    });
    rt.on('tools/post-execute', () => accept({ additionalContexts: [ctx('from post')] }));
    const result = await rt.execute(call());
    expect(result.additionalContexts).toEqual([ctx('from pre'), ctx('from body'), ctx('from post')]);
  });

  it('post-execute also sees denials and may reword them', async () => {
    const { rt } = echoRuntime();
    rt.on('tools/pre-execute', () => deny('raw reason'));
    rt.on('tools/post-execute', (_e, outcome) => accept({ content: text(`policy: ${outcome.error?.message}`) }));
    const result = await rt.execute(call());
    expect(result.error?.code).toBe('DENIED');
    expect(result.content).toEqual(text('policy: raw reason'));
  });
});

describe('post-execute block', () => {
  it('turns the outcome into BLOCKED, keeps only the decision contexts, and does not roll back', async () => {
    const { rt, calls } = echoRuntime({
      body: (args, exec) => {
        exec.deferContext(ctx('body context'));
        exec.concludeTurn();
        return { echoed: args.q };
      },
    });
    rt.on('tools/post-execute', () =>
      block('output leaked a secret', { additionalContexts: [ctx('explain the block')] }),
    );
    const result = await rt.execute(call());
    expect(result).toEqual({
      callId: 'c1',
      name: 'echo',
      isError: true,
      content: text('Error: output leaked a secret'),
      error: { code: 'BLOCKED', message: 'output leaked a secret' },
      additionalContexts: [ctx('explain the block')],
    });
    expect(calls.count).toBe(1);
  });

  it('without decision contexts, a blocked result has none', async () => {
    const { rt } = echoRuntime({
      body: (args, exec) => {
        exec.deferContext(ctx('body context'));
        return { echoed: args.q };
      },
    });
    rt.on('tools/post-execute', () => block('no'));
    expect((await rt.execute(call())).additionalContexts).toBeUndefined();
  });

  it('an outer handler can override an inner block (it is a waterfall)', async () => {
    const { rt } = echoRuntime();
    rt.on('tools/post-execute', async (_e, _o, next) => {
      await next();
      return accept();
    });
    rt.on('tools/post-execute', () => block('inner'));
    expect((await rt.execute(call())).isError).toBe(false);
  });
});

describe('post-execute failures are normalized final errors', () => {
  it.each([
    [
      'throws',
      () => {
        throw new Error('post bug');
      },
      'tools/post-execute failed: post bug',
    ],
    [
      'rejects',
      async () => {
        throw new Error('async post bug');
      },
      'tools/post-execute failed: async post bug',
    ],
    ['returns garbage', () => ({ kind: 'maybe' }) as never, 'return accept(...) or block(feedback)'],
    [
      'returns malformed contexts',
      () => accept({ additionalContexts: [{ role: 'system', content: [] }] as never }),
      "must be { role: 'user'",
    ],
    [
      'returns malformed content',
      () => accept({ content: [{ type: 'text' }] as never }),
      'accept({ content })[0] must be',
    ],
  ])('a handler that %s', async (_label, handler, message) => {
    const { rt, calls } = echoRuntime();
    rt.on('tools/post-execute', handler as never);
    const result = await rt.execute(call());
    expect(result.error?.code).toBe('PIPELINE_ERROR');
    expect(result.error?.message).toContain(message);
    expect('value' in result).toBe(false);
    expect(calls.count).toBe(1);
  });
});
