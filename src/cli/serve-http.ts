// `ptc serve --http <host:port>`: the address and token rules of the CLI, checked before
// anything starts, and the serve loop that ends gracefully on SIGTERM/SIGINT.
// Token rule: PTC_SERVE_TOKEN is required to bind anything but loopback; on loopback
// without it, a random token is generated for this run and printed on stderr, so the
// server never answers an unauthenticated request. The operator (who approves paused
// runs) has a token of its own, PTC_OPERATOR_TOKEN, never generated: without it (or
// without a journal) there is no operator surface, and the start says so.
import { randomBytes } from 'node:crypto';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';
import { isLoopbackHost, MIN_TOKEN_LENGTH } from '../mcp/http-access.ts';
import { UsageError } from './usage-error.ts';

export interface HttpServeFlags {
  readonly http: string;
  readonly allowedHost?: readonly string[];
  readonly allowedOrigin?: readonly string[];
  readonly maxBodyBytes?: number;
  /** How long an idle kept-alive connection stays open (ms). */
  readonly keepAliveMs?: number;
  /** Every call runs as this agent (already checked to exist). */
  readonly agent?: string;
  /** `--journal`: durable runs exist, so an operator surface can be offered. */
  readonly journal?: string;
}

export interface HttpServePlan {
  readonly host: string;
  readonly port: number;
  readonly token: string;
  /** The token was generated for this run (and must be shown to the user). */
  readonly generated: boolean;
  /** The operator surface: its token and the agents it is limited to; or why it is off. */
  readonly operator:
    | { readonly token: string; readonly agents?: readonly string[] }
    | { readonly token?: undefined; readonly off: string };
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

/** Decides address and tokens before the runtime starts; refuses a public address without PTC_SERVE_TOKEN. */
export function planHttpServe(flags: HttpServeFlags, env: NodeJS.ProcessEnv): HttpServePlan {
  const { host, port } = parseListenAddress(flags.http);
  const given = env['PTC_SERVE_TOKEN'];
  let model: { token: string; generated: boolean };
  if (given !== undefined && given !== '') {
    if (given.length < MIN_TOKEN_LENGTH) {
      throw new UsageError(
        `PTC_SERVE_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters (e.g. export PTC_SERVE_TOKEN=$(openssl rand -hex 32))`,
      );
    }
    model = { token: given, generated: false };
  } else if (!isLoopbackHost(host)) {
    throw new UsageError(
      `--http ${flags.http}: refusing to serve on a non-loopback address without a bearer token; ` +
        'set PTC_SERVE_TOKEN (e.g. export PTC_SERVE_TOKEN=$(openssl rand -hex 32)) and send it as Authorization: Bearer <token>',
    );
  } else {
    model = { token: randomBytes(32).toString('base64url'), generated: true };
  }
  return { host, port, ...model, operator: planOperator(flags, env, model.token) };
}

/** PTC_OPERATOR_TOKEN (its own secret, ≥ 16 characters) and PTC_OPERATOR_AGENTS (a,b: the agents it may act for). */
function planOperator(flags: HttpServeFlags, env: NodeJS.ProcessEnv, modelToken: string): HttpServePlan['operator'] {
  const token = env['PTC_OPERATOR_TOKEN'];
  if (token === undefined || token === '')
    return {
      off: 'PTC_OPERATOR_TOKEN is not set: no client can list or resume paused runs here (set it to a secret of its own, at least 16 characters, to serve the operator tools and the /runs page)',
    };
  if (token.length < MIN_TOKEN_LENGTH)
    throw new UsageError(
      `PTC_OPERATOR_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters (e.g. export PTC_OPERATOR_TOKEN=$(openssl rand -hex 32))`,
    );
  if (token === modelToken)
    throw new UsageError(
      "PTC_OPERATOR_TOKEN must differ from PTC_SERVE_TOKEN: the model's client would then hold the operator's role and approve its own calls",
    );
  if (flags.journal === undefined)
    return { off: 'there is no --journal, so no durable runs to list or resume (PTC_OPERATOR_TOKEN is ignored)' };
  const listed = env['PTC_OPERATOR_AGENTS'];
  if (listed === undefined || listed.trim() === '') return { token };
  const agents = listed.split(',').map((a) => a.trim());
  if (agents.some((a) => a === ''))
    throw new UsageError(
      `PTC_OPERATOR_AGENTS=${JSON.stringify(listed)}: expected agent ids separated by commas (e.g. alice,bob)`,
    );
  return { token, agents };
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
      ...(flags.keepAliveMs === undefined ? {} : { keepAliveTimeoutMs: flags.keepAliveMs }),
      ...(flags.agent === undefined ? {} : { agent: flags.agent }),
      ...(plan.operator.token === undefined
        ? {}
        : {
            operatorToken: plan.operator.token,
            ...(plan.operator.agents === undefined ? {} : { operatorAgents: plan.operator.agents }),
          }),
    });
  } catch (error) {
    const message = (error as Error).message.replace(/^serveMcpHttp: /u, '');
    throw new UsageError(
      `--http ${flags.http}: ${message
        .replace('allowedHosts (CLI: --allowed-host <name>)', '--allowed-host <name>')
        .replace(/^keepAliveTimeoutMs /u, '--keep-alive-ms ')}`,
    );
  }
  if (plan.generated) err(`ptc: PTC_SERVE_TOKEN is not set; bearer token for this run: ${plan.token}\n`);
  err(`ptc: serving MCP over Streamable HTTP at ${server.url}\n`);
  if (plan.operator.token === undefined) err(`ptc: operator surface off: ${plan.operator.off}\n`);
  else
    err(
      `ptc: operator surface on: PTC_OPERATOR_TOKEN lists ptc_runs/ptc_resume at ${server.url} and opens the approvals page ${new URL('/runs', server.url).href}${plan.operator.agents === undefined ? '' : ` (agents ${plan.operator.agents.join(', ')})`}\n`,
    );
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
