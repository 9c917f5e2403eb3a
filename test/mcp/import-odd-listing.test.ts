// A server's tools/list is read one tool at a time: a tool whose schema MCP's own
// types do not describe (a boolean property schema, a root without type) is imported
// like any other, and an entry without a name is skipped alone, with a warning —
// the MCP SDK's listTools() would refuse the whole page (and so the whole server).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { createToolRuntime, type ToolRuntime } from '../../src/index.ts';
import { importMcpTools, type McpToolImport } from '../../src/mcp/index.ts';
import { REPO } from './helpers.ts';

const ODD_SERVER = join(REPO, 'test', 'mcp', 'fixtures', 'odd-listing-server.ts');

describe('importMcpTools with a listing the MCP SDK would refuse', () => {
  let rt: ToolRuntime;
  let imported: McpToolImport;
  const warnings: string[] = [];
  beforeAll(async () => {
    rt = createToolRuntime({ mode: 'both' });
    imported = await importMcpTools(rt, {
      servers: [{ command: process.execPath, args: [ODD_SERVER] }],
      onWarning: (w) => warnings.push(w),
    });
  });
  afterAll(async () => {
    await imported?.close();
    await rt?.close();
  });

  it('imports every named tool and skips only the nameless entry, saying so', () => {
    expect(imported.tools).toEqual(['plain', 'bool_props', 'untyped_root', 'odd_output']);
    expect(imported.skipped).toEqual([
      expect.objectContaining({ reason: expect.stringContaining('has no string "name"') }),
    ]);
    expect(warnings.some((w) => w.includes('has no string "name"'))).toBe(true);
  });

  it('validates a boolean property schema: true takes anything, false refuses the property', async () => {
    const ok = await rt.execute({ callId: 'b1', name: 'bool_props', arguments: { anything: [1, { a: 2 }] } });
    expect(ok.isError).toBe(false);
    expect(JSON.parse(ok.value as string)).toEqual({ tool: 'bool_props', args: { anything: [1, { a: 2 }] } }); // the server's text
    const bad = await rt.execute({ callId: 'b2', name: 'bool_props', arguments: { nothing: 1 } });
    expect(bad.error).toMatchObject({ code: 'INVALID_ARGS', message: expect.stringContaining('/nothing') });
  });

  it('calls the tools from a program', async () => {
    const result = await rt.execute({
      callId: 'r1',
      name: 'run_code',
      arguments: {
        description: 't',
        code: 'const a = await tools.untyped_root({ x: "y" }); const b = await tools.plain({ q: "z" }); return [JSON.parse(a), JSON.parse(b)];',
      },
    });
    expect(result.isError).toBe(false);
    expect(result.value).toEqual({
      logs: [],
      result: [
        { tool: 'untyped_root', args: { x: 'y' } },
        { tool: 'plain', args: { q: 'z' } },
      ],
    });
  });
});
