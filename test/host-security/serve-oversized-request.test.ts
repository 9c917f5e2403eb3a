// `ptc serve` (a real child process) against request lines over its 10 MiB limit: each
// is answered with a JSON-RPC error for its id and dropped, and serving goes on; the
// server's heap stays bounded and it exits 0 when the client leaves.
import { describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { BoundedLines, requestIdOf, type OversizedLine } from '../../src/mcp/bounded-lines.ts';
import { PTC_BIN } from '../mcp/helpers.ts';

const TOOLS = fileURLToPath(new URL('../mcp/fixtures/tools.ts', import.meta.url));
const MiB = 1_048_576;

/** Peak resident memory of a live process, from /proc. */
const peakRssMb = (pid: number): number => Number(/VmHWM:\s+(\d+) kB/u.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

describe('ptc serve and oversized requests', () => {
  it('answers each oversized request with -32600 for its id, keeps serving, stays bounded, exits 0', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--no-node-snapshot', '--max-old-space-size=160', PTC_BIN, 'serve', '--tools', TOOLS],
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'oversized-test', version: '1' });
    await client.connect(transport);
    const pid = transport.pid!;
    // The SDK keeps the child private; its exit code is what we check here.
    const child = (transport as unknown as { _process: import('node:child_process').ChildProcess })._process;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      // Just under the limit: read and answered.
      const near = await client.callTool({ name: 'greet', arguments: { who: 'n'.repeat(10 * MiB - 200) } });
      expect(near).toMatchObject({ isError: false, content: [{ type: 'text', text: `hello ${'n'.repeat(10 * MiB - 200)}` }] });
      for (const size of [10 * MiB + 1, 25 * MiB, 60 * MiB]) {
        await expect(client.callTool({ name: 'greet', arguments: { who: 'x'.repeat(size) } }, undefined, { timeout: 60_000 })).rejects.toThrow(
          /MCP error -32600: request too large: \d+ bytes, more than the 10485760 bytes one message may have \(maxRequestBytes\)/,
        );
        // The same connection still serves.
        expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).toMatchObject({ structuredContent: { sum: 5 } });
      }
      // An oversized notification (no id): an error with id null, and still serving.
      await transport.send({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'y'.repeat(11 * MiB) } });
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['add', 'greet']));
      expect(peakRssMb(pid)).toBeLessThan(600);
    } finally {
      await client.close();
    }
    const exitCode = await exited;
    expect(exitCode).toBe(0);
    expect(stderr.match(/ptc serve: request too large/gu)).toHaveLength(4);
  }, 150_000);
});

describe('BoundedLines', () => {
  const feed = async (chunks: (string | Buffer)[], max: number): Promise<{ out: string; dropped: OversizedLine[] }> => {
    const dropped: OversizedLine[] = [];
    const input = new PassThrough();
    const lines = input.pipe(new BoundedLines(max, (line) => dropped.push(line)));
    let out = '';
    lines.on('data', (chunk: Buffer) => (out += chunk.toString()));
    for (const chunk of chunks) input.write(chunk);
    input.end();
    await new Promise((resolve) => lines.on('end', resolve));
    return { out, dropped };
  };

  it('passes lines within the limit whole, in any chunking, and drops longer ones whole', async () => {
    const text = 'ab\ncdefghi\nij\n' + 'k'.repeat(9) + '\nlm\n';
    for (const size of [1, 2, 3, 5, 100]) {
      const chunks = Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
      const { out, dropped } = await feed(chunks, 6);
      expect(out).toBe('ab\nij\nlm\n');
      expect(dropped.map((d) => d.bytes)).toEqual([7, 9]);
    }
  });

  it('a line of exactly the limit passes; one byte more is dropped', async () => {
    expect((await feed(['123456\n1234567\n'], 6)).out).toBe('123456\n');
  });

  it('reads the request id from the edges of a dropped line', () => {
    const line = (text: string): OversizedLine => ({ bytes: text.length, head: text.slice(0, 256), tail: text.slice(-256) });
    const big = 'z'.repeat(5000);
    expect(requestIdOf(line(`{"method":"tools/call","params":{"x":"${big}"},"jsonrpc":"2.0","id":42}`))).toBe(42);
    expect(requestIdOf(line(`{"jsonrpc":"2.0","id":"req-7","method":"tools/call","params":{"x":"${big}"}}`))).toBe('req-7');
    expect(requestIdOf(line(`{"method":"notifications/message","params":{"x":"${big}"},"jsonrpc":"2.0"}`))).toBeNull();
    // An "id" inside the params is not the request's.
    expect(requestIdOf(line(`{"method":"tools/call","jsonrpc":"2.0","params":{"x":"${big}","id":3}}`))).toBeNull();
  });
});
