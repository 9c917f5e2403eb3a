// Paths and versions of the real third-party MCP servers the suite runs (installed
// from the npm registry by `npm ci`), and a scratch directory for the filesystem one.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { boundStep, reportOnSignalArgs } from '../support/watched-child.ts';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const PTC_BIN = join(REPO, 'bin', 'ptc.js');
const pkgDir = (name: string): string => join(REPO, 'node_modules', ...name.split('/'));

/** `node <entry>` of an installed MCP server package (its `bin`). */
export function serverEntry(
  name:
    | '@modelcontextprotocol/server-filesystem'
    | '@modelcontextprotocol/server-everything'
    | '@modelcontextprotocol/server-memory'
    | '@modelcontextprotocol/server-sequential-thinking'
    | '@modelcontextprotocol/server-postgres',
): { entry: string; version: string } {
  const pkg = JSON.parse(readFileSync(join(pkgDir(name), 'package.json'), 'utf8')) as {
    version: string;
    bin: Record<string, string>;
  };
  const bin = Object.values(pkg.bin)[0]!;
  return { entry: join(pkgDir(name), bin), version: pkg.version };
}

export const FS = serverEntry('@modelcontextprotocol/server-filesystem');
export const EVERYTHING = serverEntry('@modelcontextprotocol/server-everything');
export const MEMORY = serverEntry('@modelcontextprotocol/server-memory');
export const SEQUENTIAL_THINKING = serverEntry('@modelcontextprotocol/server-sequential-thinking');
/** Takes the database URL as its one argument; archived upstream, still published. */
export const POSTGRES = serverEntry('@modelcontextprotocol/server-postgres');
/** Our own stdio MCP server whose tools use every JSON Schema keyword the import accepts (and one it refuses). */
export const JSON_SCHEMA_SERVER = join(REPO, 'test', 'mcp', 'fixtures', 'json-schema-server.ts');

/** A command line that starts a server with this Node (paths quoted for the splitter). */
export const commandLine = (entry: string, ...args: string[]): string =>
  [process.execPath, entry, ...args].map((w) => `'${w}'`).join(' ');

/** A fresh directory with two small text files; remove() deletes it. */
export function scratchDir(): { dir: string; remove: () => void } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-mcp-')));
  writeFileSync(join(dir, 'a.txt'), 'alpha\n');
  writeFileSync(join(dir, 'b.txt'), 'beta\n');
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Whether a process still exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Ids of this process's live children whose command line mentions `needle` (Linux /proc). */
export function childPids(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/u.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      if (ppid === process.pid && state !== 'Z' && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle))
        pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** Spawns `ptc serve --http 127.0.0.1:0 …` and waits for the line that gives its URL; `cleanups` gets its kill. */
export async function spawnServe(
  cleanups: (() => Promise<void>)[],
  args: string[],
  env: Record<string, string>,
): Promise<{
  child: ChildProcessWithoutNullStreams;
  url: string;
  stderr: () => string;
  exited: Promise<number | null>;
}> {
  const childEnv: Record<string, string> = { ...(process.env as Record<string, string>), NODE_OPTIONS: '', ...env };
  if (env['PTC_SERVE_TOKEN'] === '') delete childEnv['PTC_SERVE_TOKEN'];
  const reports = mkdtempSync(join(tmpdir(), 'ptc-serve-reports-'));
  const child = spawn(
    process.execPath,
    ['--no-node-snapshot', ...reportOnSignalArgs(reports), 'bin/ptc.js', 'serve', '--http', '127.0.0.1:0', ...args],
    { cwd: REPO, env: childEnv },
  );
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(reports, { recursive: true, force: true });
  });
  // Bounded: a server that neither listens nor exits fails naming the step and where it stood.
  const url = await boundStep(
    child,
    reports,
    `ptc serve ${args.join(' ')}: its "serving MCP" line`,
    new Promise<string>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        err += chunk;
        const match = /serving MCP over Streamable HTTP at (\S+)/.exec(err);
        if (match !== null) resolve(match[1]!);
      });
      void exited.then((code) => reject(new Error(`ptc serve exited (${String(code)}): ${err}`)));
    }),
    () => `stderr: ${JSON.stringify(err.slice(-2000))}`,
  );
  return { child, url, stderr: () => err, exited };
}
