// MCP tool import against the published (archived upstream) @modelcontextprotocol/server-postgres,
// over its real stdio transport, on a throwaway PostgreSQL cluster with one small table.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import { createToolRuntime, deny, type ToolRuntime } from '../../src/index.ts';
import { importMcpTools, type McpToolImport } from '../../src/mcp/index.ts';
import { type PostgresCluster, startPostgres } from '../support/postgres-cluster.ts';
import { commandLine, POSTGRES } from './helpers.ts';

describe(`importMcpTools with @modelcontextprotocol/server-postgres ${POSTGRES.version}`, () => {
  let cluster: PostgresCluster;
  let sandbox: Sandbox;
  let rt: ToolRuntime;
  let imported: McpToolImport;

  beforeAll(async () => {
    cluster = await startPostgres();
    await cluster.sql(
      "CREATE TABLE fruit (id int PRIMARY KEY, name text NOT NULL, stock int NOT NULL); INSERT INTO fruit VALUES (1, 'apple', 12), (2, 'pear', 0), (3, 'fig', 5)",
    );
    sandbox = createSandbox();
    rt = createToolRuntime({ mode: 'both', sandbox });
    imported = await importMcpTools(rt, { servers: [commandLine(POSTGRES.entry, cluster.url)], onWarning: () => {} });
  });
  afterAll(async () => {
    await imported?.close();
    await rt?.close();
    await sandbox?.close();
    await cluster?.stop();
  });

  it('registers its one tool, query, with the schema the server lists', async () => {
    expect(imported.tools).toEqual(['query']);
    expect(imported.skipped).toEqual([]);
    expect(imported.connections[0]!.serverName).toBe('example-servers/postgres');
    expect(rt.schemas().map((s) => s.name)).toEqual(expect.arrayContaining(['query', 'run_code']));
    const { tools } = await imported.connections[0]!.client.listTools();
    const raw = tools.find((t) => t.name === 'query')!;
    const tool = rt.tool('query')!;
    expect(tool.parameters).toEqual(raw.inputSchema);
    expect(tool.parameters).toEqual({ type: 'object', properties: { sql: { type: 'string' } } });
    expect(tool.description).toBe('Run a read-only SQL query');
    // No outputSchema: the SDK member returns JsonValue (the rows arrive as JSON text).
    expect(tool.outputSchema).toEqual({});
    expect(rt.sdk()).toContain('/** Run a read-only SQL query */ query: Tool<{ sql?: string }>;');
    // No readOnlyHint from this server: every call runs exclusively.
    expect(tool.isConcurrencySafe({ sql: 'SELECT 1' })).toBe(false);
  });

  it('a native call returns the rows of the table', async () => {
    const result = await rt.execute({
      callId: 'q1',
      name: 'query',
      arguments: { sql: 'SELECT id, name, stock FROM fruit ORDER BY id' },
    });
    expect(result.isError).toBe(false);
    expect(typeof result.value).toBe('string');
    expect(JSON.parse(result.value as string)).toEqual([
      { id: 1, name: 'apple', stock: 12 },
      { id: 2, name: 'pear', stock: 0 },
      { id: 3, name: 'fig', stock: 5 },
    ]);
  });

  it('a run_code program queries through the SDK and keeps only what it needs', async () => {
    const result = await rt.execute({
      callId: 'rc1',
      name: 'run_code',
      arguments: {
        description: 'Names of the fruit in stock',
        code: `
          const rows = JSON.parse(await tools.query({ sql: 'SELECT name, stock FROM fruit ORDER BY id' }));
          return rows.filter((r) => r.stock > 0).map((r) => r.name);`,
      },
    });
    expect(result.error).toBeUndefined();
    expect(result.value).toEqual({ logs: [], result: ['apple', 'fig'] });
  });

  it("the host's pipeline sees each nested query and refuses one before the server runs it", async () => {
    const seen: string[] = [];
    const stop = rt.on('tools/pre-execute', (exec, next) => {
      if (exec.parent === undefined) return next();
      const { sql } = exec.arguments as { sql: string };
      seen.push(sql);
      // Had the server run it, the program would wait a minute and the test time out.
      return /pg_sleep/u.test(sql) ? deny('no sleeping queries') : next();
    });
    try {
      const result = await rt.execute({
        callId: 'rc3',
        name: 'run_code',
        arguments: {
          description: 'Read, then try a slow query',
          code: `
            const names = JSON.parse(await tools.query({ sql: 'SELECT name FROM fruit ORDER BY id' })).map((r) => r.name);
            try {
              await tools.query({ sql: 'SELECT pg_sleep(60)' });
              return 'ran';
            } catch (e) {
              return { names, caught: e instanceof ToolCallError, code: e.code, why: /no sleeping queries/.test(e.message) };
            }`,
        },
      });
      expect(result.error).toBeUndefined();
      expect(result.value).toEqual({
        logs: [],
        result: { names: ['apple', 'pear', 'fig'], caught: true, code: 'DENIED', why: true },
      });
      expect(seen).toEqual(['SELECT name FROM fruit ORDER BY id', 'SELECT pg_sleep(60)']);
    } finally {
      stop();
    }
  });

  it("a write is refused by the server's read-only transaction: TOOL_ERROR, table unchanged", async () => {
    const result = await rt.execute({
      callId: 'q2',
      name: 'query',
      arguments: { sql: "INSERT INTO fruit VALUES (4, 'kiwi', 1)" },
    });
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe('TOOL_ERROR');
    expect(result.error?.message).toMatch(/cannot execute INSERT in a read-only transaction/u);
    expect(await cluster.sql('SELECT count(*)::int AS n FROM fruit')).toEqual([{ n: 3 }]);
  });

  it('a run_code program catches the refused write as a ToolCallError', async () => {
    const result = await rt.execute({
      callId: 'rc2',
      name: 'run_code',
      arguments: {
        description: 'Try a write',
        code: `
          try {
            await tools.query({ sql: 'DELETE FROM fruit' });
            return 'no error';
          } catch (e) {
            return { caught: e instanceof ToolCallError, tool: e.toolName, code: e.code, readOnly: /read-only/.test(e.message) };
          }`,
      },
    });
    expect(result.value).toEqual({
      logs: [],
      result: { caught: true, tool: 'query', code: 'TOOL_ERROR', readOnly: true },
    });
    expect(await cluster.sql('SELECT count(*)::int AS n FROM fruit')).toEqual([{ n: 3 }]);
  });

  it('invalid arguments are refused before the server is called', async () => {
    const result = await rt.execute({ callId: 'q3', name: 'query', arguments: { sql: 42 } });
    expect(result.error?.code).toBe('INVALID_ARGS');
  });
});
