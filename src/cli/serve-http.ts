// `ptc serve --http <host:port>`: the address and token rules of the CLI, checked before
// anything starts, and the serve loop that ends gracefully on SIGTERM/SIGINT.
// Token rule: PTC_SERVE_TOKEN is required to bind anything but loopback; on loopback
// without it, a random token is generated for this run and printed on stderr, so the
// server never answers an unauthenticated request.
import { randomBytes } from 'node:crypto';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';
import { isLoopbackHost, MIN_TOKEN_LENGTH } from '../mcp/http-access.ts';
import { UsageError } from './usage-error.ts';

export interface HttpServeFlags {
  readonly http: string;
  readonly allowedHost?: readonly string[];
  readonly allowedOrigin?: readonly string[];
  readonly maxBodyBytes?: number;
  /** Every call runs as this agent (already checked to exist). */
  readonly agent?: string;
  /** `--approval pause`: list and answer the operator tools ptc_runs / ptc_resume. */
  readonly runOperatorTools?: boolean;
}

export interface HttpServePlan {
  readonly host: string;
  readonly port: number;
  readonly token: string;
  /** The token was generated for this run (and must be shown to the user). */
  readonly generated: boolean;
}

/** `host:port`, `[v6]:port` or a bare port (loopback). */
export function parseListenAddress(value: string): { host: string; port: number } {
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]+):)?(\d{1,5})$/u.exec(value.trim());
  const port = match === null ? Number.NaN : Number(match[2]);
  if (match === null || port > 65_535) {
    throw new UsageError(
      `--http ${JSON.stringify(value)}: expected <host:port> (e.g. 127.0.0.1:8080, [::1]:8080, 0.0.0.0:8080) or a port`,
    );
  }
  const host = match[1] ?? '127.0.0.1';
  return { host: host.startsWith('[') ? host.slice(1, -1) : host, port };
}

/** Decides address and token before the runtime starts; refuses a public address without PTC_SERVE_TOKEN. */
export function planHttpServe(flags: HttpServeFlags, env: NodeJS.ProcessEnv): HttpServePlan {
  const { host, port } = parseListenAddress(flags.http);
  const given = env['PTC_SERVE_TOKEN'];
  if (given !== undefined && given !== '') {
    if (given.length < MIN_TOKEN_LENGTH) {
      throw new UsageError(
        `PTC_SERVE_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters (e.g. export PTC_SERVE_TOKEN=$(openssl rand -hex 32))`,
      );
    }
    return { host, port, token: given, generated: false };
  }
  if (!isLoopbackHost(host)) {
    throw new UsageError(
      `--http ${flags.http}: refusing to serve on a non-loopback address without a bearer token; ` +
        'set PTC_SERVE_TOKEN (e.g. export PTC_SERVE_TOKEN=$(openssl rand -hex 32)) and send it as Authorization: Bearer <token>',
    );
  }
  return { host, port, token: randomBytes(32).toString('base64url'), generated: true };
}

/** Serves until SIGTERM or SIGINT, then lets the calls in flight finish. */
export async function serveHttpUntilSignal(
  rt: ToolRuntime,
  plan: HttpServePlan,
  flags: HttpServeFlags,
  err: (text: string) => void,
): Promise<void> {
  const { serveMcpHttp } = await import('../mcp/serve-mcp-http.ts');
  let server;
  try {
    server = await serveMcpHttp(rt, {
      token: plan.token,
      host: plan.host,
      port: plan.port,
      ...(flags.allowedHost === undefined ? {} : { allowedHosts: flags.allowedHost }),
      ...(flags.allowedOrigin === undefined ? {} : { allowedOrigins: flags.allowedOrigin }),
      ...(flags.maxBodyBytes === undefined ? {} : { maxBodyBytes: flags.maxBodyBytes }),
      ...(flags.agent === undefined ? {} : { agent: flags.agent }),
      ...(flags.runOperatorTools === true ? { runOperatorTools: true } : {}),
    });
  } catch (error) {
    const message = (error as Error).message.replace(/^serveMcpHttp: /u, '');
    throw new UsageError(
      `--http ${flags.http}: ${message.replace('allowedHosts (CLI: --allowed-host <name>)', '--allowed-host <name>')}`,
    );
  }
  if (plan.generated) err(`ptc: PTC_SERVE_TOKEN is not set; bearer token for this run: ${plan.token}\n`);
  err(`ptc: serving MCP over Streamable HTTP at ${server.url}\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  err(`ptc: shutting down; finishing ${server.inFlight} request(s) in flight\n`);
  await server.close();
}
