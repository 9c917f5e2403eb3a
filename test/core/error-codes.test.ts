// Every runtime error code of the core is reachable, and each by the path its
// documentation names. (CODE_RUN_FAILED, PTC_NOT_CONFIGURED and TOOL_TIMEOUT belong to other suites.)
import { describe, expect, it } from '@jest/globals';
import {
  accept,
  ask,
  block,
  cancel,
  createToolRuntime,
  defineTool,
  DefinitionError,
  deny,
  ERROR_CODES,
  type ErrorCode,
  type ToolResult,
  createMemoryJournal,
} from '../../src/index.ts';
import { call, codeOf, echoRuntime } from './helpers.ts';

// Owned elsewhere: run_code's own codes (test/ptc/), the timeout policy's, and the sessions' (test/sessions/).
type OwnedCode = 'CODE_RUN_FAILED' | 'PTC_NOT_CONFIGURED' | 'TOOL_TIMEOUT' | 'SESSION_EXPIRED' | 'SESSION_BUSY';
type CoreCode = Exclude<ErrorCode, OwnedCode>;

const viaResult = (result: Promise<ToolResult>) => result.then(codeOf);

/** One scenario per code; the Record type makes tsc fail if a code is added without one. */
const SCENARIOS: Record<CoreCode, () => Promise<string>> = {
  INVALID_ARGS: () => viaResult(echoRuntime().rt.execute(call('echo', { q: 42 }))),
  INVALID_TOOL_OUTPUT: () => viaResult(echoRuntime({ body: () => ({ echoed: null }) as never }).rt.execute(call())),
  UNSUPPORTED_SCHEMA: async () => {
    try {
      defineTool({
        name: 'x',
        description: 'd',
        parameters: { a: { type: 'string', format: 'email' } as never },
        output: { schema: { type: 'json' }, render: () => [] },
        execute: () => null,
      });
    } catch (error) {
      return error instanceof DefinitionError ? error.code : 'not a DefinitionError';
    }
    return 'no error';
  },
  UNKNOWN_TOOL: () => viaResult(createToolRuntime().execute(call('missing', {}))),
  DENIED: () => {
    const { rt } = echoRuntime();
    rt.on('tools/pre-execute', () => deny('no'));
    return viaResult(rt.execute(call()));
  },
  CANCELLED: () => {
    const { rt } = echoRuntime();
    rt.on('tools/pre-execute', () => cancel());
    return viaResult(rt.execute(call()));
  },
  APPROVAL_UNAVAILABLE: () => {
    const { rt } = echoRuntime();
    rt.on('tools/pre-execute', () => ask());
    return viaResult(rt.execute(call()));
  },
  APPROVAL_REJECTED: () => {
    const { rt } = echoRuntime({ runtime: { approval: { request: async () => 'rejected' } } });
    rt.on('tools/pre-execute', () => ask());
    return viaResult(rt.execute(call()));
  },
  ABORTED: () => {
    const controller = new AbortController();
    const { rt } = echoRuntime({
      body: (args) => {
        controller.abort();
        return { echoed: args.q };
      },
    });
    return viaResult(rt.execute({ ...call(), signal: controller.signal }));
  },
  ABORTED_BEFORE_DISPATCH: () => viaResult(echoRuntime().rt.execute({ ...call(), signal: AbortSignal.abort() })),
  TOOL_ERROR: () =>
    viaResult(
      echoRuntime({
        body: () => {
          throw new Error('boom');
        },
      }).rt.execute(call()),
    ),
  BLOCKED: () => {
    const { rt } = echoRuntime();
    rt.on('tools/post-execute', () => block('no'));
    return viaResult(rt.execute(call()));
  },
  PIPELINE_ERROR: () => {
    const { rt } = echoRuntime();
    rt.on('tools/post-execute', () => accept({ value: { echoed: 'x' }, content: [] }));
    return viaResult(rt.execute(call()));
  },
  NESTING_TOO_DEEP: async () => {
    // A composite tool that calls itself: the innermost call beyond the limit is refused.
    const rt = createToolRuntime({ maxCallDepth: 2 });
    rt.register(
      defineTool({
        name: 'again',
        description: 'calls itself',
        parameters: {},
        output: { schema: { type: 'json' }, render: () => [] },
        execute: async (_args, exec) => {
          const inner = await exec.callTool('again', {});
          return inner.isError ? inner.error!.code : inner.value!;
        },
      }),
    );
    const outer = await rt.execute(call('again', {}));
    return String(outer.value);
  },
  SCHEDULER_FAILURE: () => {
    const { rt } = echoRuntime({
      runtime: {
        journal: {
          append: () => Promise.reject(new Error('disk full')),
          read: async () => ({ events: [], warnings: [] }),
        },
      },
    });
    return viaResult(rt.execute(call()));
  },
  PAUSED: async () => {
    // A run_code program's gated call whose approval answers 'pause' (a journal is needed).
    const rt = createToolRuntime({
      journal: createMemoryJournal(),
      mode: 'ptc',
      approval: { request: async () => 'pause' },
      sandbox: { isolation: 'in-process', poolSize: 1 },
    });
    rt.register(
      defineTool({
        name: 'gated',
        description: 'needs approval',
        parameters: {},
        output: { schema: { type: 'json' }, render: () => [] },
        execute: () => null,
      }),
    );
    rt.on('tools/pre-execute', async (exec, next) => (exec.name === 'gated' ? ask() : next()));
    const codes: string[] = [];
    rt.on('tools/result', (result) => void (result.isError ? codes.push(result.error!.code) : undefined));
    await rt.execute({
      callId: 'r',
      name: 'run_code',
      arguments: { description: 'gated', code: 'await tools.gated({});' },
    });
    await rt.close();
    return codes[0] ?? 'no failed result';
  },
};

describe('error codes', () => {
  it('every code is its own name, and the core scenarios cover all but those owned elsewhere', () => {
    for (const [key, value] of Object.entries(ERROR_CODES)) expect(value).toBe(key);
    const owned: readonly string[] = [
      'CODE_RUN_FAILED',
      'PTC_NOT_CONFIGURED',
      'TOOL_TIMEOUT',
      'SESSION_EXPIRED',
      'SESSION_BUSY',
    ] satisfies OwnedCode[];
    expect(Object.keys(SCENARIOS).sort()).toEqual(
      Object.keys(ERROR_CODES)
        .filter((c) => !owned.includes(c))
        .sort(),
    );
  });

  it.each(Object.keys(SCENARIOS) as CoreCode[])('%s is reached', async (code) => {
    await expect(SCENARIOS[code]()).resolves.toBe(code);
  });

  it('the two abort codes carry the fixed texts', async () => {
    const before = await echoRuntime().rt.execute({ ...call(), signal: AbortSignal.abort() });
    expect(before.content).toEqual([{ type: 'text', text: 'Error: tool call aborted before dispatch' }]);
    const controller = new AbortController();
    const after = await echoRuntime({
      body: (args) => {
        controller.abort();
        return { echoed: args.q };
      },
    }).rt.execute({ ...call(), signal: controller.signal });
    expect(after.content).toEqual([{ type: 'text', text: 'Error: tool call aborted' }]);
  });

  it("a thrown error's own string code is kept", async () => {
    const { rt } = echoRuntime({
      body: () => {
        throw Object.assign(new Error('quota'), { code: 'QUOTA_EXCEEDED' });
      },
    });
    expect(codeOf(await rt.execute(call()))).toBe('QUOTA_EXCEEDED');
  });
});
