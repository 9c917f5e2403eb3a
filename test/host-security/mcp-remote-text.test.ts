// What a remote MCP server writes reaches our errors and warnings only as a bounded
// excerpt with its control characters escaped: a 2 MiB error page with terminal escape
// sequences (at the import, seen on a real `ptc run`'s stderr, and on a call), a server
// that names itself or its tools with escape sequences, a stdio server's stderr.
import { afterEach, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createToolRuntime } from '../../src/index.ts';
import { connectMcpServer } from '../../src/mcp/index.ts';
import { MAX_REMOTE_EXCERPT_CHARS } from '../../src/mcp/quote-remote-text.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

// Clears the screen, retitles the window, rewrites the line: what a terminal must never get.
const ESCAPES = '\u001b[2J\u001b]0;owned\u0007\r\u009b31m\u202e';
const PAGE = `<html>${ESCAPES}${'filler '.repeat(300_000)}</html>`; // about 2 MiB
/** Whether a raw control character (line feed and tab aside) is left in the text. */
const hasRawControl = (text: string): boolean =>
  [...text].some((c) => {
    const code = c.charCodeAt(0);
    return (code < 0x20 && code !== 0x0a && code !== 0x09) || (code >= 0x7f && code <= 0x9f) || code === 0x202e;
  });

interface Behaviour {
  /** Every POST after the handshake (or every POST, with `failAll`) answers the page with 500. */
  readonly failAll?: boolean;
  readonly serverName?: string;
  readonly toolName?: string;
}

/** A plain HTTP server speaking just enough MCP; its error answer is PAGE. */
async function plainServer(b: Behaviour): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const message = JSON.parse(body) as { id?: number; method: string };
      const json = (result: unknown): void => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      };
      if (b.failAll !== true) {
        if (message.method === 'initialize')
          return json({
            protocolVersion: '2025-06-18',
            capabilities: { tools: {} },
            serverInfo: { name: b.serverName ?? 'plain', version: '1' },
          });
        if (message.id === undefined) return void res.writeHead(202).end();
        if (message.method === 'tools/list')
          return json({
            tools: [
              { name: 'fails', inputSchema: { type: 'object' } },
              { name: b.toolName ?? 'also', inputSchema: { type: 'object', $ref: 'https://x.example/s' } },
            ],
          });
      }
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end(PAGE);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

function expectQuoted(text: string, maxChars: number): void {
  expect(text.length).toBeLessThan(maxChars);
  expect(hasRawControl(text)).toBe(false);
  expect(text).toContain('\\x1b[2J\\x1b]0;owned\\x07\\x0d\\x9b31m\\u202e');
  expect(text).toMatch(/more characters not shown/);
}

describe('text from a remote MCP server in errors and warnings', () => {
  it("quotes a 2 MiB error page at the import as a bounded, escaped excerpt on ptc run's stderr", async () => {
    const url = await plainServer({ failAll: true });
    const run = await new Promise<{ code: number | null; err: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--no-node-snapshot', 'bin/ptc.js', 'run', '-', '--mcp-url', url], {
        cwd: root,
        env: { ...process.env, NODE_OPTIONS: '' },
      });
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, err }));
      child.stdin.end('return 1;\n');
    });
    expect(run.code).not.toBe(0);
    expect(run.err).toContain('could not be started or listed');
    // The excerpt, the error's stack frames and the CLI's own words.
    expectQuoted(run.err, 2 * MAX_REMOTE_EXCERPT_CHARS + 4_000);
  });

  it('quotes the page a failed call gets as a bounded, escaped excerpt', async () => {
    const url = await plainServer({});
    const connection = await connectMcpServer({ url }, { onWarning: () => {} });
    const rt = createToolRuntime({ mode: 'native', sandbox: false });
    try {
      rt.register(connection.tools[0]!);
      const result = await rt.execute({ callId: 'c', name: 'fails', arguments: {} });
      expect(result.isError).toBe(true);
      expectQuoted(result.error!.message, MAX_REMOTE_EXCERPT_CHARS + 500);
    } finally {
      await rt.close();
      await connection.close();
    }
  });

  it('escapes a server name and a tool name with escape sequences in its warnings', async () => {
    const url = await plainServer({ serverName: `evil${ESCAPES}`, toolName: `bad${ESCAPES}${'n'.repeat(5_000)}` });
    const warnings: string[] = [];
    const connection = await connectMcpServer({ url }, { onWarning: (w) => warnings.push(w) });
    await connection.close();
    const text = warnings.join('\n');
    expect(text).toContain('skipped tool "bad\\x1b[2J');
    expect(text).toContain('MCP server "evil\\x1b[2J');
    expect(hasRawControl(text)).toBe(false);
    expect(text.length).toBeLessThan(2 * MAX_REMOTE_EXCERPT_CHARS);
  });

  it("escapes a stdio server's stderr in the error of its failed start, keeping its lines", async () => {
    // The sequences come from the server's output, not from its command line (which is ours).
    const escapes = Buffer.from(ESCAPES).toString('base64');
    const script = `process.stderr.write('first line\\n' + Buffer.from('${escapes}', 'base64').toString() + ' second line\\n'); process.exit(3);`;
    const error = await connectMcpServer({ command: process.execPath, args: ['-e', script] }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain('server stderr:\nfirst line\n\\x1b[2J');
    expect(hasRawControl(error?.message ?? '')).toBe(false);
  });
});
