// A remote MCP server (Streamable HTTP) that answers calls with event-stream headers and
// then nothing, and holds its GET stream open: each call's socket is closed when the call
// times out or is aborted, a stream the server keeps open after its response is closed
// soon after, and close() closes every socket of the connection. Sockets are counted on
// the server side.
import { afterEach, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createToolRuntime } from '../../src/index.ts';
import { createMcpHttpPool, RESPONDED_STREAM_GRACE_MS } from '../../src/mcp/mcp-http-pool.ts';
import { connectMcpServer } from '../../src/mcp/index.ts';

const CHILD = fileURLToPath(new URL('./fixtures/mcp-remote-close.ts', import.meta.url));

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

interface HostileServer {
  readonly url: string;
  /** Sockets open now. */
  open(): number;
  /** Sockets whose last request was a tools/call (its response never ended). */
  openCalls(): number;
  calls(): number;
}

/**
 * initialize and tools/list answered as JSON; the GET stream held open; tools/call
 * answered with event-stream headers and nothing more (`headers`), with nothing at all
 * (`silent`), or with its result event and the stream still held open (`respondThenHold`).
 */
async function hostileServer(mode: 'headers' | 'silent' | 'respondThenHold' = 'headers'): Promise<HostileServer> {
  const sockets = new Set<Socket>();
  const lastMethod = new Map<Socket, string>();
  let calls = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      lastMethod.set(req.socket, req.method ?? '');
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        return;
      }
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const message = JSON.parse(body) as { id?: number; method: string };
      lastMethod.set(req.socket, message.method);
      const json = (result: unknown): void => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      };
      if (message.method === 'initialize')
        return json({
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'h', version: '1' },
        });
      if (message.id === undefined) return void res.writeHead(202).end();
      if (message.method === 'tools/list') return json({ tools: [{ name: 'hang', inputSchema: { type: 'object' } }] });
      calls += 1;
      if (mode === 'silent') return;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      if (mode === 'respondThenHold') {
        const result = { content: [{ type: 'text', text: 'ok' }] };
        res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n\n`);
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    open: () => sockets.size,
    openCalls: () => [...sockets].filter((s) => lastMethod.get(s) === 'tools/call').length,
    calls: () => calls,
  };
}

/** Polls `probe` until it returns 0, or gives up after `withinMs` and returns its last value. */
async function settlesToZero(probe: () => number, withinMs: number): Promise<number> {
  const until = Date.now() + withinMs;
  while (probe() !== 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 25));
  return probe();
}

describe('a remote MCP server that never finishes its answers', () => {
  it.each([
    ['event-stream headers, then nothing', 'headers'],
    ['nothing at all', 'silent'],
  ] as const)(
    "closes a call's socket when the call times out, and every socket at close() (the server sends %s)",
    async (_what, mode) => {
      const server = await hostileServer(mode);
      const connection = await connectMcpServer({ url: server.url, timeoutMs: 400 });
      const rt = createToolRuntime({ mode: 'native', sandbox: false });
      rt.register(connection.tools[0]!);
      try {
        for (let i = 0; i < 3; i++) {
          const result = await rt.execute({ callId: `c${i}`, name: 'hang', arguments: {} });
          expect(result.isError).toBe(true);
        }
        expect(server.calls()).toBe(3);
        expect(await settlesToZero(server.openCalls, 3_000)).toBe(0);
        // The GET stream is still open: the connection lives.
        expect(server.open()).toBeGreaterThan(0);
      } finally {
        await rt.close();
        await connection.close();
      }
      expect(await settlesToZero(server.open, 2_000)).toBe(0);
    },
  );

  it("closes a call's socket when the call is aborted", async () => {
    const server = await hostileServer();
    const connection = await connectMcpServer({ url: server.url, timeoutMs: 60_000 });
    const rt = createToolRuntime({ mode: 'native', sandbox: false });
    rt.register(connection.tools[0]!);
    try {
      const stop = new AbortController();
      const pending = rt.execute({ callId: 'a', name: 'hang', arguments: {}, signal: stop.signal });
      while (server.openCalls() === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      stop.abort();
      expect((await pending).isError).toBe(true);
      expect(await settlesToZero(server.openCalls, 3_000)).toBe(0);
    } finally {
      await rt.close();
      await connection.close();
    }
    expect(await settlesToZero(server.open, 2_000)).toBe(0);
  });

  it(`closes a stream the server holds open after its response (within ${RESPONDED_STREAM_GRACE_MS} ms)`, async () => {
    const server = await hostileServer('respondThenHold');
    const connection = await connectMcpServer({ url: server.url, timeoutMs: 60_000 });
    try {
      const result = await connection.client.callTool({ name: 'hang', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'ok' }]);
      expect(server.openCalls()).toBe(1);
      expect(await settlesToZero(server.openCalls, RESPONDED_STREAM_GRACE_MS + 4_000)).toBe(0);
    } finally {
      await connection.close();
    }
    expect(await settlesToZero(server.open, 2_000)).toBe(0);
  });

  it('lets a host process end on its own after a timed-out call and close()', async () => {
    const server = await hostileServer();
    const env = { ...process.env };
    delete env['NODE_OPTIONS'];
    const started = Date.now();
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--no-node-snapshot', '--no-warnings', CHILD, server.url],
        { env, timeout: 60_000 },
        (error, out, err) =>
          error === null ? resolve({ stdout: out, stderr: err }) : reject(new Error(`${String(error)}\n${err}`)),
      );
    });
    expect(stderr).toBe('');
    expect(stdout).toContain('DONE');
    expect(stdout).toContain('timed out');
    // Generous: the child needs well under 5 s (import, a 300 ms timeout, close) and then ends.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(await settlesToZero(server.open, 2_000)).toBe(0);
  });

  it("goes through HTTP_PROXY when Node's own fetch would (NODE_USE_ENV_PROXY=1)", async () => {
    const seen: string[] = [];
    const proxy = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    servers.push(proxy);
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const saved = { use: process.env['NODE_USE_ENV_PROXY'], proxy: process.env['HTTP_PROXY'] };
    process.env['NODE_USE_ENV_PROXY'] = '1';
    process.env['HTTP_PROXY'] = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const pool = createMcpHttpPool();
    try {
      const response = await pool.fetch('http://tools.example.invalid/mcp', { method: 'POST', body: '{}' });
      expect(response.status).toBe(200);
      expect(seen).toEqual(['http://tools.example.invalid/mcp']);
    } finally {
      await pool.close();
      for (const [name, value] of [
        ['NODE_USE_ENV_PROXY', saved.use],
        ['HTTP_PROXY', saved.proxy],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
