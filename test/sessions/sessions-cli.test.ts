// `ptc serve --sessions` as a real stdio child driven by the MCP SDK's client: run_code
// documents `session`, a second call continues the first's state; then the operator's
// `ptc sessions list|show|delete` on the same SQLite journal, and a deleted session's next
// program fails with SESSION_EXPIRED.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { main } from '../../src/cli/main.ts';
import { PTC_BIN, scratchDir } from '../mcp/helpers.ts';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

const textOf = (result: unknown): string =>
  ((result as { content: { type: string; text?: string }[] }).content ?? []).map((b) => b.text ?? '').join('\n');

describe('ptc serve --sessions and ptc sessions', () => {
  const scratch = scratchDir();
  const journal = join(scratch.dir, 'journal.db');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--no-node-snapshot', PTC_BIN, 'serve', '--mode', 'ptc', '--sessions', '--journal', journal],
    stderr: 'pipe',
  });
  const client = new Client({ name: 'sessions-test', version: '1' });
  beforeAll(async () => {
    await client.connect(transport);
  }, 60_000);
  afterAll(async () => {
    await client.close();
    scratch.remove();
  });

  const runCode = (code: string, session?: string): Promise<unknown> =>
    client.callTool({
      name: 'run_code',
      arguments: { description: 'Use the session', code, ...(session === undefined ? {} : { session }) },
    });

  it('serves run_code with `session`, continues a session, and the operator lists, shows and deletes it', async () => {
    const runCodeTool = (await client.listTools()).tools.find((t) => t.name === 'run_code');
    expect(Object.keys(runCodeTool?.inputSchema.properties ?? {})).toContain('session');
    expect(runCodeTool?.description).toContain('declare var state: any;');

    const first = textOf(await runCode('state.seen = ["a"]; return "one";'));
    const id = /\[session "([A-Za-z0-9_-]+)": state saved/u.exec(first)?.[1];
    expect(id).toBeDefined();
    const second = textOf(await runCode('state.seen.push("b"); return state.seen.join();', id));
    expect(second).toContain('a,b');

    // Whole outcomes compared: a failure shows what the command wrote to stderr.
    const list = await cli('sessions', 'list', '--journal', journal);
    expect(list).toMatchObject({ code: 0 });
    expect(list.out).toContain(id!);
    const show = await cli('sessions', 'show', id!, '--journal', journal, '--json');
    expect(show).toMatchObject({ code: 0 });
    expect(JSON.parse(show.out)).toMatchObject({ id, state: '{"seen":["a","b"]}', version: 2 });
    expect(await cli('sessions', 'delete', id!, '--journal', journal)).toMatchObject({ code: 0 });
    expect((await cli('sessions', 'show', id!, '--journal', journal)).code).toBe(1);

    const gone = await runCode('return state.seen;', id);
    expect((gone as { isError?: boolean }).isError).toBe(true);
    expect(textOf(gone)).toContain('unknown or has expired');
  });

  it("an id that starts with '-' goes after --; without it the error says so", async () => {
    const asOption = await cli('sessions', 'show', '-abc', '--journal', journal);
    expect(asOption.code).toBe(2);
    expect(asOption.err).toContain("unknown option '-abc' (an argument that starts with - goes after --)");
    const afterDashes = await cli('sessions', 'show', '--journal', journal, '--', '-abc');
    expect(afterDashes).toMatchObject({ code: 1, err: expect.stringContaining('no live session -abc') });
  });

  it('refuses --session-ttl-ms without --sessions (exit 2)', async () => {
    const result = await cli('serve', '--session-ttl-ms', '1000');
    expect(result.code).toBe(2);
    expect(result.err).toContain('--session-ttl-ms applies with --sessions only');
  });
});
