// MCP tool import against the reference "everything" server (npm registry, real
// stdio): tools without outputSchema, an unsupported schema keyword, images, prefixes
// and collisions.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createToolRuntime, defineTool, type ToolRuntime } from '../../src/index.ts';
import { importMcpTools, type McpToolImport } from '../../src/mcp/index.ts';
import { childPids, commandLine, EVERYTHING } from './helpers.ts';

const SERVER = commandLine(EVERYTHING.entry);

describe(`importMcpTools with @modelcontextprotocol/server-everything ${EVERYTHING.version}`, () => {
  let rt: ToolRuntime;
  let imported: McpToolImport;
  const warnings: string[] = [];

  beforeAll(async () => {
    rt = createToolRuntime({ sandbox: false });
    imported = await importMcpTools(rt, { servers: [SERVER], onWarning: (m) => warnings.push(m) });
  });
  afterAll(async () => {
    await imported?.close();
    await rt?.close();
  });

  it('imports every tool, with no warning: full JSON Schema, formats included', async () => {
    // gzip-file-as-resource declares `format: "uri"`, once outside our subset.
    expect(imported.skipped).toEqual([]);
    expect(warnings).toEqual([]);
    expect(imported.tools).toEqual(
      expect.arrayContaining(['echo', 'get-sum', 'get-structured-content', 'get-tiny-image', 'gzip-file-as-resource']),
    );
    const result = await rt.execute({
      callId: 'g1',
      name: 'gzip-file-as-resource',
      arguments: { name: 'x.gz', data: 'not a uri' },
    });
    expect(result.error).toMatchObject({
      code: 'INVALID_ARGS',
      message: expect.stringContaining('must be a URI (e.g. https://example.com/x) (format "uri")'),
    });
  });

  it('without outputSchema (and no structuredContent) the value is the text content, typed JsonValue', async () => {
    const result = await rt.execute({ callId: 'e1', name: 'echo', arguments: { message: 'hi there' } });
    expect(result.value).toBe('Echo: hi there');
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: hi there' }]);
    expect(rt.tool('echo')!.outputSchema).toEqual({});
    // No output schema: the member has no result type (Tool<Args> resolves to JsonValue).
    expect(rt.sdk()).toMatch(/ echo: Tool<\{[^<>]*\}>;\n/u);
  });

  it('with outputSchema the value is structuredContent, validated and typed', async () => {
    const result = await rt.execute({
      callId: 'e2',
      name: 'get-structured-content',
      arguments: { location: 'Chicago' },
    });
    expect(result.isError).toBe(false);
    expect(result.value).toEqual({
      temperature: expect.any(Number),
      conditions: expect.any(String),
      humidity: expect.any(Number),
    });
    expect(rt.sdk()).toMatch(/ "get-structured-content": Tool<\{[\s\S]*?\}, \{[^}]*temperature: number;/su);
  });

  it('an image in the content reaches the model as a deferred context; the value stays text', async () => {
    const result = await rt.execute({ callId: 'e3', name: 'get-tiny-image', arguments: {} });
    expect(result.isError).toBe(false);
    expect(typeof result.value).toBe('string');
    expect(result.value).toContain('[image image/png]');
    const image = result.additionalContexts?.[0]?.content[0];
    expect(image).toEqual({ type: 'image', mimeType: 'image/png', data: expect.stringMatching(/^iVBOR/u) });
  });

  it('arguments are checked against the imported inputSchema before the server is called', async () => {
    const result = await rt.execute({ callId: 'e4', name: 'get-sum', arguments: { a: 1, b: 'two' } });
    expect(result.error?.code).toBe('INVALID_ARGS');
    const ok = await rt.execute({ callId: 'e5', name: 'get-sum', arguments: { a: 1, b: 2 } });
    expect(ok.value).toBe('The sum of 1 and 2 is 3.');
  });

  it('a prefix renames the tools while the server is still called by its own names', async () => {
    const rt2 = createToolRuntime({ sandbox: false });
    const prefixed = await importMcpTools(rt2, {
      servers: [{ command: process.execPath, args: [EVERYTHING.entry], prefix: 'ev_' }],
      onWarning: () => {},
    });
    try {
      expect(prefixed.tools).toContain('ev_echo');
      expect(rt2.tool('echo')).toBeUndefined();
      const result = await rt2.execute({ callId: 'p1', name: 'ev_echo', arguments: { message: 'x' } });
      expect(result.value).toBe('Echo: x');
    } finally {
      await prefixed.close();
      await rt2.close();
    }
  });

  it('a name collision fails the import with a hint to use a prefix, and stops every server it started', async () => {
    const rt2 = createToolRuntime({ sandbox: false });
    rt2.register(
      defineTool({
        name: 'echo',
        description: 'Our own echo.',
        parameters: {},
        output: { schema: { type: 'json' }, render: () => [] },
        execute: () => null,
      }),
    );
    const before = childPids(EVERYTHING.entry);
    const error = await importMcpTools(rt2, { servers: [SERVER], onWarning: () => {}, onStderr: () => {} }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/cannot register tool "echo".*prefix/su);
    // Nothing of the failed import stays registered or running.
    expect(rt2.tool('get-sum')).toBeUndefined();
    expect(childPids(EVERYTHING.entry)).toEqual(before);
    await rt2.close();
  });

  it('a server that cannot start is a clear error', async () => {
    const rt2 = createToolRuntime({ sandbox: false });
    await expect(importMcpTools(rt2, { servers: ['definitely-not-a-command-ptc-test --flag'] })).rejects.toThrow(
      /MCP server "definitely-not-a-command-ptc-test --flag" could not be started or listed: .*ENOENT/u,
    );
    await rt2.close();
  });
});
