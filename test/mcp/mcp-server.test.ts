// createMcpServer with the MCP SDK's real Client over its in-memory transport pair:
// what each mode lists, and how results map (structuredContent, content, isError).
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createSandbox } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import {
  accept,
  createToolRuntime,
  defineTool,
  deny,
  type ToolRuntime,
  type ToolRuntimeOptions,
} from '../../src/index.ts';
import { PassThrough } from 'node:stream';
import {
  createMcpServer,
  MCP_META_CONTEXTS,
  MCP_META_ERROR,
  MCP_META_WRAPPED,
  serveMcpStdio,
} from '../../src/mcp/index.ts';
import { gate } from '../support/gate.ts';
import tools from './fixtures/tools.ts';

let sandbox: Sandbox | undefined;
const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});
afterAll(async () => {
  await sandbox?.close();
});

async function connect(
  options: ToolRuntimeOptions = {},
  setup: (rt: ToolRuntime) => void = () => {},
): Promise<{ client: Client; rt: ToolRuntime }> {
  sandbox ??= createSandbox();
  const rt = createToolRuntime({ sandbox, ...options });
  for (const tool of tools) rt.register(tool);
  setup(rt);
  const server = createMcpServer(rt);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  open.push(async () => {
    await client.close();
    await server.close();
    await rt.close();
  });
  return { client, rt };
}

describe('createMcpServer: tools/list per mode', () => {
  it('native lists every visible tool with its schemas', async () => {
    const { client } = await connect({ mode: 'native' });
    const { tools: listed } = await client.listTools();
    expect(listed.map((t) => t.name)).toEqual(['add', 'explode', 'greet']); // sorted by name, as rt.schemas()
    const add = listed[0]!;
    expect(add.description).toBe('Adds two numbers.');
    expect(add.inputSchema).toEqual({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: true,
    });
    // An object output schema describes structuredContent; a string output travels wrapped as { value } (issue 21).
    expect(add.outputSchema).toEqual({
      type: 'object',
      properties: { sum: { type: 'number' } },
      required: ['sum'],
      additionalProperties: false,
    });
    expect(listed[2]!.outputSchema).toEqual({
      type: 'object',
      properties: { value: { type: 'string' } },
      required: ['value'],
      additionalProperties: false,
    });
    expect(listed[2]!._meta).toEqual({ [MCP_META_WRAPPED]: true });
  });

  it('ptc lists run_code only, with the SDK in its description, and the instruction in the handshake', async () => {
    const { client, rt } = await connect({ mode: 'ptc' });
    const { tools: listed } = await client.listTools();
    expect(listed.map((t) => t.name)).toEqual(['run_code']);
    expect(listed[0]!.description).toContain(rt.sdk());
    expect(listed[0]!.description).toContain(' add: Tool<{ a: number; b: number }, { sum: number }>;');
    expect(client.getInstructions()).toMatch(/^Only the run_code tool is callable directly/u);
    expect(client.getServerCapabilities()?.tools).toEqual({});
  });

  it.each([true, false])(
    "the SDK is in run_code's description exactly once (embedSdkInDescription: %s)",
    async (embedSdkInDescription) => {
      const { client, rt } = await connect({ mode: 'ptc', embedSdkInDescription });
      const [runCode] = (await client.listTools()).tools;
      expect((runCode!.description ?? '').split(rt.sdk()).length).toBe(2);
      expect(client.getInstructions()).toMatch(/^Only the run_code tool is callable directly/u);
    },
  );

  it('both lists every tool plus run_code, without the ptc-only instruction', async () => {
    const { client } = await connect({ mode: 'both' });
    const { tools: listed } = await client.listTools();
    expect(listed.map((t) => t.name)).toEqual(['add', 'explode', 'greet', 'run_code']);
    expect(listed[3]!.description).toContain('declare const tools');
    expect(client.getInstructions()).toBeUndefined();
  });
});

describe('createMcpServer: tools/call', () => {
  it('a success: structuredContent from the canonical value, content from the rendered content', async () => {
    const { client } = await connect();
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'sum=5' }],
      structuredContent: { sum: 5 },
      isError: false,
    });
  });

  it('a non-object value travels wrapped as { value }, marked in _meta (MCP allows only objects there)', async () => {
    const { client } = await connect();
    const result = await client.callTool({ name: 'greet', arguments: { who: 'Ada' } });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'hello Ada' }],
      structuredContent: { value: 'hello Ada' },
      isError: false,
      _meta: { [MCP_META_WRAPPED]: true },
    });
  });

  it('a failure: isError with the error text, and our code under _meta', async () => {
    const { client } = await connect();
    const result = await client.callTool({ name: 'explode', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result.content).toEqual([{ type: 'text', text: 'Error: kaboom' }]);
    expect(result._meta?.[MCP_META_ERROR]).toEqual({ code: 'EXPLODED', message: 'kaboom' });
  });

  it('invalid arguments and unknown tools are isError results the model can read', async () => {
    const { client } = await connect();
    const invalid = await client.callTool({ name: 'add', arguments: { a: 'x' } });
    expect(invalid.isError).toBe(true);
    expect(invalid._meta?.[MCP_META_ERROR]).toEqual(expect.objectContaining({ code: 'INVALID_ARGS' }));
    const unknown = await client.callTool({ name: 'nope', arguments: {} });
    expect(unknown._meta?.[MCP_META_ERROR]).toEqual(expect.objectContaining({ code: 'UNKNOWN_TOOL' }));
  });

  it('calls pass the runtime policy (a pre-execute deny is an isError result)', async () => {
    const { client } = await connect({}, (rt) => {
      rt.on('tools/pre-execute', (exec, next) => (exec.name === 'greet' ? deny('no greetings today') : next()));
    });
    const result = await client.callTool({ name: 'greet', arguments: { who: 'Ada' } });
    expect(result.isError).toBe(true);
    expect(result._meta?.[MCP_META_ERROR]).toEqual(expect.objectContaining({ code: 'DENIED' }));
  });

  it('deferred contexts travel under _meta', async () => {
    const { client } = await connect({}, (rt) => {
      rt.register(
        defineTool({
          name: 'noted',
          description: 'Adds a note for the model.',
          parameters: {},
          output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'ok' }] },
          execute: (_args, exec) => {
            exec.deferContext({ role: 'user', content: [{ type: 'text', text: 'remember this' }] });
            return { ok: true };
          },
        }),
      );
    });
    const result = await client.callTool({ name: 'noted', arguments: {} });
    expect(result._meta?.[MCP_META_CONTEXTS]).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'remember this' }] },
    ]);
  });

  it('ptc: run_code runs a program over the tools; a direct native call is refused', async () => {
    const { client } = await connect({ mode: 'ptc' });
    const run = await client.callTool({
      name: 'run_code',
      arguments: {
        description: 'Add twice',
        code: 'const x = await tools.add({ a: 1, b: 2 }); const y = await tools.add({ a: x.sum, b: 10 }); return y.sum;',
      },
    });
    expect(run).toEqual({
      content: [{ type: 'text', text: '13' }],
      structuredContent: { logs: [], result: 13 },
      isError: false,
    });
    const direct = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    expect(direct.isError).toBe(true);
    expect(direct.content).toEqual([
      { type: 'text', text: expect.stringContaining('only run_code is callable directly') },
    ]);
  });

  it('no blank text reaches a client (it forwards content to a model provider): an empty result reads "(no output)"', async () => {
    const { client } = await connect({}, (rt) => {
      rt.register(
        defineTool({
          name: 'quiet',
          description: 'Answers with nothing.',
          parameters: {},
          output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
          execute: () => '',
        }),
      );
    });
    expect(await client.callTool({ name: 'quiet', arguments: {} })).toEqual({
      content: [{ type: 'text', text: '(no output)' }],
      structuredContent: { value: '' },
      _meta: { [MCP_META_WRAPPED]: true },
      isError: false,
    });
  });

  it('redaction holds: a result whose content post-execute replaced has no structuredContent; a replaced value is sent', async () => {
    const { client } = await connect({}, (rt) => {
      rt.register(
        defineTool({
          name: 'account',
          description: 'An account record.',
          parameters: { how: { type: 'string', required: true } },
          output: { schema: { type: 'json' }, render: (_a, v) => [{ type: 'text', text: JSON.stringify(v) }] },
          execute: () => ({ owner: 'Ada', iban: 'DE89370400440532013000' }),
        }),
      );
      rt.on('tools/post-execute', async (exec, _result, next) => {
        const args = exec.arguments as { how?: string };
        if (exec.name !== 'account') return next();
        if (args.how === 'content')
          return accept({ content: [{ type: 'text', text: '{"owner":"Ada","iban":"[redacted]"}' }] });
        return accept({ value: { owner: 'Ada', iban: '[redacted]' } });
      });
    });
    const contentOnly = await client.callTool({ name: 'account', arguments: { how: 'content' } });
    expect(contentOnly).toEqual({
      content: [{ type: 'text', text: '{"owner":"Ada","iban":"[redacted]"}' }],
      isError: false,
    });
    expect(JSON.stringify(contentOnly)).not.toContain('DE89');
    const value = await client.callTool({ name: 'account', arguments: { how: 'value' } });
    // An any-JSON output schema is listed as the { value } wrapper, so an object travels wrapped too.
    expect(value.structuredContent).toEqual({ value: { owner: 'Ada', iban: '[redacted]' } });
    expect(JSON.stringify(value)).not.toContain('DE89');
  });

  it('a cancelled request aborts the execution', async () => {
    let seen: AbortSignal | undefined;
    const started = gate();
    const { client } = await connect({}, (rt) => {
      rt.register(
        defineTool({
          name: 'wait',
          description: 'Waits until aborted.',
          parameters: {},
          output: { schema: { type: 'json' }, render: () => [] },
          execute: (_args, exec) =>
            new Promise((_resolve, reject) => {
              seen = exec.signal;
              started.open();
              exec.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
            }),
        }),
      );
    });
    const controller = new AbortController();
    const call = client.callTool({ name: 'wait', arguments: {} }, undefined, { signal: controller.signal });
    await started.passed;
    controller.abort(new Error('user gave up'));
    await expect(call).rejects.toThrow(/user gave up/u);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen?.aborted).toBe(true);
  });
});

describe('serveMcpStdio', () => {
  it('answers the calls already sent when the client closes stdin right after them', async () => {
    const rt = createToolRuntime({ sandbox: false });
    rt.register(
      defineTool({
        name: 'slow',
        description: 'Answers after a few turns of the event loop.',
        parameters: {},
        output: {
          schema: {
            type: 'object',
            additionalProperties: false,
            properties: { done: { type: 'boolean', required: true } },
          },
          render: () => [{ type: 'text', text: 'done' }],
        },
        execute: async () => {
          for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
          return { done: true };
        },
      }),
    );
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let written = '';
    stdout.on('data', (chunk: Buffer) => (written += chunk.toString()));
    const serving = serveMcpStdio(rt, { stdin, stdout });
    const send = (message: object): boolean => stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'slow', arguments: {} } });
    stdin.end();
    await serving;
    const responses = written
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; result: { structuredContent?: unknown } });
    expect(responses.map((r) => r.id)).toEqual([1, 2]);
    expect(responses[1]!.result.structuredContent).toEqual({ done: true });
    await rt.close();
  });
});
