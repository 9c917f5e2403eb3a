// Values and error codes survive an MCP hop: a program that calls tools directly, through
// a `ptc serve` child over stdio, and through an HTTP server, gets the same JSON (an array
// stays an array, a number a number, null null, an object under an any-JSON schema an
// object) and the same `e.code`.
import { afterAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fileURLToPath } from 'node:url';
import { createSandbox } from '../../sandbox/index.ts';
import { createToolRuntime, type ToolRuntime } from '../../src/index.ts';
import { importMcpTools, serveMcpHttp } from '../../src/mcp/index.ts';
import hopTools from './fixtures/hop-tools.ts';
import { commandLine, PTC_BIN } from './helpers.ts';

const HOP_TOOLS = fileURLToPath(new URL('./fixtures/hop-tools.ts', import.meta.url));
const TOKEN = 'chained-values-token-0123456789';
const sandbox = createSandbox();
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await sandbox.close();
});

const PROGRAM = `
  const ids = await tools.list_ids({});
  const n = await tools.count({});
  const none = await tools.nothing({});
  const profile = await tools.profile({});
  let code;
  try { await tools.refuse({}); } catch (e) { code = e.code; }
  return { ids, isArray: Array.isArray(ids), length: ids.length, n: n + 1, none, profile, code };
`;

async function run(rt: ToolRuntime): Promise<unknown> {
  const result = await rt.execute({ callId: 'r', name: 'run_code', arguments: { description: 'hop', code: PROGRAM } });
  return result.value;
}

const EXPECTED = {
  logs: [],
  result: {
    ids: ['a1', 'a2', 'a3'],
    isArray: true,
    length: 3,
    n: 43,
    none: null,
    profile: { name: 'ada', tags: ['x'] },
    code: 'DENIED',
  },
};

describe('values and codes through an MCP hop', () => {
  it('direct', async () => {
    const rt = createToolRuntime({ mode: 'ptc', sandbox });
    closers.push(() => rt.close());
    for (const t of hopTools) rt.register(t);
    expect(await run(rt)).toEqual(EXPECTED);
  });

  it('through `ptc serve` over stdio', async () => {
    const rt = createToolRuntime({ mode: 'ptc', sandbox });
    const imported = await importMcpTools(rt, {
      servers: [commandLine(PTC_BIN, 'serve', '--mode', 'native', '--tools', HOP_TOOLS)],
      onWarning: () => {},
    });
    closers.push(async () => {
      await Promise.all(imported.connections.map((c) => c.close()));
      await rt.close();
    });
    expect(await run(rt)).toEqual(EXPECTED);
    // The SDK types the array as an array, not JsonValue.
    expect(rt.sdk()).toMatch(/ list_ids: Tool<[^\n]*, string\[\]>;/);
  }, 60_000);

  it('through serveMcpHttp', async () => {
    const upstream = createToolRuntime({ mode: 'native', sandbox: false });
    for (const t of hopTools) upstream.register(t);
    const server = await serveMcpHttp(upstream, { token: TOKEN });
    const rt = createToolRuntime({ mode: 'ptc', sandbox });
    const imported = await importMcpTools(rt, {
      servers: [{ url: server.url, headers: { Authorization: `Bearer ${TOKEN}` } }],
      onWarning: () => {},
    });
    closers.push(async () => {
      await Promise.all(imported.connections.map((c) => c.close()));
      await rt.close();
      await server.close();
      await upstream.close();
    });
    expect(await run(rt)).toEqual(EXPECTED);
  }, 60_000);

  it('the official client accepts every result against its listed outputSchema (an object under an any-JSON schema is wrapped too)', async () => {
    const upstream = createToolRuntime({ mode: 'native', sandbox: false });
    for (const t of hopTools) upstream.register(t);
    const server = await serveMcpHttp(upstream, { token: TOKEN });
    const client = new Client({ name: 'official-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    closers.push(async () => {
      await client.close();
      await server.close();
      await upstream.close();
    });
    await client.listTools(); // the client validates structuredContent against what it listed
    const profile = await client.callTool({ name: 'profile', arguments: {} });
    expect(profile.structuredContent).toEqual({ value: { name: 'ada', tags: ['x'] } });
    const ids = await client.callTool({ name: 'list_ids', arguments: {} });
    expect(ids.structuredContent).toEqual({ value: ['a1', 'a2', 'a3'] });
  }, 60_000);
});
