// The pipeline calls a definition's body itself once it has checked the arguments (no
// second validation, no async wrapper; a synchronous value is the outcome at once), and
// takes `invoke`'s way under a tools/execute wrapper or a journal. Every check holds on
// both ways, for a body that returns a value, a promise or a foreign thenable.
import { describe, expect, it } from '@jest/globals';
import { createMemoryJournal, createToolRuntime, defineTool, deny, type JsonValue } from '../../src/index.ts';

type Kind = 'value' | 'promise' | 'thenable';

/** What a body of each kind returns for `value`. */
function answer(kind: Kind, value: unknown): unknown {
  if (kind === 'value') return value;
  if (kind === 'promise') return Promise.resolve(value);
  return { then: (resolve: (v: unknown) => void) => resolve(value) };
}

/** `double` returns 2n (an integer); `bad` returns a string where the schema says integer; `boom` throws. */
function runtime(path: 'direct' | 'wrapper' | 'journal', kind: Kind) {
  const rt = createToolRuntime({ sandbox: false, ...(path === 'journal' ? { journal: createMemoryJournal() } : {}) });
  if (path === 'wrapper') rt.on('tools/execute', (_exec, next) => next());
  const runs = { count: 0 };
  const define = (name: string, body: (n: number) => unknown) =>
    rt.register(
      defineTool({
        name,
        description: `${name} n`,
        parameters: { n: { type: 'integer', required: true } },
        output: { schema: { type: 'integer' }, render: (_args, value) => [{ type: 'text', text: String(value) }] },
        isConcurrencySafe: () => true,
        execute: ({ n }) => {
          runs.count += 1;
          return body(n) as never;
        },
      }),
    );
  define('double', (n) => answer(kind, 2 * n));
  define('bad', () => answer(kind, 'not an integer'));
  define('boom', () => {
    throw new Error('the body broke');
  });
  let id = 0;
  const call = (name: string, args: JsonValue) => rt.execute({ callId: `c${(id += 1)}`, name, arguments: args });
  return { rt, runs, call };
}

describe.each(['direct', 'wrapper', 'journal'] as const)('a body called the %s way', (path) => {
  describe.each(['value', 'promise', 'thenable'] as const)('returning a %s', (kind) => {
    it('gives its validated value', async () => {
      const { call, runs } = runtime(path, kind);
      const result = await call('double', { n: 21 });
      expect(result.isError).toBe(false);
      expect(result.value).toBe(42);
      expect(result.content).toEqual([{ type: 'text', text: '42' }]);
      expect(runs.count).toBe(1);
    });

    it('is refused by a denying pre-execute handler before it runs', async () => {
      const { rt, call, runs } = runtime(path, kind);
      rt.on('tools/pre-execute', () => deny('not today'));
      const result = await call('double', { n: 1 });
      expect(result.error?.code).toBe('DENIED');
      expect(runs.count).toBe(0);
    });

    it('never runs with arguments its schema refuses', async () => {
      const { call, runs } = runtime(path, kind);
      const result = await call('double', { n: 1.5 });
      expect(result.error?.code).toBe('INVALID_ARGS');
      expect(runs.count).toBe(0);
    });

    it('fails with INVALID_TOOL_OUTPUT when its value breaks the output schema', async () => {
      const { call, runs } = runtime(path, kind);
      const result = await call('bad', { n: 1 });
      expect(result.error?.code).toBe('INVALID_TOOL_OUTPUT');
      expect(result.error?.message).toMatch(/does not match its output schema/u);
      expect(runs.count).toBe(1);
    });
  });

  it('a body that throws synchronously is TOOL_ERROR with its message', async () => {
    const { call } = runtime(path, 'value');
    const result = await call('boom', { n: 1 });
    expect(result.error?.code).toBe('TOOL_ERROR');
    expect(result.error?.message).toContain('the body broke');
  });
});

describe('the direct way', () => {
  it("reads a returned object's then once, as an async function's return does", async () => {
    const rt = createToolRuntime({ sandbox: false });
    let reads = 0;
    rt.register(
      defineTool({
        name: 'odd',
        description: 'returns an object with a then getter',
        parameters: {},
        output: { schema: { type: 'integer' }, render: () => [{ type: 'text', text: 'odd' }] },
        execute: () => {
          const thenable = {};
          Object.defineProperty(thenable, 'then', {
            get() {
              reads += 1;
              return (resolve: (v: number) => void) => resolve(7);
            },
          });
          return thenable as never;
        },
      }),
    );
    const result = await rt.execute({ callId: 'c1', name: 'odd', arguments: {} });
    expect(result.value).toBe(7);
    expect(reads).toBe(1);
  });

  it('a rejected promise and a throwing thenable are TOOL_ERROR too', async () => {
    const rt = createToolRuntime({ sandbox: false });
    const define = (name: string, body: () => unknown) =>
      rt.register(
        defineTool({
          name,
          description: name,
          parameters: {},
          output: { schema: { type: 'integer' }, render: () => [] },
          execute: () => body() as never,
        }),
      );
    define('rejects', () => Promise.reject(new Error('rejected here')));
    define('throwing-then', () => ({
      then() {
        throw new Error('then threw');
      },
    }));
    const rejected = await rt.execute({ callId: 'r', name: 'rejects', arguments: {} });
    expect(rejected.error).toMatchObject({ code: 'TOOL_ERROR', message: expect.stringContaining('rejected here') });
    const thrown = await rt.execute({ callId: 't', name: 'throwing-then', arguments: {} });
    expect(thrown.error).toMatchObject({ code: 'TOOL_ERROR', message: expect.stringContaining('then threw') });
  });

  it('leaves Tool.invoke, which anyone may call, validating its arguments', async () => {
    const tool = defineTool({
      name: 'plain',
      description: 'plain',
      parameters: { n: { type: 'integer', required: true } },
      output: { schema: { type: 'integer' }, render: () => [] },
      execute: ({ n }) => n,
    });
    await expect(tool.invoke({ n: 'x' }, {} as never)).rejects.toMatchObject({ name: 'ToolArgsError' });
    await expect(tool.invoke({ n: 3 }, {} as never)).resolves.toBe(3);
  });
});
