// `ptc serve --http` as a user starts it (the real executable, 127.0.0.1 port 0): the
// official client lists and runs run_code, SIGTERM ends it after the call in flight;
// the token rules (a public address without PTC_SERVE_TOKEN is refused; on loopback a
// token is generated and printed); and `--mcp-url` / `--mcp-header` importing the tools
// of an HTTP server this test starts.
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { main } from '../../src/cli/main.ts';
import { createToolRuntime } from '../../src/index.ts';
import { connectMcpServer, serveMcpHttp } from '../../src/mcp/index.ts';
import tools from './fixtures/tools.ts';
import { keepAliveHeader } from '../support/keep-alive-header.ts';
import { scratchDir, spawnServe } from './helpers.ts';

const TOKEN = 'cli-test-token-0123456789';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function ptc(
  argv: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; out: string; err: string }> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  let out = '';
  let err = '';
  try {
    const code = await main(argv, { out: (t) => (out += t), err: (t) => (err += t) });
    return { code, out, err };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

async function client(url: string, token: string): Promise<Client> {
  const c = new Client({ name: 'cli-test', version: '1' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  cleanups.push(() => c.close());
  return c;
}

describe('ptc serve --http: token rules', () => {
  it('refuses a public address without PTC_SERVE_TOKEN, before starting anything', async () => {
    const run = await ptc(['serve', '--http', '0.0.0.0:0'], { PTC_SERVE_TOKEN: undefined });
    expect(run.code).toBe(2);
    expect(run.err).toMatch(
      /^ptc: --http 0\.0\.0\.0:0: refusing to serve on a non-loopback address without a bearer token; set PTC_SERVE_TOKEN[^\n]*\n$/,
    );
  });

  it('refuses a short token, a bad address, and a wildcard address without --allowed-host', async () => {
    expect((await ptc(['serve', '--http', '127.0.0.1:0'], { PTC_SERVE_TOKEN: 'short' })).err).toMatch(
      /PTC_SERVE_TOKEN must be at least 16 characters/,
    );
    expect((await ptc(['serve', '--http', 'nowhere'], { PTC_SERVE_TOKEN: TOKEN })).err).toMatch(/expected <host:port>/);
    const wildcard = await ptc(['serve', '--http', '0.0.0.0:0'], { PTC_SERVE_TOKEN: TOKEN });
    expect(wildcard.code).toBe(2);
    expect(wildcard.err).toMatch(/needs --allowed-host <name>/);
    expect((await ptc(['serve', '--allowed-host', 'x'])).err).toMatch(/apply to --http only/);
    expect((await ptc(['serve', '--keep-alive-ms', '60000'])).err).toMatch(/--keep-alive-ms apply to --http only/);
    expect((await ptc(['serve', '--http', '127.0.0.1:0', '--keep-alive-ms', '0'])).err).toMatch(/--keep-alive-ms/);
    const tooLong = await ptc(['serve', '--http', '127.0.0.1:0', '--keep-alive-ms', '600001'], {
      PTC_SERVE_TOKEN: TOKEN,
    });
    expect(tooLong.code).toBe(2);
    expect(tooLong.err).toMatch(
      /^ptc: --http 127\.0\.0\.1:0: --keep-alive-ms must be an integer 1–600000 \(ms\), got 600001\n/,
    );
  });
});

describe('ptc serve --http: the real executable', () => {
  const scratch = scratchDir();
  afterAll(() => scratch.remove());

  it('serves run_code to the official client, journals it, and exits 0 on SIGTERM after the call in flight', async () => {
    const journal = join(scratch.dir, 'serve.jsonl');
    const served = await spawnServe(cleanups, ['--mode', 'ptc', '--journal', journal, '--keep-alive-ms', '65000'], {
      PTC_SERVE_TOKEN: TOKEN,
    });
    expect(served.stderr()).not.toContain(TOKEN); // a given token is never printed
    // An idle connection stays open for --keep-alive-ms, as the server tells its clients.
    expect(await keepAliveHeader(served.url)).toBe('timeout=65');
    const c = await client(served.url, TOKEN);
    expect((await c.listTools()).tools.map((t) => t.name)).toEqual(['run_code']);
    // A run that is still going when SIGTERM arrives: it finishes and answers.
    const running = c.callTool({
      name: 'run_code',
      arguments: {
        description: 'Count EU customers',
        code: 'const c = await tools.list_customers({ region: "EU" }); let n = 0; for (let i = 0; i < 3e7; i++) n += i % 2; return c.length;',
      },
    }) as Promise<CallToolResult>;
    // SIGTERM once the server has the call (its run is journaled): sent sooner, under load
    // it could come before the server read the request, which would then never be served.
    const journaled = (): boolean => existsSync(journal) && readFileSync(journal, 'utf8').includes('"run_code"');
    for (let i = 0; i < 2_000 && !journaled(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(journaled()).toBe(true);
    served.child.kill('SIGTERM');
    const result = await running;
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual({ logs: [], result: 16 });
    expect(await served.exited).toBe(0);
    expect(served.stderr()).toMatch(/shutting down; finishing \d+ request\(s\) in flight/);
    // The journal holds the run and its nested call, under the request's unique callId.
    const events = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; callId: string; name: string });
    const run = events.find((e) => e.type === 'tool/call' && e.name === 'run_code')!;
    expect(run.callId).toMatch(/^mcp-[0-9a-f-]{36}:\d+$/);
    expect(events.filter((e) => e.callId.startsWith(run.callId)).map((e) => `${e.type} ${e.name}`)).toEqual(
      expect.arrayContaining([
        'tool/call run_code',
        'tool/call list_customers',
        'tool/result list_customers',
        'tool/result run_code',
      ]),
    );
  });

  it('on loopback without PTC_SERVE_TOKEN, generates a token, prints it, and requires it', async () => {
    const served = await spawnServe(cleanups, [], { PTC_SERVE_TOKEN: '' });
    const token = /bearer token for this run: (\S+)/.exec(served.stderr())?.[1];
    expect(token).toMatch(/^[\w-]{40,}$/);
    const denied = await fetch(served.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(denied.status).toBe(401);
    const c = await client(served.url, token!);
    expect((await c.listTools()).tools.map((t) => t.name)).toContain('list_customers');
  });
});

describe('--mcp-url: tools of a remote Streamable HTTP server', () => {
  const scratch = scratchDir();
  afterAll(() => scratch.remove());

  async function remote() {
    const rt = createToolRuntime({ sandbox: false });
    for (const t of tools) rt.register(t);
    const server = await serveMcpHttp(rt, { token: TOKEN, port: 0 });
    cleanups.push(async () => {
      await server.close();
      await rt.close();
    });
    return server;
  }

  it('connectMcpServer({ url, headers }) imports the tools; a run_code program calls them', async () => {
    const server = await remote();
    const connection = await connectMcpServer({ url: server.url, headers: { Authorization: `Bearer ${TOKEN}` } });
    cleanups.push(() => connection.close());
    expect(connection.tools.map((t) => t.name).sort()).toEqual(['add', 'explode', 'greet']);
    expect(connection.pid).toBeUndefined();
    const rt = createToolRuntime({ mode: 'ptc' });
    cleanups.push(() => rt.close());
    for (const t of connection.tools) rt.register(t);
    const result = await rt.execute({
      callId: 'c1',
      name: 'run_code',
      arguments: { description: 'Remote add', code: 'const r = await tools.add({ a: 20, b: 22 }); return r.sum;' },
    });
    expect(result.value).toEqual({ logs: [], result: 42 });
  });

  it('ptc run --mcp-url … --mcp-header "Authorization: Bearer …"', async () => {
    const server = await remote();
    const file = join(scratch.dir, 'remote.ts');
    writeFileSync(
      file,
      'const r = await tools.add({ a: 1, b: 2 }); const g = await tools.greet({ who: "Ada" }); return `${g} ${r.sum}`;',
    );
    const ok = await ptc(['run', file, '--mcp-url', server.url, '--mcp-header', `Authorization: Bearer ${TOKEN}`]);
    expect(ok).toEqual({ code: 0, out: 'hello Ada 3\n', err: '' });
    const sdk = await ptc(['sdk', '--mcp-url', server.url, '--mcp-header', `Authorization: Bearer ${TOKEN}`]);
    expect(sdk.out).toMatch(/ add: Tool<\{/);
  });

  it('without the header the import fails with a usage error that does not echo secrets', async () => {
    const server = await remote();
    const file = join(scratch.dir, 'remote2.ts');
    writeFileSync(file, 'return 1;');
    const denied = await ptc(['run', file, '--mcp-url', `${server.url}?key=secret-in-query`]);
    expect(denied.code).toBe(2);
    expect(denied.err).toMatch(
      /^ptc: --mcp: MCP server "http:\/\/127\.0\.0\.1:\d+\/mcp" could not be started or listed/,
    );
    expect(denied.err).not.toContain('secret-in-query');
    const orphan = await ptc(['run', file, '--mcp-header', 'Authorization: Bearer x', '--mcp-url', server.url]);
    expect(orphan.err).toMatch(/--mcp-header must follow the --mcp-url/);
    const malformed = await ptc(['run', file, '--mcp-url', server.url, '--mcp-header', 'no colon here']);
    expect(malformed.err).toMatch(/expected "Name: value"/);
  });

  it('a --mode ptc server chained: its run_code collides with ours, so the error says how; --mcp-url-prefix renames it and the program calls it', async () => {
    const rt = createToolRuntime({ mode: 'ptc' });
    for (const t of tools) rt.register(t);
    const server = await serveMcpHttp(rt, { token: TOKEN, port: 0 });
    cleanups.push(async () => {
      await server.close();
      await rt.close();
    });
    const auth = `Authorization: Bearer ${TOKEN}`;
    const collides = await ptc(['sdk', '--mcp-url', server.url, '--mcp-header', auth]);
    expect(collides.code).toBe(2);
    expect(collides.err).toMatch(/"run_code" is reserved.*--mcp-url-prefix after its --mcp-url/su);
    const file = join(scratch.dir, 'chained.ts');
    writeFileSync(
      file,
      'const r = await tools.up_run_code({ description: "remote", code: "return (await tools.add({ a: 2, b: 3 })).sum;" }); return r;',
    );
    const ok = await ptc(['run', file, '--mcp-url', server.url, '--mcp-header', auth, '--mcp-url-prefix', 'up_']);
    expect(ok.err).toBe('');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toEqual({ logs: [], result: 5 });
    const orphan = await ptc(['sdk', '--mcp-url-prefix', 'up_', '--mcp-url', server.url, '--mcp-header', auth]);
    expect(orphan.err).toMatch(/--mcp-url-prefix must follow the --mcp-url/);
  });
});
