// Registry: layers and shadowing, reserved run_code, registration checks,
// restrictions that mask, monotonic guards, disposers, odd names, schema projection.
import { describe, expect, it, jest } from '@jest/globals';
import {
  allow,
  createToolRuntime,
  defineTool,
  DefinitionError,
  deny,
  RUN_CODE,
  type Tool,
  type ToolRuntime,
} from '../../src/index.ts';
import { call, codeOf, echoTool, isDeepFrozen, text } from './helpers.ts';

/** A tool named `name` whose value says which definition ran. */
const labelled = (name: string, label: string, extra: Partial<Parameters<typeof defineTool>[0]> = {}): Tool =>
  defineTool({
    name,
    description: `${label} ${name}`,
    parameters: {},
    output: { schema: { type: 'string' }, render: (_a, v) => text(String(v)) },
    execute: () => label,
    ...extra,
  } as Parameters<typeof defineTool>[0]);

const names = (rt: ToolRuntime, agent?: string) => rt.schemas(agent === undefined ? {} : { agent }).map((s) => s.name);
const run = async (rt: ToolRuntime, name: string, agent?: string) =>
  rt.execute({ callId: 'c', name, arguments: {}, ...(agent === undefined ? {} : { agent }) });
const thrownBy = (f: () => unknown): DefinitionError => {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(DefinitionError);
    return error as DefinitionError;
  }
  throw new Error('expected a DefinitionError');
};

describe('register: layers and shadowing', () => {
  it('an agent-scoped tool shadows a global one of the same name for that agent (and its children) only', async () => {
    const rt = createToolRuntime();
    rt.createAgent('a');
    rt.createAgent('b');
    rt.createAgent('a-child', { parent: 'a' });
    rt.register(labelled('search', 'global'));
    rt.register(labelled('search', 'scoped'), { agent: 'a' });
    expect((await run(rt, 'search')).value).toBe('global');
    expect((await run(rt, 'search', 'b')).value).toBe('global');
    expect((await run(rt, 'search', 'a')).value).toBe('scoped');
    expect((await run(rt, 'search', 'a-child')).value).toBe('scoped');
    expect(rt.schemas({ agent: 'a' }).map((s) => s.description)).toEqual(['scoped search']);
    expect(rt.schemas({ agent: 'b' }).map((s) => s.description)).toEqual(['global search']);
  });

  it('an agent-scoped tool is invisible to other agents and the global scope', async () => {
    const rt = createToolRuntime();
    const a = rt.createAgent('a');
    rt.createAgent('b');
    rt.register(labelled('private', 'a'), { agent: a });
    expect(names(rt, 'a')).toEqual(['private']);
    expect(names(rt, 'b')).toEqual([]);
    expect(names(rt)).toEqual([]);
    expect(codeOf(await run(rt, 'private', 'b'))).toBe('UNKNOWN_TOOL');
  });

  it.each([
    ['globally', undefined],
    ['for one agent', 'a'],
  ])('refuses the same name twice in one layer (%s)', (_label, agent) => {
    const rt = createToolRuntime();
    rt.createAgent('a');
    const options = agent === undefined ? {} : { agent };
    rt.register(labelled('dup', 'one'), options);
    const error = thrownBy(() => rt.register(labelled('dup', 'two'), options));
    expect(error.message).toContain('already registered');
    expect(error.message).toContain('dispose it first');
  });

  it('refuses an unknown agent with a hint', () => {
    const rt = createToolRuntime();
    expect(thrownBy(() => rt.register(labelled('x', 'x'), { agent: 'ghost' })).message).toContain('rt.createAgent');
  });
});

describe('run_code is reserved in every scope', () => {
  const runCode = labelled(RUN_CODE, 'impostor');

  it.each([
    ['globally', undefined],
    ['for an agent', 'a'],
  ])('register(run_code) throws %s', (_label, agent) => {
    const rt = createToolRuntime();
    rt.createAgent('a');
    const error = thrownBy(() => rt.register(runCode, agent === undefined ? {} : { agent }));
    expect(error.message).toContain('reserved');
  });

  it.each([
    ['allow', { allow: [RUN_CODE] }],
    ['deny', { deny: [RUN_CODE] }],
  ])('restrict naming run_code in %s throws', (_label, restriction) => {
    const rt = createToolRuntime();
    rt.createAgent('a');
    expect(thrownBy(() => rt.restrict('a', restriction)).message).toContain('reserved');
  });
});

describe('registration checks (also for tools altered after defineTool)', () => {
  const good = labelled('good', 'x');
  it.each([
    [
      'no output contract',
      { ...good, name: 'nooutput', outputSchema: undefined, outputIssues: undefined },
      'output contract',
    ],
    ['a zero timeoutMs', { ...good, name: 'zero', timeoutMs: 0 }, 'timeoutMs'],
    ['an infinite timeoutMs', { ...good, name: 'inf', timeoutMs: Number.POSITIVE_INFINITY }, 'timeoutMs'],
    ['not a tool at all', { name: 'x' }, 'defineTool'],
  ])('refuses %s', (_label, tool, mention) => {
    const rt = createToolRuntime();
    expect(thrownBy(() => rt.register(tool as unknown as Tool)).message).toContain(mention);
    expect(names(rt)).toEqual([]);
  });
});

describe('restrict', () => {
  const setup = () => {
    const rt = createToolRuntime();
    rt.createAgent('a');
    rt.createAgent('b');
    for (const n of ['alpha', 'beta', 'gamma']) rt.register(labelled(n, 'global'));
    return rt;
  };

  it.each([
    [
      'a global restriction (no agent)',
      (rt: ToolRuntime) => rt.restrict(undefined as never, { deny: ['alpha'] }),
      'global restriction',
    ],
    ['an empty restriction {}', (rt: ToolRuntime) => rt.restrict('a', {}), 'empty restriction'],
    ['an unknown tool name', (rt: ToolRuntime) => rt.restrict('a', { deny: ['nope'] }), 'unknown tool "nope"'],
    ['an unknown agent', (rt: ToolRuntime) => rt.restrict('ghost', { deny: ['alpha'] }), 'unknown agent'],
    ['a non-array list', (rt: ToolRuntime) => rt.restrict('a', { allow: 'alpha' as never }), 'array of tool names'],
    [
      'a tool scoped to another agent',
      (rt: ToolRuntime) => {
        rt.register(labelled('b-only', 'b'), { agent: 'b' });
        return rt.restrict('a', { deny: ['b-only'] });
      },
      'unknown tool "b-only"',
    ],
  ])('refuses %s', (_label, act, mention) => {
    const rt = setup();
    expect(thrownBy(() => act(rt)).message).toContain(mention);
  });

  it('deny masks the visible view and dispatch for that agent only, without deleting the definition', async () => {
    const rt = setup();
    const dispose = rt.restrict('a', { deny: ['beta'] });
    expect(names(rt, 'a')).toEqual(['alpha', 'gamma']);
    expect(codeOf(await run(rt, 'beta', 'a'))).toBe('UNKNOWN_TOOL');
    expect(names(rt, 'b')).toEqual(['alpha', 'beta', 'gamma']);
    expect((await run(rt, 'beta', 'b')).value).toBe('global');
    expect(names(rt)).toEqual(['alpha', 'beta', 'gamma']);
    expect(rt.tool('beta', { agent: 'a' })).toBeUndefined();
    dispose();
    expect(names(rt, 'a')).toEqual(['alpha', 'beta', 'gamma']);
    expect((await run(rt, 'beta', 'a')).value).toBe('global');
  });

  it('allow keeps only the listed tools; several restrictions intersect; a parent restriction covers children', async () => {
    const rt = setup();
    rt.createAgent('a-child', { parent: 'a' });
    const first = rt.restrict('a', { allow: ['alpha', 'beta'] });
    expect(names(rt, 'a')).toEqual(['alpha', 'beta']);
    const second = rt.restrict('a', { deny: ['alpha'] });
    expect(names(rt, 'a')).toEqual(['beta']);
    expect(names(rt, 'a-child')).toEqual(['beta']);
    expect(codeOf(await run(rt, 'gamma', 'a-child'))).toBe('UNKNOWN_TOOL');
    first();
    expect(names(rt, 'a')).toEqual(['beta', 'gamma']);
    second();
    expect(names(rt, 'a')).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('keeps an agent-scoped override in view (a restriction masks global tools, chapter 8.3), and disposing twice is harmless', () => {
    const rt = setup();
    rt.register(labelled('alpha', 'scoped'), { agent: 'a' });
    const dispose = rt.restrict('a', { deny: ['alpha', 'beta'] });
    expect(names(rt, 'a')).toEqual(['alpha', 'gamma']);
    expect(rt.schemas({ agent: 'a' }).find((s) => s.name === 'alpha')?.description).toBe('scoped alpha');
    const allowOnly = rt.restrict('a', { allow: ['gamma'] });
    expect(names(rt, 'a')).toEqual(['alpha', 'gamma']);
    allowOnly();
    dispose();
    dispose();
    expect(names(rt, 'a')).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('refuses { deny: [] }, which masks nothing, like {}', () => {
    const rt = setup();
    expect(() => rt.restrict('a', { deny: [] })).toThrow('restrict: an empty restriction { deny: [] } does nothing');
  });
});

describe('guards', () => {
  it('run after the pre-execute waterfall has allowed', async () => {
    const rt = createToolRuntime();
    const { tool } = echoTool();
    rt.register(tool);
    const order: string[] = [];
    rt.on('tools/pre-execute', async (_exec, next) => {
      order.push('pre:before');
      const d = await next();
      order.push('pre:after');
      return d;
    });
    rt.guard(() => {
      order.push('guard');
      return undefined;
    });
    rt.on('tools/execute', async (_exec, next) => {
      order.push('execute');
      return next();
    });
    expect((await rt.execute(call())).isError).toBe(false);
    expect(order).toEqual(['pre:before', 'pre:after', 'guard', 'execute']);
  });

  it('are not consulted when pre-execute already denied', async () => {
    const rt = createToolRuntime();
    rt.register(echoTool().tool);
    rt.on('tools/pre-execute', () => deny('policy says no'));
    const guard = jest.fn(() => undefined);
    rt.guard(guard);
    expect((await rt.execute(call())).error?.message).toBe('policy says no');
    expect(guard).not.toHaveBeenCalled();
  });

  it('are monotonic: one denial wins over any number of passes, and nothing can force-allow', async () => {
    const rt = createToolRuntime();
    const { tool, calls } = echoTool();
    rt.register(tool);
    rt.guard(() => undefined);
    rt.guard(() => ({ deny: 'guard two says no', info: { rule: 2 } }));
    rt.guard(() => ({ allow: true }) as never);
    rt.on('tools/pre-execute', () => allow());
    const result = await rt.execute(call());
    expect(result.error).toEqual({ code: 'DENIED', message: 'guard two says no', info: { rule: 2 } });
    expect(calls.count).toBe(0);
  });

  it.each([
    ['returns garbage', () => ({ allow: true }) as never, 'neither undefined'],
    [
      'throws',
      () => {
        throw new Error('guard broke');
      },
      'guard broke',
    ],
    [
      'rejects',
      async () => {
        throw new Error('async guard broke');
      },
      'async guard broke',
    ],
  ])('deny when a guard %s (fail closed)', async (_label, guard, mention) => {
    const rt = createToolRuntime();
    const { tool, calls } = echoTool();
    rt.register(tool);
    rt.guard(guard as never);
    const result = await rt.execute(call());
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain(mention);
    expect(calls.count).toBe(0);
  });

  it('an agent guard applies to that agent and its children only; disposing removes it', async () => {
    const rt = createToolRuntime();
    rt.createAgent('a');
    rt.createAgent('a-child', { parent: 'a' });
    rt.createAgent('b');
    rt.register(echoTool().tool);
    const dispose = rt.guard((exec) => ({ deny: `no for ${String(exec.agent)}` }), { agent: 'a' });
    const exec = (agent?: string) => rt.execute({ ...call(), ...(agent === undefined ? {} : { agent }) });
    expect((await exec('a')).error?.message).toBe('no for a');
    expect((await exec('a-child')).error?.message).toBe('no for a-child');
    expect((await exec('b')).isError).toBe(false);
    expect((await exec()).isError).toBe(false);
    dispose();
    expect((await exec('a')).isError).toBe(false);
  });
});

describe('disposers remove every contribution, and re-register works', () => {
  it('a registration: schemas and dispatch, then a fresh register of the same name', async () => {
    const rt = createToolRuntime();
    const first = echoTool();
    const dispose = rt.register(first.tool);
    expect(names(rt)).toEqual(['echo']);
    dispose();
    expect(names(rt)).toEqual([]);
    expect(rt.tool('echo')).toBeUndefined();
    expect(codeOf(await rt.execute(call()))).toBe('UNKNOWN_TOOL');
    const second = echoTool({ body: () => ({ echoed: 'second' }) });
    rt.register(second.tool);
    expect((await rt.execute(call())).value).toEqual({ echoed: 'second' });
    dispose(); // a stale disposer must not remove the new registration
    expect((await rt.execute(call())).value).toEqual({ echoed: 'second' });
    expect(first.calls.count).toBe(0);
  });

  it('the same tool object can be registered again after disposal', async () => {
    const rt = createToolRuntime();
    const { tool } = echoTool();
    rt.register(tool)();
    rt.register(tool);
    expect((await rt.execute(call())).isError).toBe(false);
  });

  it.each(['tools/pre-execute', 'tools/execute', 'tools/post-execute', 'tools/result'] as const)(
    'a %s hook',
    async (hook) => {
      const rt = createToolRuntime();
      rt.register(echoTool().tool);
      const handler = jest.fn((...args: unknown[]) => (args[args.length - 1] as () => unknown)());
      const observer = jest.fn(() => undefined);
      const dispose = rt.on(hook, (hook === 'tools/result' ? observer : handler) as never);
      await rt.execute(call());
      dispose();
      dispose();
      await rt.execute(call());
      expect((hook === 'tools/result' ? observer : handler).mock.calls.length).toBe(1);
    },
  );

  it('the same handler registered twice is disposed independently', async () => {
    const rt = createToolRuntime();
    rt.register(echoTool().tool);
    const seen: string[] = [];
    const observer = (r: { callId: string }) => {
      seen.push(r.callId);
    };
    const first = rt.on('tools/result', observer);
    rt.on('tools/result', observer);
    first();
    await rt.execute(call());
    expect(seen).toEqual(['c1']);
  });

  it('refuses an unknown hook name with the list of known ones', () => {
    const rt = createToolRuntime();
    expect(() => rt.on('tools/nope' as never, (() => undefined) as never)).toThrow(
      /unknown hook "tools\/nope".*tools\/pre-execute/,
    );
  });
});

describe('names that are also Object.prototype members are ordinary names', () => {
  const odd = ['toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf'];

  it.each(odd)('"%s" is unknown until registered, then works like any tool', async (name) => {
    const rt = createToolRuntime();
    expect(codeOf(await run(rt, name))).toBe('UNKNOWN_TOOL');
    expect(rt.tool(name)).toBeUndefined();
    const dispose = rt.register(labelled(name, 'odd'));
    expect(names(rt)).toEqual([name]);
    expect((await run(rt, name)).value).toBe('odd');
    expect(thrownBy(() => rt.register(labelled(name, 'again'))).message).toContain('already registered');
    rt.createAgent('a');
    rt.restrict('a', { deny: [name] });
    expect(names(rt, 'a')).toEqual([]);
    dispose();
    expect(codeOf(await run(rt, name))).toBe('UNKNOWN_TOOL');
  });

  it.each(odd)('an agent id "%s" is an ordinary id', async (id) => {
    const rt = createToolRuntime();
    expect(thrownBy(() => rt.register(labelled('t', 'x'), { agent: id })).message).toContain('unknown agent');
    rt.createAgent(id);
    rt.register(labelled('t', id), { agent: id });
    expect((await run(rt, 't', id)).value).toBe(id);
  });
});

describe('schema projection', () => {
  it('has only name, description, parameters and deferLoading, sorted by name and frozen', () => {
    const rt = createToolRuntime();
    rt.register(
      defineTool({
        name: 'zeta',
        description: 'last',
        parameters: { q: { type: 'string', required: true } },
        output: { schema: { type: 'string' }, render: (_a, v) => text(v) },
        execute: () => 'x',
        timeoutMs: 1000,
        deferLoading: true,
        isConcurrencySafe: () => true,
        projectContent: (_a, _v, c) => [...c],
        finalizeContent: (c) => [...c],
        presentationMeta: () => null,
        presentCall: () => null,
        presentResult: () => null,
      }),
    );
    rt.register(labelled('alpha', 'x', { deferLoading: false }));
    const projected = rt.schemas();
    expect(projected.map((p) => Object.keys(p).sort())).toEqual([
      ['description', 'name', 'parameters'],
      ['deferLoading', 'description', 'name', 'parameters'],
    ]);
    expect(projected[1]).toEqual({
      name: 'zeta',
      description: 'last',
      parameters: {
        type: 'object',
        additionalProperties: true,
        properties: { q: { type: 'string' } },
        required: ['q'],
      },
      deferLoading: true,
    });
    expect(projected.every(isDeepFrozen)).toBe(true);
    expect(JSON.parse(JSON.stringify(projected))).toEqual(projected);
  });
});
