// Shutdown of `serveMcpHttp` has a deadline: close() lets requests in flight finish for
// drainTimeoutMs at most, then closes their connections. Before, one request that never
// finished (a client that never reads its answer, a body that ignores its abort) kept
// SIGTERM from ever completing. Only requests with a valid token are waited for: a client
// without one (pipelining requests it never reads the answers to, or sending half a
// request) is disconnected at shutdown start.
import { describe, expect, it } from '@jest/globals';
import { connect, type Socket } from 'node:net';
import { createToolRuntime, defineTool } from '../../src/index.ts';
import { serveMcpHttp } from '../../src/mcp/index.ts';

const TOKEN = 'drain-test-token-0123456789';
const OPERATOR = 'drain-test-operator-0123456789';

/**
 * A raw connection that sends `text`; `answered`: it waits for the first answer and then
 * reads no more (its 'close' then waits for a read: not awaited for it).
 */
async function rawClient(
  port: number,
  text: string,
  answered: boolean,
): Promise<{ socket: Socket; closed: Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise((resolve) => socket.once('connect', resolve));
  // The server answered the first request: the pipeline is being served; then nothing is read.
  const first = new Promise((resolve) => socket.once('data', resolve));
  socket.write(text);
  if (answered) {
    await first;
    socket.pause();
  }
  return { socket, closed };
}

/** Requests a client without a token pipelines: the approvals page (signed out) and the MCP endpoint (401). */
const UNAUTHENTICATED_FLOOD =
  'GET /runs HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'.repeat(20_000) +
  'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}'.repeat(20_000);
const HALF_SENT = 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ';

const stubbornTool = (onRelease: (release: () => void) => void) =>
  defineTool({
    name: 'stubborn',
    description: 'Ignores its abort.',
    parameters: {},
    output: { schema: { type: 'json' }, render: () => [] },
    execute: () => new Promise<null>((resolve) => onRelease(() => resolve(null))),
  });

function callStubborn(url: string): Promise<string> {
  return fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'stubborn', arguments: {} } }),
  }).then(
    async (r) => r.text(),
    () => 'closed',
  );
}

describe('serveMcpHttp close() deadline', () => {
  it('resolves within drainTimeoutMs while a request is still in flight', async () => {
    const rt = createToolRuntime({ mode: 'native', sandbox: false, timeoutPolicy: false });
    let release: () => void = () => {};
    rt.register(
      defineTool({
        name: 'stubborn',
        description: 'Ignores its abort.',
        parameters: {},
        output: { schema: { type: 'json' }, render: () => [] },
        execute: () => new Promise<null>((resolve) => (release = () => resolve(null))),
      }),
    );
    const server = await serveMcpHttp(rt, { token: TOKEN, drainTimeoutMs: 500 });
    const answer = fetch(server.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'stubborn', arguments: {} },
      }),
    }).then(
      async (r) => r.text(),
      () => 'closed',
    );
    while (server.inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const started = Date.now();
    await server.close();
    // Not the 30 s default, nor never; generous for a loaded machine.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    await answer.catch(() => 'closed');
    release();
    await rt.close();
  });

  it('is not held by a client without a token, however many answers it leaves unread', async () => {
    const rt = createToolRuntime({ mode: 'native', sandbox: false });
    // A deadline beyond the test's own: only closing these connections at once ends close() in time.
    const server = await serveMcpHttp(rt, { token: TOKEN, operatorToken: OPERATOR, drainTimeoutMs: 600_000 });
    const flood = await rawClient(server.port, UNAUTHENTICATED_FLOOD, true);
    const half = await rawClient(server.port, HALF_SENT, false);
    expect(server.inFlight).toBe(0);
    await server.close();
    await half.closed;
    flood.socket.destroy();
    await rt.close();
  });

  it('closes unauthenticated connections at shutdown start while it waits for an authenticated call', async () => {
    const rt = createToolRuntime({ mode: 'native', sandbox: false, timeoutPolicy: false });
    let release: () => void = () => {};
    rt.register(stubbornTool((r) => (release = r)));
    const server = await serveMcpHttp(rt, { token: TOKEN, operatorToken: OPERATOR, drainTimeoutMs: 600_000 });
    const answer = callStubborn(server.url);
    while (server.inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const flood = await rawClient(server.port, UNAUTHENTICATED_FLOOD, true);
    const half = await rawClient(server.port, HALF_SENT, false);
    const closing = server.close();
    // The half-sent request's connection is gone while the authenticated call still runs:
    // the drain waits for that call alone.
    await half.closed;
    expect(server.inFlight).toBe(1);
    flood.socket.destroy();
    release();
    await closing;
    expect(await answer).toContain('"result"');
    await rt.close();
  });

  it('checks drainTimeoutMs', async () => {
    const rt = createToolRuntime({ mode: 'native', sandbox: false });
    await expect(serveMcpHttp(rt, { token: TOKEN, drainTimeoutMs: -1 })).rejects.toThrow(/drainTimeoutMs must be/);
  });
});
