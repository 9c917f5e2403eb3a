// `serveMcpHttp` with the MCP SDK's real client over its Streamable HTTP transport, on
// 127.0.0.1 port 0: listing and run_code, live progress notifications, the bearer token
// (401 runs nothing), Host/Origin checks, the body limit (413), stateless methods and
// the graceful close that lets a call in flight finish.
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { createSandbox } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import { createToolRuntime, type ToolRuntime } from '../../src/index.ts';
import { serveMcpHttp, type McpHttpServer, type ServeMcpHttpOptions } from '../../src/mcp/index.ts';
import { gatedDoubler } from '../support/gated-tool.ts';
import tools from './fixtures/tools.ts';

const TOKEN = 'test-token-0123456789abcdef';
let sandbox: Sandbox | undefined;
const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});
afterAll(async () => {
  await sandbox?.close();
});

async function start(options: Partial<ServeMcpHttpOptions> = {}, mode: 'ptc' | 'native' | 'both' = 'ptc') {
  sandbox ??= createSandbox();
  const rt: ToolRuntime = createToolRuntime({ mode, sandbox });
  for (const t of tools) rt.register(t);
  const gated = gatedDoubler();
  rt.register(gated.tool);
  const server = await serveMcpHttp(rt, { token: TOKEN, host: '127.0.0.1', port: 0, ...options });
  open.push(async () => {
    await server.close();
    await rt.close();
  });
  return { rt, server, gated };
}

async function connectClient(server: McpHttpServer, token = TOKEN): Promise<Client> {
  const client = new Client({ name: 'test', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  open.push(() => client.close());
  return client;
}

/** One raw HTTP request (node:http, so any Host header can be sent). */
function raw(
  server: McpHttpServer,
  options: { method?: string; headers?: Record<string, string>; body?: string; path?: string },
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: server.port,
        path: options.path ?? '/mcp',
        method: options.method ?? 'POST',
        headers: options.headers ?? {},
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const callSlow = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'slow', arguments: { n: 1 } },
});

describe('serveMcpHttp: the official Streamable HTTP client', () => {
  it('lists the tools and runs run_code', async () => {
    const { server } = await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await connectClient(server);
    const { tools: listed } = await client.listTools();
    expect(listed.map((t) => t.name)).toEqual(['run_code']);
    expect(listed[0]!.description).toContain('declare const tools');
    const result = (await client.callTool({
      name: 'run_code',
      arguments: {
        description: 'Add',
        code: 'const r = await tools.add({ a: 2, b: 3 }); console.log("sum", r.sum); return r.sum * 10;',
      },
    })) as CallToolResult;
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual({ logs: ['sum 5'], result: 50 });
  });

  it('sends progress notifications (log lines, call counts) while the run waits on a slow tool', async () => {
    const { server, gated } = await start();
    const client = await connectClient(server);
    const progress: Progress[] = [];
    const result = (await client.callTool(
      {
        name: 'run_code',
        arguments: {
          description: 'Slow double',
          code: `console.log('starting'); const v = await tools.slow({ n: 21 }); console.log('done', v); return v;`,
        },
      },
      CallToolResultSchema,
      {
        onprogress: (p) => {
          progress.push(p);
          // The tool answers only after the client has seen the call start live.
          if (p.message?.startsWith('call 1 slow started') === true) gated.open();
        },
      },
    )) as CallToolResult;
    expect(result.structuredContent).toEqual({ logs: ['starting', 'done 42'], result: 42 });
    expect(progress.map((p) => [p.progress, p.message])).toEqual([
      [1, 'starting'],
      [2, 'call 1 slow started (calls: 1 started, 0 finished)'],
      [3, 'call 1 slow finished (calls: 1 started, 1 finished)'],
      [4, 'done 42'],
    ]);
  });

  it('sends no progress when the request carries no progressToken', async () => {
    const { server, rt } = await start();
    let logEvents = 0;
    rt.on('run/log', () => (logEvents += 1));
    const client = await connectClient(server);
    const notifications: unknown[] = [];
    client.fallbackNotificationHandler = async (n) => {
      notifications.push(n);
    };
    const result = (await client.callTool({
      name: 'run_code',
      arguments: { description: 'Log', code: 'console.log("x"); return 1;' },
    })) as CallToolResult;
    expect(result.structuredContent).toEqual({ logs: ['x'], result: 1 });
    expect(logEvents).toBe(1);
    expect(notifications).toEqual([]);
  });
});

describe('serveMcpHttp: access', () => {
  it('answers 401 without a token or with a wrong one, and runs nothing', async () => {
    const { server, gated } = await start({}, 'native');
    gated.open();
    for (const authorization of [
      undefined,
      `Bearer wrong-${TOKEN}`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Basic ${TOKEN}`,
      TOKEN,
    ]) {
      const response = await raw(server, {
        headers: { ...MCP_HEADERS, ...(authorization === undefined ? {} : { authorization }) },
        body: callSlow,
      });
      expect([authorization, response.status]).toEqual([authorization, 401]);
      expect(response.headers['www-authenticate']).toBe('Bearer');
    }
    expect(gated.started()).toBe(0);
    // The official client gets a 401 too.
    await expect(connectClient(server, 'not-the-token-at-all')).rejects.toThrow(/401|Unauthorized/);
    // And the right token runs it.
    const ok = await raw(server, { headers: { ...MCP_HEADERS, authorization: `Bearer ${TOKEN}` }, body: callSlow });
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('"isError":false');
    expect(gated.started()).toBe(1);
  });

  it('refuses an oversized body with 413 without running it', async () => {
    const { server, gated } = await start({ maxBodyBytes: 2_048 }, 'native');
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'slow', arguments: { n: 1, pad: 'x'.repeat(4_096) } },
    });
    const response = await raw(server, { headers: { ...MCP_HEADERS, authorization: `Bearer ${TOKEN}` }, body: big });
    expect(response.status).toBe(413);
    expect(response.body).toMatch(/2048 bytes/);
    expect(gated.started()).toBe(0);
  });

  it('refuses a foreign Host or Origin (DNS-rebinding protection), other paths and methods', async () => {
    const { server } = await start();
    const auth = { ...MCP_HEADERS, authorization: `Bearer ${TOKEN}` };
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect((await raw(server, { headers: { ...auth, host: `evil.example:${server.port}` }, body: list })).status).toBe(
      403,
    );
    expect((await raw(server, { headers: { ...auth, origin: 'http://evil.example' }, body: list })).status).toBe(403);
    expect((await raw(server, { headers: { ...auth, host: `localhost:${server.port}` }, body: list })).status).toBe(
      200,
    );
    expect((await raw(server, { headers: auth, body: list, path: '/other' })).status).toBe(404);
    const get = await raw(server, { method: 'GET', headers: auth });
    expect([get.status, get.headers['allow']]).toEqual([405, 'POST']);
  });

  it('allows a listed Origin and Host name', async () => {
    const { server } = await start({ allowedOrigins: ['https://app.example'], allowedHosts: ['mcp.example'] });
    const headers = {
      ...MCP_HEADERS,
      authorization: `Bearer ${TOKEN}`,
      origin: 'https://app.example',
      host: `mcp.example:${server.port}`,
    };
    const response = await raw(server, {
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(200);
  });

  it('refuses bad settings before binding: a short token, a wildcard address without allowed hosts', async () => {
    const rt = createToolRuntime({ sandbox: false });
    open.push(() => rt.close());
    await expect(serveMcpHttp(rt, { token: 'short', port: 0 })).rejects.toThrow(/at least 16 characters/);
    await expect(serveMcpHttp(rt, { token: undefined as unknown as string, port: 0 })).rejects.toThrow(
      /token must be a string/,
    );
    await expect(serveMcpHttp(rt, { token: TOKEN, host: '0.0.0.0', port: 0 })).rejects.toThrow(/needs allowedHosts/);
  });
});

describe('serveMcpHttp: graceful close', () => {
  it('finishes a call in flight, refuses new requests meanwhile, then stops listening', async () => {
    const { server, gated } = await start({}, 'native');
    const client = await connectClient(server);
    const running = client.callTool({ name: 'slow', arguments: { n: 5 } }) as Promise<CallToolResult>;
    while (gated.started() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const closed = server.close();
    let closedYet = false;
    void closed.then(() => (closedYet = true));
    // New work is refused while the call in flight drains.
    const late = await raw(server, {
      headers: { ...MCP_HEADERS, authorization: `Bearer ${TOKEN}` },
      body: callSlow,
    }).then(
      (response) => String(response.status),
      (error: NodeJS.ErrnoException) => String(error.code),
    );
    expect(['503', 'ECONNREFUSED']).toContain(late);
    expect(closedYet).toBe(false);
    gated.open();
    const result = await running;
    expect(result.structuredContent).toEqual({ value: 10 }); // a number travels wrapped (issue 21)
    expect(result.content).toEqual([{ type: 'text', text: '10' }]);
    await closed;
    expect(gated.started()).toBe(1);
    await expect(raw(server, { headers: MCP_HEADERS, body: callSlow })).rejects.toThrow(/ECONNREFUSED/);
  });
});
