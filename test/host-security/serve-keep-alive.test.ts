// How long `serveMcpHttp` keeps an idle kept-alive connection (keepAliveTimeoutMs): behind a
// proxy that reuses connections, the server must not close one sooner than the proxy
// expects (the proxy's next request on it is then reset). The setting is what the server
// tells clients (`Keep-Alive: timeout=<s>`) and what it does (an idle connection is closed
// after it); out-of-range values are refused before anything listens.
import { describe, expect, it } from '@jest/globals';
import { connect } from 'node:net';
import { createToolRuntime } from '../../src/index.ts';
import { serveMcpHttp } from '../../src/mcp/index.ts';
import { keepAliveHeader } from '../support/keep-alive-header.ts';

const TOKEN = 'keep-alive-test-token-0123456789';

describe('serveMcpHttp keepAliveTimeoutMs', () => {
  it("tells clients Node's 5 s by default and the configured time otherwise", async () => {
    const rt = createToolRuntime({ mode: 'native', sandbox: false });
    const plain = await serveMcpHttp(rt, { token: TOKEN });
    const long = await serveMcpHttp(rt, { token: TOKEN, keepAliveTimeoutMs: 65_000 });
    try {
      expect(await keepAliveHeader(plain.url)).toBe('timeout=5');
      expect(await keepAliveHeader(long.url)).toBe('timeout=65');
    } finally {
      await Promise.all([plain.close(), long.close()]);
      await rt.close();
    }
  });

  it('closes a connection idle for keepAliveTimeoutMs after its answer', async () => {
    const rt = createToolRuntime({ mode: 'native', sandbox: false });
    const server = await serveMcpHttp(rt, { token: TOKEN, keepAliveTimeoutMs: 200 });
    const socket = connect(server.port, '127.0.0.1');
    socket.on('error', () => {});
    try {
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write('GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
      // The server closes it, not the client: nothing here ends the socket.
      await closed;
      expect(answer).toMatch(/^HTTP\/1\.1 401 /);
      expect(answer).not.toMatch(/\r\nconnection: close\r\n/i);
    } finally {
      socket.destroy();
      await server.close();
      await rt.close();
    }
  });

  it('refuses a time that is not an integer from 1 to 600000 ms, naming the option and the range', async () => {
    const rt = createToolRuntime({ mode: 'native', sandbox: false });
    try {
      for (const bad of [0, -1, 1.5, 600_001, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(serveMcpHttp(rt, { token: TOKEN, keepAliveTimeoutMs: bad })).rejects.toThrow(
          new TypeError(`serveMcpHttp: keepAliveTimeoutMs must be an integer 1–600000 (ms), got ${String(bad)}`),
        );
      }
      const longest = await serveMcpHttp(rt, { token: TOKEN, keepAliveTimeoutMs: 600_000 });
      expect(await keepAliveHeader(longest.url)).toBe('timeout=600');
      await longest.close();
    } finally {
      await rt.close();
    }
  });
});
