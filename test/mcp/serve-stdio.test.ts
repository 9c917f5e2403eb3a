// `ptc serve` as a real stdio child process, driven by the MCP SDK's real Client —
// with a real third-party server imported through --mcp and re-exposed, and live
// progress notifications on the same stdio stream.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { commandLine, FS, PTC_BIN, scratchDir } from './helpers.ts';

const TOOLS = fileURLToPath(new URL('./fixtures/tools.ts', import.meta.url));

/** Live processes (anywhere) whose command line mentions `needle`. */
function processesMentioning(needle: string): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/u.test(e))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return [];
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle) ? [Number(pid)] : [];
      } catch {
        return [];
      }
    });
}

describe(`ptc serve over stdio (with --mcp @modelcontextprotocol/server-filesystem ${FS.version})`, () => {
  const scratch = scratchDir();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      '--no-node-snapshot',
      PTC_BIN,
      'serve',
      '--tools',
      TOOLS,
      '--mode',
      'both',
      '--mcp',
      commandLine(FS.entry, scratch.dir),
    ],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'serve-test', version: '1' });
  /** Every message ptc serve wrote to stdout since the handshake, in the order the client read them. */
  const wire: JSONRPCMessage[] = [];

  beforeAll(async () => {
    await client.connect(transport);
    // The SDK's client hands a notification to its handler a microtask after reading it but a
    // response at once, and drops progress read after its response: progress written just
    // before the response but read in the same chunk is lost on the client side (whether it
    // is depends on when the client gets to read). What ptc serve wrote, and in which order,
    // is read here, as the client's transport delivers it.
    const deliver = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage) => {
      wire.push(message);
      deliver?.(message);
    };
  });
  afterAll(async () => {
    await client.close();
    scratch.remove();
  });

  it('lists our tools, the imported ones and run_code (mode both)', async () => {
    expect(client.getServerVersion()?.name).toBe('ptc-runtime');
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['add', 'explode', 'greet', 'read_text_file', 'list_directory', 'run_code']),
    );
  });

  it('maps results: structuredContent, content, isError', async () => {
    expect(await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } })).toEqual({
      content: [{ type: 'text', text: 'sum=42' }],
      structuredContent: { sum: 42 },
      isError: false,
    });
    const failed = await client.callTool({ name: 'explode', arguments: {} });
    expect(failed.isError).toBe(true);
    expect(failed.content).toEqual([{ type: 'text', text: 'Error: kaboom' }]);
  });

  it('an imported tool called through ptc serve reaches the third-party server', async () => {
    const result = await client.callTool({ name: 'read_text_file', arguments: { path: `${scratch.dir}/b.txt` } });
    expect(result.structuredContent).toEqual({ content: 'beta\n' });
  });

  it('run_code mixes our tools and imported ones in one program', async () => {
    const result = await client.callTool({
      name: 'run_code',
      arguments: {
        description: 'Sum and read',
        code: `const [s, f] = await Promise.all([tools.add({ a: 1, b: 2 }), tools.read_text_file({ path: ${JSON.stringify(`${scratch.dir}/a.txt`)} })]);
               return s.sum + ':' + f.content.trim();`,
      },
    });
    expect(result.structuredContent).toEqual({ logs: [], result: '3:alpha' });
  });

  it('sends progress notifications over stdio while a run goes on (log lines, call counts)', async () => {
    const tap = wire.length;
    const result = await client.callTool(
      {
        name: 'run_code',
        arguments: {
          description: 'Add with progress',
          code: `console.log('starting'); const r = await tools.add({ a: 1, b: 2 }); console.log('sum', r.sum); return r.sum;`,
        },
      },
      CallToolResultSchema,
      // Asks for progress (the client sends a progressToken, the request's id).
      { onprogress: () => {} },
    );
    expect(result.structuredContent).toEqual({ logs: ['starting', 'sum 3'], result: 3 });
    // Each progress notice went out, in order, before the response that ends the call.
    const written = wire.slice(tap);
    const response = written.at(-1);
    expect(response !== undefined && 'id' in response && 'result' in response).toBe(true);
    const requestId = (response as { id: number }).id;
    expect(written.slice(0, -1)).toEqual(
      [
        'starting',
        'call 1 add started (calls: 1 started, 0 finished)',
        'call 1 add finished (calls: 1 started, 1 finished)',
        'sum 3',
      ].map((message, i) => ({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: requestId, progress: i + 1, message },
      })),
    );
  });

  it('when the client disconnects, ptc exits and its --mcp server is gone too', async () => {
    expect(processesMentioning(scratch.dir)).toHaveLength(2); // ptc serve and the filesystem server
    await client.close(); // ends stdin, waits for the process to exit
    expect(processesMentioning(scratch.dir)).toEqual([]);
    expect(stderr).toBe('');
  });
});
