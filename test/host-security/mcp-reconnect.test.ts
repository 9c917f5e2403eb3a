// A stdio MCP connection that the SDK closes after the import — one reply over
// maxMessageBytes (say, a tool that reads a large file) — is opened again by the next
// call. Before, that one reply left every tool of the server failing "Not connected" for
// the host's lifetime.
import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { createToolRuntime } from '../../src/index.ts';
import { importMcpTools } from '../../src/mcp/import-mcp-tools.ts';

const HOSTILE_SERVER = fileURLToPath(new URL('./fixtures/hostile-mcp-server.ts', import.meta.url));

describe('an MCP connection lost to an oversized reply', () => {
  it('fails that call, and the next calls reconnect and work', async () => {
    const rt = createToolRuntime({ mode: 'both' });
    const imported = await importMcpTools(rt, {
      servers: [{ command: process.execPath, args: ['--no-warnings', HOSTILE_SERVER, 'huge-result'] }],
      onWarning: () => {},
    });
    try {
      const before = await rt.execute({ callId: 'c0', name: 'lookup', arguments: { q: 'x' } });
      expect(before).toMatchObject({ isError: false, value: 'called lookup' });
      const big = await rt.execute({ callId: 'c1', name: 'lookup', arguments: { q: 'big' } });
      expect(big.isError).toBe(true);
      // Two calls at once share one reconnect.
      const [a, b] = await Promise.all([
        rt.execute({ callId: 'c2', name: 'lookup', arguments: { q: 'y' } }),
        rt.execute({ callId: 'c3', name: 'search', arguments: { q: 'z' } }),
      ]);
      expect(a).toMatchObject({ isError: false, value: 'called lookup' });
      expect(b).toMatchObject({ isError: false, value: 'called search' });
      const nested = await rt.execute({
        callId: 'c4',
        name: 'run_code',
        arguments: { description: 'd', code: 'return await tools.lookup({ q: "n" });' },
      });
      expect(nested).toMatchObject({ isError: false, value: { result: 'called lookup' } });
    } finally {
      await imported.close();
      await rt.close();
    }
  }, 60_000);
});
