// Shutdown of `serveMcpHttp` has a deadline: close() lets requests in flight finish for
// drainTimeoutMs at most, then closes their connections. Before, one request that never
// finished (a client that never reads its answer, a body that ignores its abort) kept
// SIGTERM from ever completing.
import { describe, expect, it } from '@jest/globals';
import { createToolRuntime, defineTool } from '../../src/index.ts';
import { serveMcpHttp } from '../../src/mcp/index.ts';

const TOKEN = 'drain-test-token-0123456789';

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

  it('checks drainTimeoutMs', async () => {
    const rt = createToolRuntime({ mode: 'native', sandbox: false });
    await expect(serveMcpHttp(rt, { token: TOKEN, drainTimeoutMs: -1 })).rejects.toThrow(/drainTimeoutMs must be/);
  });
});
