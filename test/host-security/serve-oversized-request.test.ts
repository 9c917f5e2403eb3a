// `ptc serve` (a real child process) against request lines over its 10 MiB limit: each
// is answered with a JSON-RPC error for its id and dropped, and serving goes on; the
// server's heap stays bounded and it exits 0 when the client leaves.
import { describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { BoundedLines, requestIdOf, type OversizedLine } from '../../src/mcp/bounded-lines.ts';
import { PTC_BIN } from '../mcp/helpers.ts';

const TOOLS = fileURLToPath(new URL('../mcp/fixtures/tools.ts', import.meta.url));
const MiB = 1_048_576;

/** Peak resident memory of a live process, from /proc. */
const peakRssMb = (pid: number): number =>
  Number(/VmHWM:\s+(\d+) kB/u.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

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
      // Just under the limit: read and answered (by a tool whose answer is small: greet's would
      // echo 10 MiB twice, as text and as its wrapped structuredContent, past the client's buffer).
      const near = await client.callTool({ name: 'explode', arguments: { blob: 'n'.repeat(10 * MiB - 200) } });
      expect(near).toMatchObject({ isError: true, _meta: { 'ptc-runtime/error': { code: 'EXPLODED' } } });
      expect(JSON.stringify(near).length).toBeLessThan(10_000);
      for (const size of [10 * MiB + 1, 25 * MiB, 60 * MiB]) {
        await expect(
          client.callTool({ name: 'greet', arguments: { who: 'x'.repeat(size) } }, undefined, { timeout: 60_000 }),
        ).rejects.toThrow(
          /MCP error -32600: request too large: \d+ bytes, more than the 10485760 bytes one message may have \(maxRequestBytes\)/,
        );
        // The same connection still serves.
        expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).toMatchObject({
          structuredContent: { sum: 5 },
        });
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

describe('ptc serve and deeply nested requests', () => {
  // Under the 10 MiB line limit, 4 million levels of `[[[[…` took ~200 MiB to parse: a
  // server with a 160 MiB heap died of it. Such a line is now dropped unread like an
  // oversized one.
  it('answers a request nested 4 million levels deep with -32600 for its id, unread, and lines that are not JSON-RPC with id null; keeps serving; exits 0', async () => {
    const env = { ...process.env };
    delete env['NODE_OPTIONS'];
    const child = spawn(
      process.execPath,
      ['--no-node-snapshot', '--max-old-space-size=160', PTC_BIN, 'serve', '--tools', TOOLS],
      { env, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let out = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const answer = async (id: number): Promise<{ result?: unknown; error?: { code: number; message: string } }> => {
      for (;;) {
        const line = out.split('\n').find((l) => l.startsWith('{') && (JSON.parse(l) as { id?: unknown }).id === id);
        if (line !== undefined)
          return JSON.parse(line) as { result?: unknown; error?: { code: number; message: string } };
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`ptc serve died (${String(child.exitCode ?? child.signalCode)}): ${stderr.slice(-500)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const send = (message: string): void => void child.stdin.write(`${message}\n`);
    send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'deep-test', version: '1' } },
      }),
    );
    await answer(1);
    send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    const levels = 4_000_000;
    send(
      `{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"add","arguments":{"a":${'['.repeat(levels)}1${']'.repeat(levels)},"b":1}}}`,
    );
    const deep = await answer(77);
    expect(deep.error).toEqual({
      code: -32600,
      message: expect.stringContaining('request nested too deeply: JSON deeper than 264 levels'),
    });
    // Lines that are not JSON, or not JSON-RPC: answered with id null, and still serving.
    send('not json at all');
    send('{"jsonrpc":"2.0","id":9,"method":');
    send('{"just":"an object"}');
    for (;;) {
      const errors = out.split('\n').filter((l) => l.includes('"id":null'));
      if (errors.length >= 3) {
        const codes = errors.map((l) => (JSON.parse(l) as { error: { code: number } }).error.code);
        expect(codes).toEqual([-32700, -32700, -32600]);
        break;
      }
      if (child.exitCode !== null) throw new Error(`ptc serve exited: ${stderr.slice(-500)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'add', arguments: { a: 2, b: 3 } },
      }),
    );
    expect(await answer(2)).toMatchObject({ result: { structuredContent: { sum: 5 } } });
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(stderr).toContain('ptc serve: request nested too deeply');
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
      const chunks = Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
        text.slice(i * size, (i + 1) * size),
      );
      const { out, dropped } = await feed(chunks, 6);
      expect(out).toBe('ab\nij\nlm\n');
      expect(dropped.map((d) => d.bytes)).toEqual([7, 9]);
    }
  });

  it('a line of exactly the limit passes; one byte more is dropped', async () => {
    expect((await feed(['123456\n1234567\n'], 6)).out).toBe('123456\n');
  });

  it('drops a line nested deeper than maxDepth whole (brackets inside strings do not count); a line at the depth passes', async () => {
    const dropped: OversizedLine[] = [];
    const input = new PassThrough();
    const lines = input.pipe(new BoundedLines(1000, (line) => dropped.push(line), 3));
    let out = '';
    lines.on('data', (chunk: Buffer) => (out += chunk.toString()));
    for (const chunk of ['[[[1]]]\n[[[', '[1]]]]\n["[[[[\\"[[["]\n{"a":{"b":{"c":', '{}}}}\n[[[]],[[]]]\n'])
      input.write(chunk);
    input.end();
    await new Promise((resolve) => lines.on('end', resolve));
    expect(out).toBe('[[[1]]]\n["[[[[\\"[[["]\n[[[]],[[]]]\n');
    expect(dropped.map((d) => [d.over, d.bytes])).toEqual([
      ['depth', 9],
      ['depth', 20],
    ]);
  });

  it('reads the request id from the edges of a dropped line', () => {
    const line = (text: string): OversizedLine => ({
      over: 'bytes',
      bytes: text.length,
      head: text.slice(0, 256),
      tail: text.slice(-256),
    });
    const big = 'z'.repeat(5000);
    expect(requestIdOf(line(`{"method":"tools/call","params":{"x":"${big}"},"jsonrpc":"2.0","id":42}`))).toBe(42);
    expect(requestIdOf(line(`{"jsonrpc":"2.0","id":"req-7","method":"tools/call","params":{"x":"${big}"}}`))).toBe(
      'req-7',
    );
    expect(requestIdOf(line(`{"method":"notifications/message","params":{"x":"${big}"},"jsonrpc":"2.0"}`))).toBeNull();
    // An "id" inside the params is not the request's.
    expect(requestIdOf(line(`{"method":"tools/call","jsonrpc":"2.0","params":{"x":"${big}","id":3}}`))).toBeNull();
  });
});
