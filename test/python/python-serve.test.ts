// `ptc serve --guest python` as a real child process over stdio, driven by the official
// MCP client: run_code is described for Python and runs a Python program over the tools.
import { afterAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { PTC_BIN } from '../mcp/helpers.ts';

describe('ptc serve --guest python (stdio)', () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--no-node-snapshot', PTC_BIN, 'serve', '--mode', 'ptc', '--guest', 'python'],
    env: { ...(process.env as Record<string, string>), NODE_OPTIONS: '' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'python-serve', version: '1' });

  afterAll(async () => {
    await client.close();
  });

  it('lists run_code with the Python SDK and runs a Python program', async () => {
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['run_code']);
    expect(tools[0]!.description).toMatch(/^Run Python: /);
    expect(tools[0]!.description).toContain('def list_customers(');
    const result = (await client.callTool(
      { name: 'run_code', arguments: { description: 'count EU customers', code: 'len(list_customers(region="EU"))' } },
      undefined,
      { timeout: 60_000 },
    )) as CallToolResult;
    expect(result.isError).not.toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: '16' }]);
  }, 60_000);
});
