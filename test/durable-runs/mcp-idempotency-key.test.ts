// An imported MCP tool's call carries the execution's idempotency key in `_meta`
// (MCP_IDEMPOTENCY_KEY), so a server can make a retried call safe: inside a durable run
// the key is `run:<runId>:<n>`, the same on every attempt; any other call's is `call:<callId>`.
import { expect, it } from '@jest/globals';
import { createMemoryJournal, createToolRuntime } from '../../src/index.ts';
import { defineMcpTool, MCP_IDEMPOTENCY_KEY, type McpCaller } from '../../src/mcp/define-mcp-tool.ts';

it('passes exec.idempotencyKey to the MCP server in _meta', async () => {
  const seen: unknown[] = [];
  const client = {
    callTool: async (params: { _meta?: unknown }) => {
      seen.push(params._meta);
      return { content: [{ type: 'text', text: 'ok' }] };
    },
  } as unknown as McpCaller;
  const tool = defineMcpTool(client, { name: 'remote', inputSchema: { type: 'object', properties: {} } } as never, {
    serverName: 'fake',
  });
  const rt = createToolRuntime({
    journal: createMemoryJournal(),
    mode: 'both',
    sandbox: { isolation: 'in-process', poolSize: 1 },
  });
  rt.register(tool);
  await rt.execute({ callId: 'direct-1', name: 'remote', arguments: {} });
  const run = await rt.execute({
    callId: 'run-1',
    name: 'run_code',
    arguments: { description: 'two remote calls', code: 'await tools.remote({}); await tools.remote({});' },
  });
  expect(run.isError).toBe(false);
  expect(seen[0]).toStrictEqual({ [MCP_IDEMPOTENCY_KEY]: 'call:direct-1' });
  const [a, b] = seen.slice(1) as { [key: string]: string }[];
  expect(a![MCP_IDEMPOTENCY_KEY]).toMatch(/^run:[0-9a-f-]{36}:1$/);
  expect(b![MCP_IDEMPOTENCY_KEY]).toBe(a![MCP_IDEMPOTENCY_KEY]!.replace(/:1$/, ':2'));
  await rt.close();
});
