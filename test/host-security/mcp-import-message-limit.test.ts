// During an MCP import, one server-sent event over maxMessageBytes from a plain HTTP
// server ends the import at once with the message limit, whichever stream carries it —
// the handshake's reply, a tools/list reply, or the server-to-client GET stream — and
// not at the import's deadline as a timeout.
import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectMcpServer } from '../../src/mcp/index.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

const LIMIT = 10 * 1_048_576;

/** Starts an event stream and sends one event larger than the default limit, never ending it. */
function oversizedEvent(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = 'x'.repeat(1_048_576);
  res.write('event: message\ndata: ');
  for (let i = 0; i < 11; i++) res.write(chunk);
}

type Where = 'initialize' | 'tools/list' | 'GET stream';

/** A plain HTTP server that speaks just enough MCP; the oversized event comes where `where` says. */
async function plainServer(where: Where): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method === 'GET') {
        if (where === 'GET stream') return oversizedEvent(res);
        return void res.writeHead(405).end();
      }
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const message = JSON.parse(body) as { id?: number; method: string };
      if (message.id === undefined) return void res.writeHead(202).end();
      if (message.method === where) return oversizedEvent(res);
      if (message.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: message.id,
            result: {
              protocolVersion: '2025-06-18',
              capabilities: { tools: {} },
              serverInfo: { name: 'p', version: '1' },
            },
          }),
        );
        return;
      }
      // tools/list while the GET stream is the oversized one: never answered.
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

describe('an MCP import from a server that sends one event over maxMessageBytes', () => {
  for (const where of ['initialize', 'tools/list', 'GET stream'] as const) {
    it(`stops at once with the message limit when the event is on the ${where}`, async () => {
      const url = await plainServer(where);
      // A deadline beyond the test's own: only the message limit can end this import in time.
      const error = await connectMcpServer({ url }, { limits: { timeoutMs: 600_000 } }).then(
        () => undefined,
        (e: unknown) => e as Error & { code?: string; details?: { limit?: string } },
      );
      expect(error?.code).toBe('MCP_IMPORT_LIMIT');
      expect(error?.details?.limit).toBe('maxMessageBytes');
      expect(error?.message).toContain(`sent one message larger than ${LIMIT} bytes (limits.maxMessageBytes)`);
    });
  }
});
