// The deployment guide's nginx configuration, as written in docs/deployment.md (only
// its addresses replaced by free local ports), in front of two `ptc serve --http`
// processes on one PostgreSQL journal (a throwaway cluster): calls from several MCP
// clients through nginx reach both processes and land in the one journal; with one
// process SIGKILLed, calls through nginx still succeed on the other. nginx is Debian's
// `nginx` package (.ci/run and scripts/test.sh install it when it is missing).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { openPostgresJournal } from '../../src/index.ts';
import { REPO } from '../mcp/helpers.ts';
import { startPostgres, type PostgresCluster } from '../support/postgres-cluster.ts';

/** Debian's nginx is in /usr/sbin, which a reduced PATH may lack (scripts/ensure-test-servers.sh accepts it there). */
const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path)) ?? 'nginx';

const TOKEN = 'deployment-test-token-0123456789';
let cluster: PostgresCluster;
let journalUrl = '';
let dir = '';
const children: ChildProcess[] = [];
let servers: { port: number; child: ChildProcess }[] = [];
let nginxPort = 0;
let nginx: ChildProcess | undefined;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

async function listening(port: number, what: string): Promise<void> {
  for (let i = 0; i < 600; i += 1) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not listen on ${port}`);
}

function serve(port: number): ChildProcess {
  const child = spawn(
    process.execPath,
    [
      '--no-node-snapshot',
      'bin/ptc.js',
      'serve',
      '--mode',
      'ptc',
      '--http',
      `127.0.0.1:${port}`,
      '--journal',
      journalUrl,
    ],
    {
      cwd: REPO,
      env: { ...process.env, NODE_OPTIONS: '', PTC_SERVE_TOKEN: TOKEN },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  children.push(child);
  return child;
}

/** The ```nginx block of docs/deployment.md. */
function documentedConfig(): string {
  const doc = readFileSync(join(REPO, 'docs', 'deployment.md'), 'utf8');
  const match = /```nginx\n([\s\S]*?)```/u.exec(doc);
  if (match === null) throw new Error('docs/deployment.md has no ```nginx block');
  return match[1]!;
}

beforeAll(async () => {
  cluster = await startPostgres();
  journalUrl = await cluster.createDatabase('deploy');
  dir = mkdtempSync(join(tmpdir(), 'ptc-nginx-'));
  servers = [];
  for (const _ of [1, 2]) {
    const port = await freePort();
    servers.push({ port, child: serve(port) });
  }
  nginxPort = await freePort();
  const config = documentedConfig()
    .replace('127.0.0.1:8081', `127.0.0.1:${servers[0]!.port}`)
    .replace('127.0.0.1:8082', `127.0.0.1:${servers[1]!.port}`)
    .replace('listen 127.0.0.1:8080;', `listen 127.0.0.1:${nginxPort};`);
  writeFileSync(join(dir, 'ptc.conf'), config);
  // The test's own frame around the documented file: paths in the temp folder, and a log of which process served each request.
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      ...(process.getuid?.() === 0 ? ['user root;'] : []),
      'worker_processes 1;',
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log;`,
      'events { worker_connections 256; }',
      'http {',
      "  log_format upstream '$upstream_addr $status';",
      `  access_log ${dir}/access.log upstream;`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir}/${t};`),
      `  include ${dir}/ptc.conf;`,
      '}',
      '',
    ].join('\n'),
  );
  execFileSync(NGINX, ['-t', '-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: 'pipe' });
  nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'ignore' });
  await Promise.all([listening(nginxPort, 'nginx'), ...servers.map((s) => listening(s.port, 'ptc serve'))]);
}, 180_000);

afterAll(async () => {
  // nginx's master ends its workers on SIGTERM (a SIGKILLed master would leave them running).
  if (nginx !== undefined && nginx.exitCode === null && nginx.signalCode === null) {
    const exited = new Promise((resolve) => nginx!.once('exit', resolve));
    nginx.kill('SIGTERM');
    await exited;
  }
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await cluster?.stop();
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

/** One MCP client through nginx runs one program; resolves with its text. */
async function runThroughNginx(n: number): Promise<string> {
  const client = new Client({ name: `deploy-${n}`, version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${nginxPort}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  try {
    const result = (await client.callTool({
      name: 'run_code',
      arguments: {
        description: `count EU customers (${n})`,
        code: `const eu = await tools.list_customers({ region: 'EU' }); return { n: ${n}, eu: eu.length };`,
      },
    })) as CallToolResult;
    expect(result.isError).not.toBe(true);
    return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  } finally {
    await client.close();
  }
}

const upstreamsServed = (): Set<string> =>
  new Set(
    readFileSync(join(dir, 'access.log'), 'utf8')
      .split('\n')
      .filter((l) => / 200$/u.test(l))
      .map((l) => l.split(' ')[0]!),
  );

describe('docs/deployment.md: nginx in front of two ptc serve --http on one PostgreSQL', () => {
  it('calls through nginx reach both processes and land in the one journal', async () => {
    const texts: string[] = [];
    for (let n = 1; n <= 8; n += 1) texts.push(await runThroughNginx(n));
    texts.forEach((t, i) => expect(t).toContain(`"n": ${i + 1}`));
    expect(upstreamsServed()).toEqual(new Set(servers.map((s) => `127.0.0.1:${s.port}`)));
    // Both processes wrote into the same database: every run's call and result, with its nested call.
    const journal = openPostgresJournal(journalUrl);
    const runs = await journal.query({ type: 'tool/result' });
    await journal.close();
    const runCodeResults = runs.filter((e) => e.event.name === 'run_code');
    expect(runCodeResults).toHaveLength(8);
    expect(runs.filter((e) => e.event.name === 'list_customers')).toHaveLength(8);
  }, 120_000);

  it('with one process killed, calls through nginx still succeed on the other', async () => {
    servers[0]!.child.kill('SIGKILL');
    await new Promise((resolve) => servers[0]!.child.once('exit', resolve));
    for (let n = 11; n <= 14; n += 1) expect(await runThroughNginx(n)).toContain(`"n": ${n}`);
  }, 120_000);
});
