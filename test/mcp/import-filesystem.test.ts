// MCP tool import against a real third-party server: @modelcontextprotocol/server-filesystem
// from the npm registry, over its real stdio transport.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import { createToolRuntime, type ToolRuntime } from '../../src/index.ts';
import { importMcpTools, type McpToolImport } from '../../src/mcp/index.ts';
import { gate } from '../support/gate.ts';
import { alive, commandLine, FS, scratchDir } from './helpers.ts';

describe(`importMcpTools with @modelcontextprotocol/server-filesystem ${FS.version}`, () => {
  const scratch = scratchDir();
  let sandbox: Sandbox;
  let rt: ToolRuntime;
  let imported: McpToolImport;

  beforeAll(async () => {
    sandbox = createSandbox();
    rt = createToolRuntime({ mode: 'both', sandbox });
    imported = await importMcpTools(rt, { servers: [commandLine(FS.entry, scratch.dir)], onWarning: () => {} });
  });
  afterAll(async () => {
    await imported?.close();
    await rt?.close();
    await sandbox?.close();
    scratch.remove();
  });

  it('registers every listed tool under its MCP name, nothing skipped', () => {
    expect(imported.tools).toEqual(
      expect.arrayContaining(['read_text_file', 'list_directory', 'write_file', 'list_allowed_directories']),
    );
    expect(imported.skipped).toEqual([]);
    expect(imported.connections[0]!.serverName).toBe('secure-filesystem-server');
    const listed = rt.schemas().map((s) => s.name);
    expect(listed).toEqual(expect.arrayContaining([...imported.tools, 'run_code']));
  });

  it('maps inputSchema to parameters (without $schema) and outputSchema to the output schema', async () => {
    const { tools } = await imported.connections[0]!.client.listTools();
    const raw = tools.find((t) => t.name === 'read_text_file')!;
    const { $schema: _in, ...input } = raw.inputSchema as Record<string, unknown>;
    const { $schema: _out, ...output } = raw.outputSchema as Record<string, unknown>;
    const tool = rt.tool('read_text_file')!;
    expect(tool.parameters).toEqual(input);
    expect(tool.outputSchema).toEqual(output);
    expect(tool.description).toBe(raw.description);
  });

  it('gives the SDK a typed return from outputSchema', () => {
    const sdk = rt.sdk();
    // read_file takes the same arguments: one shared type serves both.
    expect(sdk).toContain(' read_text_file: Tool<ReadTextFileArgs, { content: string }>;');
    expect(sdk).toContain(' read_file: Tool<ReadTextFileArgs, { content: string }>;');
  });

  it('annotations.readOnlyHint === true makes a tool concurrency-safe, anything else exclusive', () => {
    expect(rt.tool('read_text_file')!.isConcurrencySafe({ path: 'a.txt' })).toBe(true);
    expect(rt.tool('write_file')!.isConcurrencySafe({ path: 'a.txt', content: 'x' })).toBe(false);
    expect(rt.tool('read_text_file')!.isConcurrencySafe({})).toBe(false); // invalid args: exclusive
  });

  it('structuredContent becomes the canonical value', async () => {
    const result = await rt.execute({
      callId: 'r1',
      name: 'read_text_file',
      arguments: { path: `${scratch.dir}/a.txt` },
    });
    expect(result.isError).toBe(false);
    expect(result.value).toEqual({ content: 'alpha\n' });
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ content: 'alpha\n' }, null, 2) }]);
  });

  it("a server's isError result becomes a TOOL_ERROR result with the server's text", async () => {
    const result = await rt.execute({ callId: 'r2', name: 'read_text_file', arguments: { path: '/etc/hostname' } });
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe('TOOL_ERROR');
    expect(result.error?.message).toMatch(/Access denied - path outside allowed directories/u);
    expect(result.error?.info).toEqual({ server: 'secure-filesystem-server', tool: 'read_text_file' });
  });

  it('invalid arguments are refused before the server is called', async () => {
    const result = await rt.execute({ callId: 'r3', name: 'read_text_file', arguments: { path: 7 } });
    expect(result.error?.code).toBe('INVALID_ARGS');
  });

  it('a run_code program calls two of its tools concurrently', async () => {
    // Hold each nested dispatch until both have started: the second can only start
    // while the first is held if the scheduler runs them at once.
    const bothStarted = gate();
    const started: string[] = [];
    let inFlight = 0;
    let overlapped = false;
    const stop = rt.on('tools/execute', async (exec, next) => {
      if (exec.parent === undefined) return next();
      if (inFlight > 0) overlapped = true;
      inFlight += 1;
      started.push(exec.name);
      if (started.length === 2) bothStarted.open();
      const escape = new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref());
      await Promise.race([bothStarted.passed, escape]);
      try {
        return await next();
      } finally {
        inFlight -= 1;
      }
    });
    try {
      const result = await rt.execute({
        callId: 'rc1',
        name: 'run_code',
        arguments: {
          description: 'Read both files at once',
          code: `
            const [a, b] = await Promise.all([
              tools.read_text_file({ path: ${JSON.stringify(`${scratch.dir}/a.txt`)} }),
              tools.list_directory({ path: ${JSON.stringify(scratch.dir)} }),
            ]);
            return { a: a.content, listing: b.content };`,
        },
      });
      expect(result.error).toBeUndefined();
      expect(result.value).toEqual({ logs: [], result: { a: 'alpha\n', listing: '[FILE] a.txt\n[FILE] b.txt' } });
      expect(started.sort()).toEqual(['list_directory', 'read_text_file']);
      expect(overlapped).toBe(true);
    } finally {
      stop();
    }
  });

  it('a run_code program handles the tool error as a ToolCallError', async () => {
    const result = await rt.execute({
      callId: 'rc2',
      name: 'run_code',
      arguments: {
        description: 'Read a file outside the allowed directory',
        code: `
          try {
            await tools.read_text_file({ path: '/etc/hostname' });
            return 'no error';
          } catch (e) {
            return { caught: e instanceof ToolCallError, tool: e.toolName, code: e.code, denied: /Access denied/.test(e.message) };
          }`,
      },
    });
    expect(result.value).toEqual({
      logs: [],
      result: { caught: true, tool: 'read_text_file', code: 'TOOL_ERROR', denied: true },
    });
  });

  it('close() unregisters the tools and stops the server process', async () => {
    const rt2 = createToolRuntime();
    const second = await importMcpTools(rt2, {
      servers: [{ command: process.execPath, args: [FS.entry, scratch.dir] }],
    });
    const pid = second.connections[0]!.pid!;
    expect(alive(pid)).toBe(true);
    expect(rt2.tool('read_text_file')).toBeDefined();
    await second.close();
    await second.close(); // idempotent
    expect(rt2.tool('read_text_file')).toBeUndefined();
    expect(alive(pid)).toBe(false);
    await rt2.close();
  });
});
