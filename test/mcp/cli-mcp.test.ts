// `--mcp "<command line>"` on ptc run, sdk, schemas and check, through the CLI's
// main() in this process (the MCP server is still a real child process).
import { afterAll, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../src/cli/main.ts';
import { commandLine, EVERYTHING, FS, JSON_SCHEMA_SERVER, REPO, scratchDir } from './helpers.ts';

async function ptc(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe(`CLI --mcp with @modelcontextprotocol/server-filesystem ${FS.version}`, () => {
  const scratch = scratchDir();
  const fsServer = commandLine(FS.entry, scratch.dir);
  const program = (name: string, code: string): string => {
    const file = join(scratch.dir, name);
    writeFileSync(file, code);
    return file;
  };
  afterAll(() => scratch.remove());

  it('ptc run: a program calls two MCP tools concurrently', async () => {
    const file = program(
      'concurrent.ts',
      `
      const [a, b] = await Promise.all([
        tools.read_text_file({ path: ${JSON.stringify(join(scratch.dir, 'a.txt'))} }),
        tools.read_text_file({ path: ${JSON.stringify(join(scratch.dir, 'b.txt'))} }),
      ]);
      return a.content + b.content;`,
    );
    const ok = await ptc('run', file, '--mcp', fsServer, '--json');
    expect(ok.err).toBe('');
    expect(JSON.parse(ok.out)).toEqual(
      expect.objectContaining({ isError: false, value: { logs: [], result: 'alpha\nbeta\n' } }),
    );
    expect(ok.code).toBe(0);
  });

  it('ptc run: a program handles an MCP tool error', async () => {
    const file = program(
      'handles.ts',
      `
      try {
        await tools.read_text_file({ path: '/etc/hostname' });
      } catch (e) {
        console.log('caught', e.code, e.toolName);
      }
      const files = await tools.list_directory({ path: ${JSON.stringify(scratch.dir)} });
      return files.content.split('\\n').length;`,
    );
    const r = await ptc('run', file, '--mcp', fsServer);
    expect(r).toEqual({ code: 0, out: 'caught TOOL_ERROR read_text_file\n4\n', err: '' });
  });

  it('ptc sdk: imported tools are typed from their outputSchema', async () => {
    const r = await ptc('sdk', '--mcp', fsServer);
    expect(r.code).toBe(0);
    expect(r.out).toContain(' read_text_file: Tool<ReadTextFileArgs, { content: string }>;');
    expect(r.out).not.toContain('list_orders'); // the built-in example tools are not loaded beside --mcp tools
  });

  it("ptc schemas: --mcp-prefix renames the n-th server's tools", async () => {
    const r = await ptc('schemas', '--mcp', fsServer, '--mcp-prefix', 'fs_', '--format', 'anthropic');
    expect(r.code).toBe(0);
    const names = (JSON.parse(r.out) as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['fs_read_text_file', 'fs_list_directory']));
    expect(names).not.toContain('read_text_file');
  });

  it('ptc check: a program is type-checked against the imported tools', async () => {
    const good = program(
      'good.ts',
      `const r = await tools.read_text_file({ path: 'a.txt' }); return r.content.length;`,
    );
    expect(await ptc('check', good, '--mcp', fsServer)).toEqual({ code: 0, out: '', err: '' });
    const bad = program('bad.ts', `const r = await tools.read_text_file({ path: 'a.txt' }); return r.size;`);
    const r = await ptc('check', bad, '--mcp', fsServer);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^1:\d+ .*'size'/u);
  });

  it('every tool of server-everything is imported (formats and all); a refused tool is warned about on stderr; the rest works', async () => {
    const everything = await ptc('schemas', '--mcp', commandLine(EVERYTHING.entry));
    expect(everything.code).toBe(0);
    expect(everything.err).toBe('');
    expect((JSON.parse(everything.out) as { name: string }[]).map((t) => t.name)).toEqual(
      expect.arrayContaining(['get-sum', 'gzip-file-as-resource']),
    );
    const r = await ptc('schemas', '--mcp', commandLine(JSON_SCHEMA_SERVER));
    expect(r.code).toBe(0);
    expect(r.err).toMatch(
      /^ptc: warning: MCP server "json-schema-fixture": skipped tool "fetch_remote" \(refused schema keyword "\$ref"\)/mu,
    );
    expect((JSON.parse(r.out) as { name: string }[]).map((t) => t.name)).toContain('count_tree');
  });

  it('usage errors: a server that does not start, an unterminated quote, too many prefixes', async () => {
    const missing = await ptc('sdk', '--mcp', 'no-such-mcp-server-binary');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^ptc: --mcp: MCP server "no-such-mcp-server-binary" could not be started/u);
    const quote = await ptc('sdk', '--mcp', 'node "unterminated');
    expect(quote).toEqual({ code: 2, out: '', err: expect.stringMatching(/unterminated " quote/u) });
    const prefixes = await ptc('sdk', '--mcp', fsServer, '--mcp-prefix', 'a_', '--mcp-prefix', 'b_');
    expect(prefixes).toEqual({ code: 2, out: '', err: expect.stringMatching(/2 prefixes for 1 --mcp servers/u) });
  });
});

describe('CLI --mcp-env', () => {
  const envServer = commandLine(join(REPO, 'test/mcp/fixtures/env-server.ts'));
  const read = 'return [await tools.get_env({ name: "PTC_A" }), await tools.get_env({ name: "PTC_B" })];';

  it("a stdio server gets the MCP SDK's default environment plus each --mcp-env KEY=VALUE, or KEY with our value", async () => {
    const scratch = scratchDir();
    const file = join(scratch.dir, 'env.ts');
    writeFileSync(file, read);
    process.env['PTC_B'] = 'from the parent';
    try {
      const without = await ptc('run', file, '--mcp', envServer, '--json');
      expect(JSON.parse(without.out).value).toEqual({ logs: [], result: ['(unset)', '(unset)'] });
      const given = await ptc(
        'run',
        file,
        '--mcp',
        envServer,
        '--mcp-env',
        'PTC_A=a=1',
        '--mcp-env',
        'PTC_B',
        '--json',
      );
      expect(given.err).toBe('');
      expect(JSON.parse(given.out).value).toEqual({ logs: [], result: ['a=1', 'from the parent'] });
    } finally {
      delete process.env['PTC_B'];
      scratch.remove();
    }
  });

  it('a bad or unset variable, or --mcp-env without --mcp, is a usage error that says so', async () => {
    expect(await ptc('sdk', '--mcp', envServer, '--mcp-env', '1X=y')).toMatchObject({
      code: 2,
      err: expect.stringContaining('--mcp-env: expected KEY=VALUE or KEY (a variable name), got "1X"'),
    });
    expect(await ptc('sdk', '--mcp', envServer, '--mcp-env', 'PTC_SURELY_UNSET')).toMatchObject({
      code: 2,
      err: expect.stringContaining('--mcp-env PTC_SURELY_UNSET: PTC_SURELY_UNSET is not set in this environment'),
    });
    expect(await ptc('sdk', '--mcp-env', 'A=b')).toMatchObject({
      code: 2,
      err: expect.stringContaining('--mcp-env sets variables of the --mcp servers'),
    });
  });
});
