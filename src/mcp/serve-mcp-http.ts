// Serves the runtime over MCP's Streamable HTTP transport (the official SDK's), stateless:
// each POST gets a fresh MCP server and transport, so any number of processes can sit
// behind an ordinary HTTP load balancer. Before anything runs, a request must pass, in
// order: the path, the Host and Origin checks (DNS-rebinding protection), the bearer
// token (constant-time compare) and the method; the SDK then bounds the body (413).
// close() is graceful: no new requests, the ones in flight finish, then it resolves. Only
// requests that carried a valid token are waited for: every other connection (a client
// that never authenticated, a half-sent request, an idle keep-alive) is closed at once.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo, type Socket } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';
import type { RunsScope } from '../runtime/durable-runs.ts';
import { approvalsRoute, serveApprovals, type ApprovalsContext } from '../operator/approvals-routes.ts';
import { createMcpServer, type McpServerOptions } from './create-mcp-server.ts';
import { createHttpCancels, sessionIdFrom } from './http-cancels.ts';
import { bearerChecker, isLoopbackHost, MIN_TOKEN_LENGTH } from './http-access.ts';
import { logLevelTable } from './run-log-messages.ts';
import { clientCapabilitiesTable } from './elicit-approval.ts';
import { createRunTasks } from './run-tasks.ts';
import { SseResumption, type SseResumeLimits } from './sse-resumption.ts';

export interface ServeMcpHttpOptions
  extends Omit<
    McpServerOptions,
    'callIdPrefix' | 'cancels' | 'role' | 'operatorScope' | 'logLevel' | 'clientCapabilities'
  > {
  /** The model's token: every request must carry `Authorization: Bearer <token>`. At least 16 characters. */
  readonly token: string;
  /**
   * The operator's token (at least 16 characters, not the model's): with it, the endpoint
   * lists and answers the operator tools (ptc_runs, ptc_resume, ptc_plans, ptc_decide_plan) only, and the approvals
   * page is served (`GET /runs`, `GET /runs.json`, `POST /runs/<runId>/decisions`).
   * Without it there is no operator surface: a model-token client never sees or calls
   * operator tools.
   */
  readonly operatorToken?: string;
  /** Limits the operator token to these agents' runs (intersected with `agent` when both are given). @default every agent the server serves */
  readonly operatorAgents?: readonly string[];
  /** Address to bind. @default '127.0.0.1' */
  readonly host?: string;
  /** Port to bind; 0 picks a free one (read it from `url`). @default 0 */
  readonly port?: number;
  /** The endpoint path. @default '/mcp' */
  readonly path?: string;
  /**
   * Host names (without port) clients may use in the Host header. Always allowed:
   * localhost, 127.0.0.1, [::1] and the bound address unless it is a wildcard
   * (0.0.0.0, ::), where this list is required.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Origins (`scheme://host[:port]`) allowed in an Origin header; a request with any other
   * Origin is refused. The server's own origin on a loopback name
   * (`http://localhost:<port>`, `http://127.0.0.1:<port>`, `http://[::1]:<port>`) is always allowed. @default none
   */
  readonly allowedOrigins?: readonly string[];
  /** Largest request body in bytes; more is answered 413 without being read. @default 1048576 */
  readonly maxBodyBytes?: number;
  /**
   * How long close() lets authenticated requests in flight finish before it closes their
   * connections (a client that never reads its answers must not keep the server from
   * stopping; one without a valid token does not hold it at all). @default 30000
   */
  readonly drainTimeoutMs?: number;
  /** Resumable SSE streams (`Last-Event-ID`): the resume window, the `retry` field and the bounds on what is kept. */
  readonly sseResume?: Partial<SseResumeLimits>;
  /**
   * How long an idle kept-alive connection stays open before the server closes it. Behind a
   * proxy or load balancer that reuses connections, set it above the proxy's own idle
   * timeout: a connection the server closes just as the proxy sends on it is a reset
   * (a 502 from the proxy). At most 600000 (10 minutes): each idle connection holds a socket. @default 5000
   */
  readonly keepAliveTimeoutMs?: number;
}

export interface McpHttpServer {
  /** The endpoint, e.g. `http://127.0.0.1:43121/mcp`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Requests with a valid token (the model's or the operator's) being served right now. */
  readonly inFlight: number;
  /**
   * Stops taking requests, lets the authenticated ones in flight finish (drainTimeoutMs at
   * most), then closes. A connection without an authenticated request in flight is closed
   * at once. Idempotent.
   */
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY_BYTES = 1_048_576;
/** Node's own default; an idle connection is a socket held open. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;
export const MAX_KEEP_ALIVE_TIMEOUT_MS = 600_000;
/** close() waits this long for requests in flight, then closes their connections. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** `http://<loopback name>:<port>`: a page the server itself would serve, never a foreign site. */
function ownLoopbackOrigins(bound: string, port: number): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  if (isLoopbackHost(bound)) names.add(hostName(bound));
  return new Set([...names].map((name) => `http://${name}:${port}`));
}

const isWildcard = (host: string): boolean => ['0.0.0.0', '::', '[::]'].includes(host);

/** `Host` header names are compared as URL hostnames: lower case, IPv6 in brackets. */
const hostName = (host: string): string => (isIP(host) === 6 ? `[${host}]` : host).toLowerCase();

function checkOptions(options: ServeMcpHttpOptions): {
  host: string;
  port: number;
  path: string;
  allowedHosts: Set<string>;
  allowedOrigins: Set<string>;
  maxBodyBytes: number;
  keepAliveTimeoutMs: number;
} {
  const where = 'serveMcpHttp';
  if (typeof options.token !== 'string' || options.token.length < MIN_TOKEN_LENGTH) {
    throw new TypeError(
      `${where}: token must be a string of at least ${MIN_TOKEN_LENGTH} characters (e.g. openssl rand -hex 32)`,
    );
  }
  if (options.operatorToken !== undefined) {
    if (typeof options.operatorToken !== 'string' || options.operatorToken.length < MIN_TOKEN_LENGTH)
      throw new TypeError(
        `${where}: operatorToken must be a string of at least ${MIN_TOKEN_LENGTH} characters (e.g. openssl rand -hex 32)`,
      );
    if (options.operatorToken === options.token)
      throw new TypeError(
        `${where}: operatorToken must differ from token: the model's client would hold the operator's role too`,
      );
  }
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new TypeError(`${where}: port must be an integer 0–65535, got ${String(port)}`);
  const path = options.path ?? '/mcp';
  if (!path.startsWith('/')) throw new TypeError(`${where}: path must start with "/", got ${JSON.stringify(path)}`);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1)
    throw new TypeError(`${where}: maxBodyBytes must be a positive integer, got ${String(maxBodyBytes)}`);
  const keepAliveTimeoutMs = options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS;
  if (
    !Number.isSafeInteger(keepAliveTimeoutMs) ||
    keepAliveTimeoutMs < 1 ||
    keepAliveTimeoutMs > MAX_KEEP_ALIVE_TIMEOUT_MS
  )
    throw new TypeError(
      `${where}: keepAliveTimeoutMs must be an integer 1–${MAX_KEEP_ALIVE_TIMEOUT_MS} (ms), got ${String(keepAliveTimeoutMs)}`,
    );
  const extra = (options.allowedHosts ?? []).map((h) => h.toLowerCase());
  if (isWildcard(host) && extra.length === 0) {
    throw new TypeError(
      `${where}: binding ${host} (every interface) needs allowedHosts (CLI: --allowed-host <name>): the host names clients use to reach this server. ` +
        'Requests with any other Host header are refused (DNS-rebinding protection).',
    );
  }
  const allowedHosts = new Set([...LOOPBACK_NAMES, ...(isWildcard(host) ? [] : [hostName(host)]), ...extra]);
  return {
    host,
    port,
    path,
    allowedHosts,
    allowedOrigins: new Set(options.allowedOrigins ?? []),
    maxBodyBytes,
    keepAliveTimeoutMs,
  };
}

/** The operator token's runs: the served agent's, narrowed to `operatorAgents` when given. */
function operatorScopeOf(options: ServeMcpHttpOptions): RunsScope {
  const served =
    options.agent === undefined ? undefined : typeof options.agent === 'string' ? options.agent : options.agent.id;
  const listed = options.operatorAgents;
  if (listed === undefined) return served === undefined ? {} : { agent: served };
  for (const a of listed)
    if (typeof a !== 'string' || a === '')
      throw new TypeError(`serveMcpHttp: operatorAgents must be non-empty agent ids, got ${JSON.stringify(a)}`);
  return { agent: served === undefined ? [...listed] : listed.filter((a) => a === served) };
}

/** Whether an Origin is this server's own, as reached through `host` (http, or https behind a TLS proxy). */
function isOwnOrigin(origin: string, host: string | undefined): boolean {
  return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
}

function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32_000, message }, id: null }));
}

/** Starts listening; resolves once the server accepts connections. */
export async function serveMcpHttp(rt: ToolRuntime, options: ServeMcpHttpOptions): Promise<McpHttpServer> {
  const { host, port, path, allowedHosts, allowedOrigins, maxBodyBytes, keepAliveTimeoutMs } = checkOptions(options);
  const drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
  if (!Number.isSafeInteger(drainTimeoutMs) || drainTimeoutMs < 0)
    throw new TypeError(`serveMcpHttp: drainTimeoutMs must be a non-negative integer, got ${String(drainTimeoutMs)}`);
  const modelOk = bearerChecker(options.token);
  const operatorOk = options.operatorToken === undefined ? undefined : bearerChecker(options.operatorToken);
  /** Which role the request's bearer token gives, if any (both checks always run: same time either way). */
  const roleOf = (req: IncomingMessage): 'model' | 'operator' | undefined => {
    const asModel = modelOk(req.headers.authorization);
    const asOperator = operatorOk?.(req.headers.authorization) === true;
    return asModel ? 'model' : asOperator ? 'operator' : undefined;
  };
  const operatorScope = operatorScopeOf(options);
  const approvalsCtx: ApprovalsContext | undefined =
    operatorOk === undefined ? undefined : { rt, scope: operatorScope, isOperator: operatorOk, maxBodyBytes };
  const hostAllowed = (req: IncomingMessage): boolean => {
    const header = req.headers.host;
    if (header === undefined) return false;
    try {
      return allowedHosts.has(new URL(`http://${header}`).hostname);
    } catch {
      return false;
    }
  };
  const serverOptions: McpServerOptions = {
    ...(options.agent === undefined ? {} : { agent: options.agent }),
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.version === undefined ? {} : { version: options.version }),
    ...(options.elicitationTimeoutMs === undefined ? {} : { elicitationTimeoutMs: options.elicitationTimeoutMs }),
    ...(options.principal === undefined ? {} : { principal: options.principal }),
    // One set of tasks for every POST: a task outlives the request that created it.
    tasks: options.tasks ?? createRunTasks(rt),
  };

  const cancels = createHttpCancels();
  const logLevels = logLevelTable();
  const clientCapabilities = clientCapabilitiesTable();
  const resumption = new SseResumption(options.sseResume);
  /** Filled in once listening (the port may be 0 until then). */
  let ownOrigins = new Set<string>();
  let inFlight = 0;
  /** Authenticated requests in flight, by connection: close() keeps only these connections open. */
  const authenticatedOn = new Map<Socket, number>();
  /** Counts a request that carried a valid token, until its response closes: shutdown waits for it. */
  const authenticated = (req: IncomingMessage, res: ServerResponse): void => {
    const socket = req.socket;
    inFlight += 1;
    authenticatedOn.set(socket, (authenticatedOn.get(socket) ?? 0) + 1);
    res.once('close', () => {
      inFlight -= 1;
      const left = (authenticatedOn.get(socket) ?? 1) - 1;
      if (left === 0) authenticatedOn.delete(socket);
      else authenticatedOn.set(socket, left);
      // After the request's own close listener, which may hold its call.
      setImmediate(settled);
    });
  };
  let draining = false;
  let idle: (() => void) | undefined;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (draining) return refuse(res, 503, 'Service Unavailable: the server is shutting down', { connection: 'close' });
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    const approvals = approvalsCtx === undefined ? undefined : approvalsRoute(pathname);
    if (pathname !== path && approvals === undefined) return refuse(res, 404, `Not Found: the MCP endpoint is ${path}`);
    if (!hostAllowed(req))
      return refuse(res, 403, `Forbidden: Host ${JSON.stringify(req.headers.host ?? '')} is not allowed`);
    const origin = req.headers.origin;
    // The approvals page's own requests come from its origin (a Host already allowed above);
    // MCP clients may send the server's own loopback origin.
    const ownOrigin = approvals !== undefined && origin !== undefined && isOwnOrigin(origin, req.headers.host);
    if (origin !== undefined && !allowedOrigins.has(origin) && !ownOrigin && !ownOrigins.has(origin.toLowerCase()))
      return refuse(res, 403, `Forbidden: Origin ${JSON.stringify(origin)} is not allowed`);
    if (approvals !== undefined && approvalsCtx !== undefined) {
      if (approvalsCtx.isOperator(req.headers.authorization)) authenticated(req, res);
      return serveApprovals(approvalsCtx, approvals, req, res);
    }
    const role = roleOf(req);
    if (role === undefined)
      return refuse(res, 401, 'Unauthorized: send Authorization: Bearer <token>', { 'www-authenticate': 'Bearer' });
    authenticated(req, res);
    const lastEventId = req.headers['last-event-id'];
    if (req.method === 'GET' && typeof lastEventId === 'string') {
      // Only the role and Mcp-Session-Id that made the call may resume its stream.
      const refused = resumption.resume(lastEventId, `${role} ${sessionIdFrom(req.headers['mcp-session-id'])}`, res);
      return refused === undefined ? undefined : refuse(res, refused.status, refused.message);
    }
    // Stateless: no session, so no standalone SSE stream (GET without Last-Event-ID) and nothing to delete.
    if (req.method !== 'POST')
      return refuse(res, 405, 'Method Not Allowed: this server is stateless; POST MCP messages', { allow: 'POST' });
    // A cancel scope per client (see http-cancels.ts): its cancels reach its calls, never another's.
    const session = sessionIdFrom(req.headers['mcp-session-id']) ?? randomUUID();
    res.setHeader('mcp-session-id', session);
    // Request ids repeat across clients: a unique prefix keeps callIds (journal, events) apart.
    const server = createMcpServer(rt, {
      ...serverOptions,
      role,
      ...(role === 'operator' ? { operatorScope } : {}),
      callIdPrefix: `mcp-${randomUUID()}:`,
      cancels: { registry: cancels, session },
      logLevel: logLevels.slot(session),
      clientCapabilities: clientCapabilities.slot(session),
    });
    const eventStore = resumption.eventStoreFor(`${role} ${session}`);
    // No sessionIdGenerator (undefined): the SDK's stateless mode.
    const transport = new StreamableHTTPServerTransport({
      maxRequestBodySize: maxBodyBytes,
      eventStore,
      retryInterval: resumption.limits.retryMs,
    });
    const release = (): void => {
      void transport.close().catch(() => {});
      void server.close().catch(() => {});
    };
    // A client that goes away cancels its calls (the SDK aborts their signals on close),
    // unless it can resume its stream: then the call waits for it a while (sse-resumption.ts).
    res.once('close', () => {
      const ended = (): void => {
        held.delete(release);
        release();
        settled();
      };
      if (resumption.hold(eventStore.streamId, ended)) held.add(release);
      else release();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };

  /** Calls whose stream broke, waiting for their client to resume: close() waits for them too. */
  const held = new Set<() => void>();
  const settled = (): void => {
    if (inFlight === 0 && held.size === 0) idle?.();
  };
  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      refuse(res, 500, `Internal Server Error: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  http.keepAliveTimeout = keepAliveTimeoutMs;
  const sockets = new Set<Socket>();
  http.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  ownOrigins = ownLoopbackOrigins(address.address, address.port);
  const url = `http://${hostName(isWildcard(host) ? '127.0.0.1' : address.address)}:${address.port}${path}`;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      draining = true;
      const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
      // Nobody with a valid token is waiting on these: half-sent requests, unauthenticated
      // ones (however many a client pipelined without reading the answers), idle ones.
      for (const socket of sockets) if (!authenticatedOn.has(socket)) socket.destroy();
      if (inFlight > 0 || held.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          idle = resolve;
          timer = setTimeout(resolve, drainTimeoutMs);
        });
        clearTimeout(timer);
      }
      resumption.releaseAll();
      http.closeAllConnections();
      await stopped;
    })();
    return closing;
  };
  return {
    url,
    host: address.address,
    port: address.port,
    get inFlight() {
      return inFlight;
    },
    close,
  };
}
