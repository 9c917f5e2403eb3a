// createExecution and the entry checks: lossless frozen arguments, identity
// and token, read-only fields, callbacks captured before the arguments are read,
// final results that skip policy.
import { describe, expect, it, jest } from '@jest/globals';
import { ask, createToolRuntime, type ToolExecution, type ToolResult } from '../../src/index.ts';
import { barePipeline, call, codeOf, echoRuntime, echoTool, text } from './helpers.ts';

class Point {
  x = 1;
}

/** Watches every stage of a runtime's pipeline. */
function watched(options: Parameters<typeof echoRuntime>[0] = {}) {
  const env = echoRuntime(options);
  const stages: string[] = [];
  env.rt.on('tools/pre-execute', (_e, next) => {
    stages.push('pre');
    return next();
  });
  env.rt.on('tools/execute', (_e, next) => {
    stages.push('execute');
    return next();
  });
  env.rt.on('tools/post-execute', (_e, _o, next) => {
    stages.push('post');
    return next();
  });
  const results: ToolResult[] = [];
  env.rt.on('tools/result', (r) => {
    stages.push('result');
    results.push(r);
  });
  return { ...env, stages, results };
}

describe('arguments are snapshotted losslessly or the call is a final INVALID_ARGS', () => {
  const accessor = Object.defineProperty({ q: 'x' }, 'g', { get: () => 1, enumerable: true });
  const cyclic: Record<string, unknown> = { q: 'x' };
  cyclic.self = cyclic;
  const table: ReadonlyArray<readonly [string, unknown, string]> = [
    ['a Date', { q: 'x', when: new Date(0) }, 'arguments.when'],
    ['undefined in an array', { q: 'x', list: [1, undefined] }, 'arguments.list[1]'],
    ['a class instance', { q: 'x', p: new Point() }, 'arguments.p'],
    ['a BigInt', { q: 'x', n: 1n }, 'arguments.n'],
    ['a cycle', cyclic, 'arguments.self'],
    ['NaN', { q: 'x', n: Number.NaN }, 'arguments.n'],
    ['Infinity', { q: 'x', n: Number.POSITIVE_INFINITY }, 'arguments.n'],
    ['a function', { q: 'x', f: () => 1 }, 'arguments.f'],
    ['an accessor', accessor, 'arguments.g'],
    ['a top-level class instance', new Point(), 'arguments'],
  ];

  it.each(table)(
    '%s: INVALID_ARGS naming the path, without pre-execute, body or post-execute',
    async (_label, args, path) => {
      const env = watched();
      const result = await env.rt.execute(call('echo', args));
      expect(result.error?.code).toBe('INVALID_ARGS');
      expect(result.error?.message).toContain(path);
      expect(result.content[0]).toEqual({ type: 'text', text: `Error: ${result.error?.message}` });
      expect(env.calls.count).toBe(0);
      expect(env.stages).toEqual(['result']);
      expect(env.results[0]).toBe(result);
    },
  );

  it('gives the body and hooks one deep-frozen copy that later caller mutation cannot reach', async () => {
    const seen: unknown[] = [];
    const input = { q: 'x', nested: { list: [1, 2] } };
    const { rt } = echoRuntime({
      body: async (args) => {
        input.nested.list.push(3);
        seen.push(args);
        return { echoed: JSON.stringify(args) };
      },
    });
    rt.on('tools/pre-execute', (exec, next) => {
      seen.push(exec.arguments);
      expect(() => {
        (exec.arguments as { q: string }).q = 'rewritten';
      }).toThrow(TypeError);
      return next();
    });
    const result = await rt.execute(call('echo', input));
    expect(result.value).toEqual({ echoed: '{"q":"x","nested":{"list":[1,2]}}' });
    expect(seen[0]).toBe(seen[1]);
    expect(seen[0]).not.toBe(input);
    expect(Object.isFrozen((seen[0] as typeof input).nested.list)).toBe(true);
  });
});

describe('identity and the opaque token', () => {
  it('captures callId, name, agent; rootCallId defaults to callId; the token is a fresh Symbol', async () => {
    const { rt } = echoRuntime();
    rt.createAgent('a');
    const execs: ToolExecution[] = [];
    rt.on('tools/pre-execute', (exec, next) => {
      execs.push(exec);
      return next();
    });
    await rt.execute({ ...call('echo', { q: 'x' }, 'first'), agent: 'a' });
    await rt.execute(call('echo', { q: 'x' }, 'second'));
    const [a, b] = execs as [ToolExecution, ToolExecution];
    expect([a.callId, a.name, a.agent, a.rootCallId, a.parent]).toEqual(['first', 'echo', 'a', 'first', undefined]);
    expect([b.callId, b.agent, b.rootCallId]).toEqual(['second', undefined, 'second']);
    expect(typeof a.token).toBe('symbol');
    expect(a.token).not.toBe(b.token);
  });

  it('a nested call carries only the parent token and the root call id', async () => {
    const { registry, execute } = barePipeline();
    let seen: ToolExecution | undefined;
    registry.register(
      echoTool({
        body: (args, exec) => {
          seen = exec;
          return { echoed: args.q };
        },
      }).tool,
    );
    const parent = Symbol('outer');
    await execute({ callId: 'outer:ptc:1', name: 'echo', arguments: { q: 'x' }, parent, rootCallId: 'outer' });
    expect(seen?.parent).toBe(parent);
    expect(seen?.rootCallId).toBe('outer');
    expect(seen?.token).not.toBe(parent);
  });

  it.each(['callId', 'name', 'agent', 'parent', 'rootCallId', 'token', 'arguments', 'callerSignal'] as const)(
    'exec.%s cannot be reassigned by a hook',
    async (field) => {
      const { rt, calls } = echoRuntime();
      rt.register(echoTool({ name: 'other' }).tool);
      rt.on('tools/pre-execute', (exec, next) => {
        (exec as unknown as Record<string, unknown>)[field] = field === 'name' ? 'other' : 'changed';
        return next();
      });
      const result = await rt.execute(call());
      expect(result.error?.code).toBe('PIPELINE_ERROR');
      expect(result.name).toBe('echo');
      expect(calls.count).toBe(0);
    },
  );

  it('hooks, guards and the body get the same exec view, without the pipeline-only controls', async () => {
    const views: ToolExecution[] = [];
    const { rt } = echoRuntime({
      body: (args, exec) => {
        views.push(exec);
        return { echoed: args.q };
      },
    });
    const keep = (exec: ToolExecution): void => {
      views.push(exec);
    };
    rt.on('tools/pre-execute', (exec, next) => (keep(exec), next()));
    rt.guard((exec) => (keep(exec), undefined));
    rt.on('tools/execute', (exec, next) => (keep(exec), next()));
    rt.on('tools/post-execute', (exec, _o, next) => (keep(exec), next()));
    await rt.execute(call());
    expect(views).toHaveLength(5);
    expect(new Set(views).size).toBe(1);
    const view = views[0] as unknown as Record<string, unknown>;
    for (const control of [
      'enterPhase',
      'setBodySignal',
      'markBodyInvoked',
      'finish',
      'phase',
      'concluded',
      'deferredContexts',
      'setCallTool',
      'useDefinition',
      'definition',
      'depth',
    ]) {
      expect(view[control]).toBeUndefined();
    }
    expect(Object.keys(view).sort()).toEqual(
      [
        'agent',
        'arguments',
        'bodyInvoked',
        'callId',
        'callTool',
        'caller',
        'callerSignal',
        'concludeTurn',
        'deferContext',
        'fencingToken',
        'idempotencyKey',
        'name',
        'parent',
        'parentCallId',
        'rootCallId',
        'session',
        'signal',
        'token',
      ].sort(),
    );
  });

  it('the exec view has read-only own fields, own signal accessors, and functions that work destructured', async () => {
    let seen: ToolExecution | undefined;
    const { rt } = echoRuntime({
      body: (args, exec) => {
        seen = exec;
        const { deferContext, concludeTurn } = exec;
        deferContext({ role: 'user', content: text('deferred') });
        concludeTurn();
        return { echoed: args.q };
      },
    });
    const result = await rt.execute(call());
    expect(result.additionalContexts).toEqual([{ role: 'user', content: text('deferred') }]);
    expect(result.concludesTurn).toBe(true);
    const view = seen!;
    expect(Object.getOwnPropertyDescriptor(view, 'callId')).toEqual({
      value: view.callId,
      writable: false,
      enumerable: true,
      configurable: false,
    });
    const signal = Object.getOwnPropertyDescriptor(view, 'signal');
    expect(signal).toMatchObject({ enumerable: true, configurable: false });
    expect(typeof signal?.get).toBe('function');
    expect(typeof signal?.set).toBe('function');
    expect(Object.getOwnPropertyDescriptor(view, 'bodyInvoked')).toMatchObject({ enumerable: true, set: undefined });
    expect(Object.getOwnPropertyDescriptor(view, 'fencingToken')).toMatchObject({ enumerable: true, set: undefined });
    expect(view.fencingToken).toBeUndefined(); // no fenced lock or claim (the memory store has none)
    expect(view.bodyInvoked).toBe(true);
    expect(() => {
      (view as { callId: string }).callId = 'renamed';
    }).toThrow(TypeError);
    // Outside a tools/execute wrapper the signal cannot be swapped.
    expect(() => {
      view.signal = new AbortController().signal;
    }).toThrow(/only be swapped by a tools\/execute wrapper/);
  });

  it('exec is frozen once the result is final, and late deferContext/concludeTurn throw', async () => {
    let kept: ToolExecution | undefined;
    const { rt } = echoRuntime({
      body: (args, exec) => {
        kept = exec;
        return { echoed: args.q };
      },
    });
    await rt.execute(call());
    expect(Object.isFrozen(kept)).toBe(true);
    expect(() => kept?.deferContext({ role: 'user', content: text('late') })).toThrow(/has finished/);
    expect(() => kept?.concludeTurn()).toThrow(/has finished/);
  });

  it.each([
    ['no callId', { name: 'echo', arguments: {} }],
    ['an empty callId', { callId: '', name: 'echo', arguments: {} }],
    ['a non-string name', { callId: 'c', name: 1, arguments: {} }],
    ['a signal that is not an AbortSignal', { callId: 'c', name: 'echo', arguments: {}, signal: {} }],
  ])('a malformed request (%s) is a caller error, not a result', async (_label, request) => {
    const { rt } = echoRuntime();
    await expect(rt.execute(request as never)).rejects.toThrow(TypeError);
  });
});

describe('projectContent and finalizeContent are captured before the arguments are read', () => {
  const swapper = () => {
    const rt = createToolRuntime();
    const original = echoTool({
      projectContent: (_a, _v, content) => [...content, ...text('projected by original')],
      finalizeContent: (content) => [...content, ...text('finalized by original')],
    });
    const replacement = echoTool({
      body: () => ({ echoed: 'replacement body' }),
      projectContent: () => text('projected by replacement'),
      finalizeContent: () => text('finalized by replacement'),
    });
    const dispose = rt.register(original.tool);
    let swapped = false;
    const swap = (): void => {
      if (swapped) return;
      swapped = true;
      dispose();
      rt.register(replacement.tool);
    };
    return { rt, swap };
  };

  it('a getter on the request arguments that re-registers the tool swaps the body, not the captured callbacks', async () => {
    const { rt, swap } = swapper();
    const request = {
      callId: 'c1',
      name: 'echo',
      get arguments() {
        swap();
        return { q: 'x' };
      },
    };
    const result = await rt.execute(request);
    expect(result.value).toEqual({ echoed: 'replacement body' }); // re-resolved at body start
    expect(result.content).toEqual(
      text('echo:replacement body').concat(text('projected by original'), text('finalized by original')),
    );
  });

  it('a getter inside the arguments that swaps the definition: final INVALID_ARGS, finalized by the original', async () => {
    const { rt, swap } = swapper();
    const args = Object.defineProperty({ q: 'x' }, 'trap', {
      enumerable: true,
      get() {
        swap();
        return 1;
      },
    });
    const result = await rt.execute(call('echo', args));
    expect(result.error?.code).toBe('INVALID_ARGS');
    expect(result.error?.message).toContain('arguments.trap');
    expect(result.content.at(-1)).toEqual({ type: 'text', text: 'finalized by original' });
  });
});

describe('entry checks', () => {
  it('an already-aborted signal is ABORTED_BEFORE_DISPATCH with the fixed text, before any policy', async () => {
    const env = watched();
    const controller = new AbortController();
    controller.abort();
    const result = await env.rt.execute({ ...call(), signal: controller.signal });
    expect(result.error).toEqual({ code: 'ABORTED_BEFORE_DISPATCH', message: 'tool call aborted before dispatch' });
    expect(result.content).toEqual(text('Error: tool call aborted before dispatch'));
    expect(env.stages).toEqual(['result']);
    expect(env.calls.count).toBe(0);
  });

  it('a refused model-direct call (ptc mode) is UNKNOWN_TOOL before policy; a nested call is not refused', async () => {
    const refusal = (name: string) =>
      `unknown tool "${name}": only run_code is callable directly — call ${name} from inside a run_code program instead`;
    const { registry, hooks, execute } = barePipeline({
      directCallRefusal: (name, agent) => (registry.exists(name, agent) ? refusal(name) : undefined),
    });
    const { tool, calls } = echoTool();
    registry.register(tool);
    const pre = jest.fn((_e: ToolExecution, next: () => Promise<never>) => next());
    hooks.on('tools/pre-execute', pre as never);
    const direct = await execute(call());
    expect(direct.error).toEqual({ code: 'UNKNOWN_TOOL', message: refusal('echo') });
    expect(pre).not.toHaveBeenCalled();
    expect(calls.count).toBe(0);
    const nested = await execute({ ...call(), parent: Symbol('run_code'), rootCallId: 'outer' });
    expect(nested.value).toEqual({ echoed: 'hi' });
    expect(pre).toHaveBeenCalledTimes(1);
    expect(codeOf(await execute(call('ghost', {})))).toBe('UNKNOWN_TOOL');
    expect(pre).toHaveBeenCalledTimes(2); // a truly unknown name still goes through policy
  });

  it('a truly unknown name goes through policy and dispatch as UNKNOWN_TOOL', async () => {
    const env = watched();
    const result = await env.rt.execute(call('nope', {}));
    expect(result.error).toEqual({ code: 'UNKNOWN_TOOL', message: 'unknown tool "nope"' });
    expect(env.stages).toEqual(['pre', 'execute', 'post', 'result']);
  });

  it('an unknown agent is a caller error', async () => {
    const { rt } = echoRuntime();
    await expect(rt.execute({ ...call(), agent: 'ghost' })).rejects.toThrow(/unknown agent/);
  });

  it('arguments reach the approval request, guards and hooks as the same frozen snapshot', async () => {
    const seen: unknown[] = [];
    const { rt } = echoRuntime({
      runtime: {
        approval: {
          request: async (req) => {
            seen.push(req.arguments);
            return 'allowed-once';
          },
        },
      },
    });
    rt.on('tools/pre-execute', (exec) => {
      seen.push(exec.arguments);
      return ask();
    });
    const guard = jest.fn((exec: ToolExecution) => {
      seen.push(exec.arguments);
      return undefined;
    });
    rt.guard(guard);
    await rt.execute(call());
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(1);
  });
});
