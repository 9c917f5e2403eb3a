// A throwaway PostgreSQL cluster for tests (and the bench): Debian's server binaries
// (/usr/lib/postgresql/<version>/bin; `apt-get install -y postgresql` when missing —
// .ci/run does), a copy of one `initdb` (made once per server version) in a temp folder,
// and `pg_ctl start` on a free port of 127.0.0.1 with trust auth, run as the `postgres` user
// when we are root (the server refuses to run as root). `stop()` stops it and removes the folder; a process exit
// that skipped `stop()` still stops it. No mock: the tests talk to a real server.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PostgresCluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust auth). */
  readonly url: string;
  readonly port: number;
  /** A URL for another database of the cluster (created by `createDatabase`). */
  urlOf(database: string, user?: string, password?: string): string;
  /** Creates a database (its name: lower-case letters, digits and _). */
  createDatabase(name: string): Promise<string>;
  /** Runs SQL as the superuser on the `postgres` database. */
  sql(text: string): Promise<unknown[]>;
  stop(): Promise<void>;
}

export interface StartPostgresOptions {
  /**
   * fsync off: fine for tests (they kill clients, never the server) and much faster on a
   * shared disk. The bench keeps the default (on) to measure real commits. @default true
   */
  readonly fast?: boolean;
  /** A role `ptc_password` with password `right` that must authenticate with it (scram). */
  readonly passwordRole?: boolean;
}

/** The bin folder of the newest installed server version; a clear error when there is none. */
export function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0)
    throw new Error(
      'no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (install them: apt-get install -y postgresql)',
    );
  return join(root, versions[0]!, 'bin');
}

const isRoot = (): boolean => process.getuid?.() === 0;

/** util-linux's runuser: root's PATH has the sbin folders, a bare or reduced one may not. */
const runuser = (): string =>
  ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser', '/bin/runuser'].find((path) => existsSync(path)) ??
  'runuser';

/** Runs a server binary as the postgres user when we are root. */
function runAsServerUser(command: string, args: readonly string[]): void {
  const [file, argv] = isRoot() ? [runuser(), ['-u', 'postgres', '--', command, ...args]] : [command, [...args]];
  const result = spawnSync(file, argv, { encoding: 'utf8', timeout: 120_000 });
  if (result.error !== undefined)
    throw new Error(`${command} ${args.join(' ')} could not be run (${file}): ${result.error.message}`);
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}${result.stdout}`);
}

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

/** The initdb arguments every cluster starts from. */
const INITDB_ARGS = ['-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--no-instructions'];

/**
 * A data folder fresh from initdb for this server version, made once and kept in the temp
 * folder for every later cluster to copy. It is made beside its final name and renamed into
 * place, so a concurrent test file (another jest worker) sees either none or a whole one.
 */
function initializedData(bin: string): string {
  const version = bin.split('/').at(-2) ?? 'unknown';
  const args = createHash('sha256').update(INITDB_ARGS.join(' ')).digest('hex').slice(0, 8);
  const template = join(tmpdir(), `ptc-pg-initdb-${version}-${args}-${process.getuid?.() ?? 0}`);
  if (existsSync(join(template, 'PG_VERSION'))) return template;
  const making = mkdtempSync(`${template}.making-`);
  try {
    serverUserOwns(making);
    runAsServerUser(join(bin, 'initdb'), ['-D', join(making, 'data'), ...INITDB_ARGS]);
    try {
      renameSync(join(making, 'data'), template);
    } catch (error) {
      // Another worker renamed its copy first: use that one.
      if (!existsSync(join(template, 'PG_VERSION'))) throw error;
    }
  } finally {
    // A failed initdb leaves nothing behind either.
    rmSync(making, { recursive: true, force: true });
  }
  return template;
}

/** The server refuses to run as root: its folders belong to the postgres user when we are root. */
function serverUserOwns(dir: string): void {
  if (!isRoot()) return;
  const uid = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
  const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
  chownSync(dir, Number(uid), Number(gid));
}

export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresCluster> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'ptc-pg-'));
  const data = join(dir, 'data');
  serverUserOwns(dir);
  // A copy of one initdb per server version (initdb costs each cluster about a second of CPU; a copy, a tenth).
  runAsServerUser('cp', ['-a', initializedData(bin), data]);
  // Password role first: the first matching line wins.
  writeFileSync(
    join(data, 'pg_hba.conf'),
    [
      'local all all trust',
      'host all ptc_password 127.0.0.1/32 scram-sha-256',
      'host all all 127.0.0.1/32 trust',
      '',
    ].join('\n'),
  );
  appendFileSync(
    join(data, 'postgresql.conf'),
    [
      '',
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'max_connections = 200',
      ...(options.fast === false ? [] : ['fsync = off', 'synchronous_commit = off', 'full_page_writes = off']),
      '',
    ].join('\n'),
  );
  let port = 0;
  let started = false;
  for (let attempt = 0; attempt < 5 && !started; attempt += 1) {
    port = await freePort();
    try {
      runAsServerUser(join(bin, 'pg_ctl'), [
        '-D',
        data,
        '-l',
        join(dir, 'log'),
        '-o',
        `-p ${port}`,
        '-w',
        '-t',
        '60',
        'start',
      ]);
      started = true;
    } catch (error) {
      if (attempt === 4) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
  let stopped = false;
  const stopSync = (): void => {
    if (stopped) return;
    stopped = true;
    try {
      runAsServerUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // Already gone.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stopSync);

  const urlOf = (database: string, user = 'postgres', password?: string): string =>
    `postgres://${user}${password === undefined ? '' : `:${encodeURIComponent(password)}`}@127.0.0.1:${port}/${database}`;
  const url = urlOf('postgres');
  const sql = async (text: string): Promise<unknown[]> => {
    const pg = await import('pg');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  };
  if (options.passwordRole === true) await sql("CREATE ROLE ptc_password LOGIN PASSWORD 'right'");
  return {
    url,
    port,
    urlOf,
    async createDatabase(name) {
      if (!/^[a-z0-9_]+$/u.test(name)) throw new Error(`bad database name ${name}`);
      await sql(`CREATE DATABASE ${name}`);
      return urlOf(name);
    },
    sql,
    async stop() {
      process.off('exit', stopSync);
      stopSync();
    },
  };
}
