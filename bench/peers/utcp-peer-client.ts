// The bench's side of the UTCP peer: installs it on request (install-utcp.sh), starts
// utcp-peer.mjs under the peer's own Node 22 and asks it to time one program at a time,
// so the peers section can interleave UTCP's runs with ptc-runtime's.
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The install folder install-utcp.sh fills (gitignored): Node 22 and the UTCP packages. */
export const UTCP_PEER_DIR = resolve(process.env['UTCP_PEER_DIR'] ?? join(here, '..', '..', '.tools', 'peers', 'utcp'));
const INSTALL_SCRIPT = join(here, 'install-utcp.sh');
const DRIVER = join(here, 'utcp-peer.mjs');
export const UTCP_PEER_NODE = join(UTCP_PEER_DIR, 'node', 'bin', 'node');

/** How to install the peer, as a row tells it. */
export const UTCP_INSTALL_HINT =
  'install it with `npm run bench -- --only=peers` (installs when absent) or `bash bench/peers/install-utcp.sh`: ' +
  'Node 22 and @utcp/code-mode, @utcp/sdk, @utcp/direct-call, isolated-vm 6 into .tools/peers/utcp/ from the npm registry';

/** The programs the driver knows, by the names bench-programs.ts gives them. */
export type PeerProgram = 'trivial' | 'kb' | 'nested' | 'nested2k' | 'waitAll';

export interface UtcpVersions {
  readonly node: string;
  readonly codeMode: string;
  readonly sdk: string;
  readonly directCall: string;
  readonly isolatedVm: string;
}

export function utcpInstalled(): boolean {
  return existsSync(join(UTCP_PEER_DIR, 'installed.txt')) && existsSync(UTCP_PEER_NODE);
}

/** Runs the idempotent install script; returns why it failed, or undefined when installed. */
export function installUtcpPeer(log: (text: string) => void): string | undefined {
  log(`installing the UTCP peer into ${UTCP_PEER_DIR} (bench/peers/install-utcp.sh)`);
  try {
    execFileSync('bash', [INSTALL_SCRIPT], {
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      env: { ...process.env, UTCP_PEER_DIR },
    });
    return undefined;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    const last = stderr.trim().split('\n').slice(-4).join(' | ');
    return `install-utcp.sh failed: ${last || (error instanceof Error ? error.message : String(error))}`;
  }
}

/** A running utcp-peer.mjs --serve: one request at a time. */
export class UtcpPeer {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly reader: Interface;
  private readonly lines: AsyncIterator<string>;
  private readonly stderr: () => string;
  readonly versions: UtcpVersions;

  private constructor(
    child: ChildProcessWithoutNullStreams,
    reader: Interface,
    lines: AsyncIterator<string>,
    versions: UtcpVersions,
    stderr: () => string,
  ) {
    this.child = child;
    this.reader = reader;
    this.lines = lines;
    this.versions = versions;
    this.stderr = stderr;
  }

  static async start(): Promise<UtcpPeer> {
    // --no-node-snapshot: isolated-vm's own requirement on Node >= 20. The driver erases the
    // programs' types with node:module's stripTypeScriptTypes (experimental in 22).
    const child = spawn(
      UTCP_PEER_NODE,
      ['--no-node-snapshot', '--disable-warning=ExperimentalWarning', DRIVER, '--serve'],
      {
        env: { ...process.env, UTCP_PEER_DIR },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.on('error', (error) => {
      stderr += `${error.message}\n`;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-2000);
    });
    const reader = createInterface({ input: child.stdout });
    const lines = reader[Symbol.asyncIterator]();
    const first = await lines.next();
    const hello =
      first.done === true ? undefined : (JSON.parse(first.value) as { ready?: boolean; versions?: UtcpVersions });
    if (hello?.ready !== true || hello.versions === undefined) {
      child.kill();
      throw new Error(`utcp-peer.mjs did not start: ${stderr.trim() || 'no output'}`);
    }
    return new UtcpPeer(child, reader, lines, hello.versions, () => stderr);
  }

  /** Milliseconds one callToolChain of the program took, timed inside the peer's process. */
  async time(program: PeerProgram): Promise<number> {
    this.child.stdin.write(`${JSON.stringify({ program })}\n`);
    const next = await this.lines.next();
    if (next.done === true) throw new Error(`utcp-peer.mjs exited: ${this.stderr().trim() || 'no output'}`);
    const reply = JSON.parse(next.value) as { ms?: number; error?: string };
    if (reply.ms === undefined) throw new Error(`utcp-peer.mjs: ${reply.error ?? next.value}`);
    return reply.ms;
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((done) => this.child.once('exit', () => done()));
    this.child.stdin.end();
    this.reader.close();
    await exited;
  }
}
