// A remote MCP server (Streamable HTTP) that misbehaves after the import: an error page
// that echoes the request headers (the --mcp-header secrets), a reply event larger than
// maxMessageBytes (reported as that at once, not as a timeout at the deadline), and a
// stream that asks for reconnects with `retry: 0` (a floor of MIN_RECONNECT_MS between them).
import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { boundedFetch, MIN_RECONNECT_MS } from '../../src/mcp/bounded-fetch.ts';
import { connectMcpServer } from '../../src/mcp/index.ts';
import { createToolRuntime, type Tool } from '../../src/index.ts';

const SECRET = 'Bearer s3cr3t-header-value-0123456789';
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

/** The tool's result text through a runtime, as a program or model sees it. */
async function callThrough(tool: Tool): Promise<string> {
  const rt = createToolRuntime({ mode: 'native', sandbox: false });
  rt.register(tool);
  const result = await rt.execute({ callId: 'c', name: tool.name, arguments: {} });
  await rt.close();
  return result.isError ? `${result.error?.code}: ${result.error?.message}` : 'ok';
}

const BIG = { name: 'big', description: 'Big.', inputSchema: { type: 'object' } };

type Handler = (message: { id?: number; method: string }, req: IncomingMessage, res: ServerResponse) => void;

/** A hand-written MCP server: initialize and tools/list answered as JSON, tools/call by `onCall`. */
async function fakeServer(onCall: Handler, onError = false, listed: string = JSON.stringify([BIG])): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (onError) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`upstream failed; your request headers were: ${JSON.stringify(req.headers)}`);
        return;
      }
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const message = JSON.parse(body) as { id?: number; method: string };
      const json = (result: unknown): void => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      };
      if (message.method === 'initialize')
        return json({
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'fake', version: '1' },
        });
      if (message.id === undefined) return void res.writeHead(202).end();
      if (message.method === 'tools/list') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"jsonrpc":"2.0","id":${message.id},"result":{"tools":${listed}}}`);
        return;
      }
      onCall(message, req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

describe('a hostile remote MCP server', () => {
  it('never gets the --mcp-header values printed: an error page echoing them is redacted', async () => {
    const url = await fakeServer(() => {}, true);
    const error = await connectMcpServer({ url, headers: { Authorization: SECRET } }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error!.message).toContain('[redacted]');
    expect(error!.message).not.toContain('s3cr3t-header-value');
    expect(String((error as Error & { cause?: Error }).cause?.message)).not.toContain('s3cr3t-header-value');
  });

  it('redacts a header value echoed by a failed call', async () => {
    const url = await fakeServer((_m, req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`no: ${String(req.headers['x-api-key'])}`);
    });
    const connection = await connectMcpServer({ url, headers: { 'X-Api-Key': 'k3y-0123456789abcdef' } });
    try {
      const error = await connection.client.callTool({ name: 'big', arguments: {} }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      // The SDK client itself is not ours; our tool's caller is what a program reaches.
      expect(error?.message ?? '').toContain('k3y-0123456789abcdef');
      const result = await callThrough(connection.tools[0]!);
      expect(result).not.toContain('k3y-0123456789abcdef');
      expect(result).toContain('[redacted]');
    } finally {
      await connection.close();
    }
  });

  it('reports a reply event over maxMessageBytes at once, not at the call deadline', async () => {
    const url = await fakeServer((_m, _req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${'x'.repeat(2 * 1_048_576)}`);
      // …and never ends the event.
    });
    const connection = await connectMcpServer({ url, timeoutMs: 30_000 }, { limits: { maxMessageBytes: 1_048_576 } });
    try {
      const started = Date.now();
      const message = await callThrough(connection.tools[0]!);
      // Half the call's 30 s deadline: a loaded machine's slowness never comes near it.
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(message).toContain('limits.maxMessageBytes');
    } finally {
      await connection.close();
    }
  });

  it(`waits at least ${MIN_RECONNECT_MS} ms between two GET streams (a server's retry: 0)`, async () => {
    let gets = 0;
    const fetchGet = boundedFetch(1_000, async () => {
      gets += 1;
      return new Response('retry: 0\n\n', { headers: { 'content-type': 'text/event-stream' } });
    });
    const started = performance.now();
    for (let i = 0; i < 3; i++) await fetchGet('http://x', { method: 'GET' });
    expect(gets).toBe(3);
    expect(performance.now() - started).toBeGreaterThanOrEqual(2 * MIN_RECONNECT_MS - 20);
    // POSTs are not held: one right after a GET answers before a timer could fire (a held
    // one would wait ~1 s; a wall-clock bound would also count a loaded machine's stalls).
    let timer: ReturnType<typeof setTimeout> | undefined;
    const held = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('held'), MIN_RECONNECT_MS / 2)));
    const sent = fetchGet('http://x', { method: 'POST' }).then(() => 'sent');
    expect(await Promise.race([sent, held])).toBe('sent');
    clearTimeout(timer);
  });

  it('skips one tool whose schema nests 5,000 levels, with a warning, and imports the rest', async () => {
    // Written as text: JSON.stringify itself cannot nest 5,000 levels.
    const deep = `${'{"type":"object","properties":{"x":'.repeat(5_000)}{"type":"string"}${'}}'.repeat(5_000)}`;
    const url = await fakeServer(
      (m, _req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'ok' }] } }));
      },
      false,
      `[{"name":"deep","inputSchema":{"type":"object","properties":{"d":${deep}}}},${JSON.stringify(BIG)}]`,
    );
    const warnings: string[] = [];
    const connection = await connectMcpServer({ url }, { onWarning: (w) => warnings.push(w) });
    try {
      expect(connection.tools.map((t) => t.name)).toEqual(['big']);
      expect(connection.skipped.map((s) => s.tool)).toEqual(['deep']);
      expect(warnings.join('\n')).toContain('skipped tool "deep"');
      expect(await callThrough(connection.tools[0]!)).toBe('ok');
    } finally {
      await connection.close();
    }
  });
});
