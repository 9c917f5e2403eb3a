// defineTool: definition checks, the validating wrapper around the body,
// one ajv compile per schema, soft validation of isConcurrencySafe and presenters.
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Ajv } from 'ajv';
import {
  createToolRuntime,
  defineTool,
  DefinitionError,
  ToolArgsError,
  ToolRuntimeError,
  type ToolExecution,
  type ToolResult,
} from '../../src/index.ts';
import { call, isDeepFrozen, text } from './helpers.ts';

const valid = {
  name: 'ok',
  description: 'd',
  parameters: { q: { type: 'string', required: true } },
  output: { schema: { type: 'string' }, render: (_a: unknown, v: string) => text(v) },
  execute: (args: { q: string }) => args.q,
} as const;

describe('definition checks (INVALID_DEFINITION, thrown at once)', () => {
  const table: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
    ['a missing name', { name: undefined }, 'name'],
    ['an empty name', { name: '' }, 'name'],
    ['a name with whitespace', { name: 'two words' }, 'name'],
    ['a name longer than 128 characters', { name: 'x'.repeat(129) }, 'name'],
    ['a missing description', { description: undefined }, 'description'],
    ['a missing execute', { execute: undefined }, 'execute'],
    ['a missing output', { output: undefined }, 'output is required'],
    ['an output without schema', { output: { render: () => [] } }, 'output.schema is required'],
    ['an output without render', { output: { schema: { type: 'json' } } }, 'output.render'],
    ['timeoutMs 0', { timeoutMs: 0 }, 'timeoutMs'],
    ['a negative timeoutMs', { timeoutMs: -5 }, 'timeoutMs'],
    ['timeoutMs NaN', { timeoutMs: Number.NaN }, 'timeoutMs'],
    ['timeoutMs Infinity', { timeoutMs: Number.POSITIVE_INFINITY }, 'timeoutMs'],
    ['a string timeoutMs', { timeoutMs: '100' }, 'timeoutMs'],
    ['a non-function isConcurrencySafe', { isConcurrencySafe: true }, 'isConcurrencySafe'],
    ['a non-function presentCall', { presentCall: {} }, 'presentCall'],
    ['a non-function finalizeContent', { finalizeContent: 'x' }, 'finalizeContent'],
    ['a non-boolean deferLoading', { deferLoading: 'yes' }, 'deferLoading'],
  ];

  it.each(table)('refuses %s', (_label, patch, field) => {
    let thrown: unknown;
    try {
      defineTool({ ...valid, ...patch } as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DefinitionError);
    expect((thrown as DefinitionError).code).toBe('INVALID_DEFINITION');
    expect((thrown as DefinitionError).message).toContain(field);
  });

  it('accepts a positive finite timeoutMs and any non-blank name characters', () => {
    const tool = defineTool({ ...valid, name: 'ns.tool-1/x', timeoutMs: 0.5 });
    expect(tool.timeoutMs).toBe(0.5);
    expect(tool.name).toBe('ns.tool-1/x');
  });

  it('returns a frozen tool whose compiled schemas are deep-frozen', () => {
    const tool = defineTool(valid);
    expect(Object.isFrozen(tool)).toBe(true);
    expect(isDeepFrozen(tool.parameters)).toBe(true);
    expect(isDeepFrozen(tool.outputSchema)).toBe(true);
  });
});

describe('the validating wrapper: invalid input never runs the body', () => {
  const exec = {} as ToolExecution;
  const cases: ReadonlyArray<readonly [string, unknown, string]> = [
    ['a missing required field', {}, "must have required property 'q'"],
    ['a wrong type', { q: 1 }, 'must be string'],
    ['a non-object root', ['q'], 'must be object'],
    ['null', null, 'must be object'],
  ];

  it.each(cases)('throws ToolArgsError (INVALID_ARGS) for %s, before the body', async (_label, args, message) => {
    const body = jest.fn(() => 'ran');
    const tool = defineTool({ ...valid, execute: body });
    const error = await tool.invoke(args as never, exec).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ToolArgsError);
    expect(error).toBeInstanceOf(ToolRuntimeError);
    const e = error as ToolArgsError;
    expect(e.name).toBe('ToolArgsError');
    expect(e.code).toBe('INVALID_ARGS');
    expect(e.toolName).toBe('ok');
    expect(e.issues.map((i) => i.message)).toContain(message);
    expect(e.message).toContain('invalid arguments for tool "ok"');
    expect(body).not.toHaveBeenCalled();
  });

  it('reports the first issue with its JSON pointer (validation stops there: bounded work)', () => {
    const tool = defineTool({
      ...valid,
      parameters: {
        a: { type: 'integer', required: true },
        o: { type: 'object', additionalProperties: false, properties: { b: { type: 'boolean' } } },
      },
      execute: () => 'x',
    });
    expect(tool.argIssues({ a: 'x', o: { b: 1 } })).toEqual([{ path: '/a', message: 'must be integer' }]);
    expect(tool.argIssues({ a: 1, o: { b: 1 } })).toEqual([{ path: '/o/b', message: 'must be boolean' }]);
  });

  it('calls the body with the validated args and the exec when they fit', async () => {
    const body = jest.fn((args: { q: string }, _exec: ToolExecution) => args.q.toUpperCase());
    const tool = defineTool({ ...valid, execute: body });
    await expect(tool.invoke({ q: 'a' }, exec)).resolves.toBe('A');
    expect(body.mock.calls[0]?.[0]).toEqual({ q: 'a' });
    expect(body.mock.calls[0]?.[1]).toBe(exec);
  });
});

describe('ajv compiles each schema once, at definition time', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('compiles parameters and output once, never per call', async () => {
    const rt = createToolRuntime(); // may define built-in tools of its own
    const compile = jest.spyOn(Ajv.prototype, 'compile');
    const tool = defineTool(valid);
    expect(compile).toHaveBeenCalledTimes(2);
    rt.register(tool);
    for (let i = 0; i < 25; i += 1) {
      const result = await rt.execute(call('ok', { q: `v${i}` }, `c${i}`));
      expect(result.value).toBe(`v${i}`);
    }
    tool.isConcurrencySafe({ q: 'x' });
    tool.presentCall({ q: 'x' });
    expect(compile).toHaveBeenCalledTimes(2);
  });
});

describe('isConcurrencySafe is soft: anything but exactly true is exclusive', () => {
  const table: ReadonlyArray<
    readonly [string, ((args: { q: string }) => boolean) | undefined, unknown, boolean, boolean]
  > = [
    ['returns true for fitting args', () => true, { q: 'x' }, true, true],
    ['absent', undefined, { q: 'x' }, false, false],
    ['returns false', () => false, { q: 'x' }, false, true],
    ['returns a truthy non-boolean', (() => 1) as never, { q: 'x' }, false, true],
    [
      'throws',
      () => {
        throw new Error('no');
      },
      { q: 'x' },
      false,
      true,
    ],
    ['args do not fit (callback not consulted)', () => true, { q: 1 }, false, false],
  ];
  it.each(table)('%s', (_label, callback, args, expected, consulted) => {
    const spy = callback === undefined ? undefined : jest.fn(callback);
    const tool = defineTool({ ...valid, ...(spy === undefined ? {} : { isConcurrencySafe: spy }) });
    expect(tool.isConcurrencySafe(args as never)).toBe(expected);
    if (spy !== undefined) expect(spy.mock.calls.length > 0).toBe(consulted);
  });
});

describe('presenters soft-validate old logged input', () => {
  const result: ToolResult = Object.freeze({ callId: 'c', name: 'ok', isError: false, value: 'x', content: text('x') });

  it('return the presentation when the logged args fit', () => {
    const tool = defineTool({
      ...valid,
      presentCall: (a) => ({ call: a.q }),
      presentResult: (a, r) => ({ q: a.q, ok: !r.isError }),
    });
    expect(tool.presentCall({ q: 'x' })).toEqual({ call: 'x' });
    expect(tool.presentResult({ q: 'x' }, result)).toEqual({ q: 'x', ok: true });
  });

  it('return undefined (generic UI) without calling the presenter when they no longer fit', () => {
    const presentCall = jest.fn(() => 'p');
    const presentResult = jest.fn(() => 'r');
    const tool = defineTool({ ...valid, presentCall, presentResult });
    expect(tool.presentCall({ query: 'renamed field' })).toBeUndefined();
    expect(tool.presentResult({ q: 42 }, result)).toBeUndefined();
    expect(presentCall).not.toHaveBeenCalled();
    expect(presentResult).not.toHaveBeenCalled();
  });

  it('return undefined when the tool has no presenter', () => {
    const tool = defineTool(valid);
    expect(tool.presentCall({ q: 'x' })).toBeUndefined();
    expect(tool.presentResult({ q: 'x' }, result)).toBeUndefined();
  });
});
