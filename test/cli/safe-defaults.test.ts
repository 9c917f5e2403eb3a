// The CLI's safe defaults: the built-in example tools (which include flag_order, a tool
// that changes data) are loaded only when no tools are given or with --demo-tools;
// tools' timeoutMs is enforced in `ptc run` and `ptc serve` (the runtime's timeout
// policy is on by default); a program file that is not UTF-8 is a usage error.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.ts';
import { MCP_META_ERROR } from '../../src/mcp/index.ts';
import { commandLine, FS, PTC_BIN, scratchDir } from '../mcp/helpers.ts';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const SHOP_TOOL = 'flag_order: Tool<';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-safe-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the built-in example tools', () => {
  const scratch = scratchDir();
  const fsServer = commandLine(FS.entry, scratch.dir);
  afterAll(() => scratch.remove());

  it('are loaded when no tools are given', async () => {
    expect((await cli('sdk')).out).toContain(SHOP_TOOL);
  });

  it('are not loaded beside --tools or --mcp tools', async () => {
    const tools = await cli('sdk', '--tools', fixture('array-tools.ts'));
    expect(tools.out).toContain('greet: Tool<');
    expect(tools.out).not.toContain(SHOP_TOOL);
    const mcp = await cli('sdk', '--mcp', fsServer);
    expect(mcp.out).toContain('read_text_file: Tool<');
    expect(mcp.out).not.toContain(SHOP_TOOL);
    const schemas = await cli('schemas', '--mcp', fsServer);
    expect((JSON.parse(schemas.out) as { name: string }[]).map((t) => t.name)).not.toContain('flag_order');
  });

  it('are loaded beside them with --demo-tools', async () => {
    const both = await cli('sdk', '--tools', fixture('array-tools.ts'), '--mcp', fsServer, '--demo-tools');
    expect(both.code).toBe(0);
    for (const name of ['greet: Tool<', 'read_text_file: Tool<', SHOP_TOOL]) expect(both.out).toContain(name);
  });
});

describe('timeoutMs is enforced by default', () => {
  it('ptc run: a nested call past its timeoutMs fails with TOOL_TIMEOUT', async () => {
    const file = join(dir, 'hang.ts');
    await writeFile(file, 'try { await tools.hang({}); return "finished"; } catch (e) { return e.code; }\n');
    const run = await cli('run', file, '--tools', fixture('slow-tools.ts'));
    expect(run).toEqual({ code: 0, out: 'TOOL_TIMEOUT\n', err: '' });
  });

  it('ptc serve: a tools/call past its timeoutMs is an isError result with TOOL_TIMEOUT', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--no-node-snapshot', PTC_BIN, 'serve', '--tools', fixture('slow-tools.ts')],
      stderr: 'pipe',
    });
    const client = new Client({ name: 'timeout-test', version: '1' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['hang']);
      const result = await client.callTool({ name: 'hang', arguments: {} });
      expect(result.isError).toBe(true);
      expect(result._meta?.[MCP_META_ERROR]).toEqual({
        code: 'TOOL_TIMEOUT',
        message: 'tool "hang" timed out after 50 ms',
      });
    } finally {
      await client.close();
    }
  });
});

describe('program files', () => {
  it('a file that is not UTF-8 is a usage error naming the line, for run and check', async () => {
    const file = join(dir, 'latin1.ts');
    await writeFile(
      file,
      Buffer.concat([Buffer.from('const a = 1;\nreturn "caf'), Buffer.from([0xe9]), Buffer.from('";\n')]),
    );
    for (const command of ['run', 'check']) {
      const run = await cli(command, file);
      expect(run).toEqual({
        code: 2,
        out: '',
        err: `ptc: program file "${file}" is not valid UTF-8 (first bad byte on line 2); save it as UTF-8\n`,
      });
    }
  });
});
