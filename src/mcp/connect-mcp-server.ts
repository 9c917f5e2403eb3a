// Starts one MCP server over stdio (or reaches a remote one over Streamable HTTP), lists
// its tools (every page) and defines one of our tools per MCP tool. Schemas are full
// JSON Schema: a tool is skipped (with a warning) only when its schema is refused as
// unsafe — a remote `$ref`, or beyond the nesting/size limits — so one odd tool never
// makes the whole server unusable.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Tool } from '../definition/define-tool.ts';
import { DefinitionError } from '../errors/definition-error.ts';
import { boundedFetch, McpMessageTooLargeError } from './bounded-fetch.ts';
import { defineMcpTool, type McpCaller } from './define-mcp-tool.ts';
import { createMcpHttpPool, type McpHttpPool } from './mcp-http-pool.ts';
import { listMcpTools, McpImportLimitError, resolveMcpImportLimits, type McpImportLimits } from './list-mcp-tools.ts';
import { parseCommandLine } from './parse-command-line.ts';
import { quoteRemoteError, quoteRemoteText } from './quote-remote-text.ts';
import { secretRedactor } from './redact-secrets.ts';

/** How to start one MCP server (stdio), or where to reach one (Streamable HTTP). A string is a command line, split without a shell. */
export type McpServerSpec = string | McpServerCommand | McpServerUrl;

/** A remote MCP server over Streamable HTTP. */
export interface McpServerUrl {
  /** The endpoint, e.g. `https://tools.example.com/mcp`. */
  readonly url: string;
  /** Sent with every request, e.g. `{ Authorization: 'Bearer …' }`. Never shown in messages. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Registered name = prefix + MCP name. @default '' */
  readonly prefix?: string;
  /** Request timeout of one tool call, also the tools' `timeoutMs`. @default 60000 */
  readonly timeoutMs?: number;
}

export interface McpServerCommand {
  readonly command: string;
  readonly args?: readonly string[];
  /** The server's environment. @default the MCP SDK's safe subset of ours (HOME, PATH, USER, …) */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Registered name = prefix + MCP name, for servers whose names collide. @default '' */
  readonly prefix?: string;
  /** Request timeout of one tool call, also the tools' `timeoutMs`. @default 60000 */
  readonly timeoutMs?: number;
}

/** A tool the server lists that could not be imported. */
export interface SkippedMcpTool {
  readonly server: string;
  readonly tool: string;
  /** The refused JSON Schema keyword (`$ref`), when that is the reason. */
  readonly keyword?: string;
  readonly reason: string;
}

export interface ConnectMcpOptions {
  /** Where warnings go (a skipped tool, a schema not validated here). @default console.warn (stderr) */
  readonly onWarning?: (message: string) => void;
  /** Receives the server's stderr text. @default kept (last 8 KiB) for error messages only */
  readonly onStderr?: (text: string) => void;
  /**
   * Bounds of the import (the server is untrusted): pages and tools listed, bytes of
   * tool definitions, and a deadline for the handshake plus the listing.
   * @default { maxPages: 100, maxTools: 1000, maxListBytes: 16 MiB, timeoutMs: 30000, maxMessageBytes: 10 MiB }
   */
  readonly limits?: Partial<McpImportLimits>;
  /**
   * Believe the servers' `readOnlyHint` annotations: such tools become reads (effect
   * `'read'`, run live by `rt.preview`). Off by default: every imported tool is then a
   * write, recorded in a plan and not run until the commit. @default false
   */
  readonly trustAnnotations?: boolean;
}

export interface McpConnection {
  /** The server's own name (from its handshake), else the command. */
  readonly serverName: string;
  readonly serverVersion: string | undefined;
  /** The server process id (while it runs). */
  readonly pid: number | undefined;
  /** Defined, not registered: register them where you like (or use importMcpTools). */
  readonly tools: readonly Tool[];
  readonly skipped: readonly SkippedMcpTool[];
  readonly client: Client;
  /** Closes the connection and stops the server process. Idempotent. */
  close(): Promise<void>;
}

const STDERR_TAIL = 8 * 1024;

/** A stdio server's stderr tail as quoted in an error: its lines kept, its control characters escaped. */
const quoteTail = (tail: string): string => quoteRemoteText(tail, { newlines: true, maxChars: 2 * STDERR_TAIL });

const PERMISSIVE_VALIDATOR: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

const isUrlSpec = (spec: McpServerSpec): spec is McpServerUrl =>
  typeof spec === 'object' && spec !== null && 'url' in spec;

/** The URL without credentials, query or fragment: safe to print. */
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

export function describeServerSpec(spec: McpServerSpec): string {
  if (typeof spec === 'string') return spec;
  return isUrlSpec(spec) ? describeUrl(spec.url) : [spec.command, ...(spec.args ?? [])].join(' ');
}

function checkUrlSpec(spec: McpServerUrl): McpServerUrl {
  let parsed: URL | undefined;
  try {
    parsed = typeof spec.url === 'string' ? new URL(spec.url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new TypeError(
      `connectMcpServer: url must be an http:// or https:// URL, got ${typeof spec.url === 'string' ? JSON.stringify(describeUrl(spec.url)) : typeof spec.url}`,
    );
  }
  for (const [name, value] of Object.entries(spec.headers ?? {})) {
    if (typeof value !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/u.test(name)) {
      throw new TypeError(
        `connectMcpServer(${describeUrl(spec.url)}): header ${JSON.stringify(name)} must be a valid header name with a string value`,
      );
    }
  }
  return spec;
}

function resolveSpec(spec: McpServerSpec): McpServerCommand | McpServerUrl {
  if (typeof spec === 'string') return parseCommandLine(spec);
  if (isUrlSpec(spec)) {
    checkUrlSpec(spec);
  } else if (typeof spec !== 'object' || spec === null || typeof spec.command !== 'string' || spec.command === '') {
    throw new TypeError(
      'connectMcpServer: expected a command line string, { command, args?, env?, cwd?, prefix?, timeoutMs? } or { url, headers?, prefix?, timeoutMs? }',
    );
  }
  if (spec.timeoutMs !== undefined && (!Number.isFinite(spec.timeoutMs) || spec.timeoutMs <= 0)) {
    throw new TypeError(
      `connectMcpServer(${describeServerSpec(spec)}): timeoutMs must be a positive finite number, got ${String(spec.timeoutMs)}`,
    );
  }
  return spec;
}

/** Tells `seen` the id of every response the transport delivers (read after the SDK's handler has it). */
function noticeResponses(transport: Transport, seen: (id: string | number) => void): Transport {
  let deliver: Transport['onmessage'];
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => deliver,
    set: (next: Transport['onmessage']) => {
      deliver =
        next === undefined
          ? undefined
          : (message, extra) => {
              next(message, extra);
              if ('id' in message && !('method' in message) && message.id !== undefined) seen(message.id);
            };
    },
  });
  return transport;
}

/** Whether `error` or one of its causes is an instance of `type`. */
function causedBy(error: unknown, type: new (...args: never[]) => Error): boolean {
  for (
    let e = error, depth = 0;
    e !== undefined && e !== null && depth < 8;
    e = (e as { cause?: unknown }).cause, depth += 1
  ) {
    if (e instanceof type) return true;
  }
  return false;
}

/** The import's deadline passed: before the handshake (with what may be wrong) or during the listing. */
function importTimeout(
  where: string,
  timeoutMs: number,
  handshakeDone: boolean,
  overHttp: boolean,
  tail: string,
): McpImportLimitError {
  if (handshakeDone)
    return new McpImportLimitError(
      'timeoutMs',
      `MCP server "${where}" did not finish its tool listing within ${timeoutMs} ms (limits.timeoutMs)`,
    );
  const hint = overHttp
    ? 'Is the URL an MCP endpoint that answers Streamable HTTP?'
    : 'Is it an MCP server speaking over stdio? It may be waiting on the network or a setting: a stdio server gets ' +
      "only the MCP SDK's default environment (HOME, PATH, USER, …); pass more with --mcp-env KEY=VALUE " +
      "(or the spec's env), e.g. a proxy or an API key.";
  return new McpImportLimitError(
    'timeoutMs',
    `MCP server "${where}" never answered the MCP handshake (initialize) within ${timeoutMs} ms (limits.timeoutMs). ` +
      hint +
      (tail === '' ? ' It wrote nothing on stderr.' : `\nserver stderr:\n${quoteTail(tail)}`),
  );
}

/** A start or listing that failed: the server's answer (an error page the SDK quotes whole) as a bounded excerpt. */
function importFailure(where: string, error: unknown, tail: string, redact: (text: string) => string): Error {
  const quoted = quoteRemoteError(error, redact);
  const detail = quoted instanceof Error ? quoted.message : quoteRemoteText(redact(String(quoted)));
  return new Error(
    `MCP server "${where}" could not be started or listed: ${detail}${tail === '' ? '' : `\nserver stderr:\n${quoteTail(redact(tail))}`}`,
    { cause: quoted },
  );
}

/**
 * Starts the server and imports its tool list. Rejects (and stops the process) when it cannot start or list.
 *
 * Long: the connection's state (transport, client, import deadline, reconnect) is shared by
 * the import and the reconnect below; its messages are built by functions of their own.
 */
export async function connectMcpServer(spec: McpServerSpec, options: ConnectMcpOptions = {}): Promise<McpConnection> {
  const resolved = resolveSpec(spec);
  const where = describeServerSpec(spec);
  const limits = resolveMcpImportLimits(options.limits, `connectMcpServer(${where})`);
  const warn = options.onWarning ?? ((message: string) => console.warn(message));
  const redact = secretRedactor(isUrlSpec(resolved) ? Object.values(resolved.headers ?? {}) : []);
  // A reply over maxMessageBytes fails the calls in flight at once (the SDK would wait for their timeout).
  const oversizedListeners = new Set<(error: McpMessageTooLargeError) => void>();
  let stderrTail = '';
  let pidOf = (): number | undefined => undefined;
  // A remote server's sockets: its own pool, each call's stream ended with the call, all closed with the connection.
  let pool: McpHttpPool | undefined;
  // A fresh transport to the server: for the import, and again for a reconnect.
  const openTransport = (): Transport => {
    if (isUrlSpec(resolved)) {
      const sockets = (pool ??= createMcpHttpPool());
      const http = new StreamableHTTPClientTransport(new URL(resolved.url), {
        requestInit: { headers: { ...resolved.headers } },
        fetch: boundedFetch(limits.maxMessageBytes, sockets.fetch, {
          onOversized: (error) => {
            for (const listener of [...oversizedListeners]) listener(error);
          },
        }),
      });
      return noticeResponses(http, (id) => sockets.responded(id));
    } else {
      const stdio = new StdioClientTransport({
        command: resolved.command,
        args: [...(resolved.args ?? [])],
        ...(resolved.env === undefined ? {} : { env: { ...resolved.env } }),
        ...(resolved.cwd === undefined ? {} : { cwd: resolved.cwd }),
        stderr: 'pipe',
        maxBufferSize: limits.maxMessageBytes,
      });
      // Drained always (a full pipe would block the server); the tail explains a failed start.
      stdio.stderr?.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        stderrTail = (stderrTail + text).slice(-STDERR_TAIL);
        options.onStderr?.(text);
      });
      pidOf = () => stdio.pid ?? undefined;
      return stdio;
    }
  };
  const transport = openTransport();
  // Our pipeline validates structuredContent against the output schema in its own
  // dialect; the SDK's draft-07 validator would refuse a 2020-12 schema and fail the
  // whole listing, so the client's check is left to us.
  const client = new Client({ name: 'ptc-runtime', version: '0' }, { jsonSchemaValidator: PERMISSIVE_VALIDATOR });
  /** The client in use: `client`, or the one a reconnect opened (see below). */
  let current = client;
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    try {
      await current.close();
    } finally {
      await pool?.close();
    }
  };

  let listed: McpTool[];
  // One deadline for the handshake and every page of the listing.
  const deadline = new AbortController();
  let handshakeDone = false;
  const timer = setTimeout(() => {
    deadline.abort(importTimeout(where, limits.timeoutMs, handshakeDone, isUrlSpec(resolved), stderrTail.trim()));
  }, limits.timeoutMs);
  // A message over the SDK's stdio buffer is dropped by its transport, which then
  // closes: remembered here so that the import says why.
  let oversized: Error | undefined;
  let importing = true;
  // Over HTTP the SDK only logs a stream that broke (an event over the bound, on a reply
  // or on the GET stream) and waits for a reply that cannot come: the import stops now.
  const stopImport = (): void =>
    deadline.abort(
      new McpImportLimitError(
        'maxMessageBytes',
        `MCP server "${where}" sent one message larger than ${limits.maxMessageBytes} bytes (limits.maxMessageBytes); the import was stopped`,
      ),
    );
  oversizedListeners.add(stopImport);
  client.onerror = (error) => {
    if (importing && /ReadBuffer exceeded maximum size/u.test(error.message)) oversized ??= error;
  };
  try {
    await client.connect(transport, { signal: deadline.signal, timeout: limits.timeoutMs });
    handshakeDone = true;
    listed = await listMcpTools(client, limits, deadline.signal, where);
  } catch (error) {
    await close().catch(() => {});
    const tail = stderrTail.trim();
    if (oversized !== undefined || causedBy(error, McpMessageTooLargeError)) {
      throw new McpImportLimitError(
        'maxMessageBytes',
        `MCP server "${where}" sent one message larger than ${limits.maxMessageBytes} bytes (limits.maxMessageBytes); the import was stopped`,
      );
    }
    const cause = deadline.signal.aborted ? (deadline.signal.reason as McpImportLimitError) : error;
    if (cause instanceof McpImportLimitError) throw cause;
    throw importFailure(where, error, tail, redact);
  } finally {
    clearTimeout(timer);
    importing = false;
    oversizedListeners.delete(stopImport);
  }

  // A connection lost after the import — over stdio, one reply over maxMessageBytes makes
  // the SDK close it (say, a tool that reads a large file) — is opened again, without a
  // new listing, by the next call: one oversized reply must not disable the server's
  // tools for the host's lifetime. (A stdio server restarts; state it kept is gone.)
  let lost = false;
  let reopening: Promise<Client> | undefined;
  const watch = (c: Client): void => {
    c.onclose = () => {
      if (c === current && !closed) lost = true;
    };
  };
  watch(client);
  const live = async (): Promise<Client> => {
    if (!lost) return current;
    reopening ??= (async () => {
      const next = new Client({ name: 'ptc-runtime', version: '0' }, { jsonSchemaValidator: PERMISSIVE_VALIDATOR });
      await next.connect(openTransport(), { timeout: limits.timeoutMs });
      if (closed) {
        await next.close().catch(() => {});
        throw new Error(`MCP server "${where}" was closed`);
      }
      current = next;
      lost = false;
      watch(next);
      return next;
    })().finally(() => {
      reopening = undefined;
    });
    return reopening;
  };
  const caller: McpCaller = {
    callTool: async (...args) => {
      let onOversized: ((error: McpMessageTooLargeError) => void) | undefined;
      const oversized = new Promise<never>((_, reject) => {
        onOversized = reject;
        oversizedListeners.add(reject);
      });
      oversized.catch(() => {});
      try {
        return await Promise.race([(async () => (await live()).callTool(...args))(), oversized]);
      } catch (error) {
        throw quoteRemoteError(error, redact);
      } finally {
        if (onOversized !== undefined) oversizedListeners.delete(onOversized);
      }
    },
  };

  // The server names itself: quoted like any remote text (it is in warnings and errors).
  const serverName = quoteRemoteText(String(client.getServerVersion()?.name ?? where), { maxChars: 200 });
  const tools: Tool[] = [];
  const skipped: SkippedMcpTool[] = [];
  for (const entry of listed) {
    try {
      const tool = defineMcpTool(caller, entry, {
        serverName,
        ...(options.trustAnnotations === true ? { trustAnnotations: true } : {}),
        ...(resolved.prefix === undefined ? {} : { prefix: resolved.prefix }),
        ...(resolved.timeoutMs === undefined ? {} : { timeoutMs: resolved.timeoutMs }),
      });
      tools.push(tool);
      for (const warning of tool.schemaWarnings ?? [])
        warn(`MCP server "${serverName}": tool "${tool.name}": ${quoteRemoteText(warning)}`);
    } catch (error) {
      if (!(error instanceof DefinitionError)) {
        await close().catch(() => {});
        throw error;
      }
      const detail = error.details?.keyword;
      const keyword = typeof detail === 'string' ? detail : undefined;
      const reason = quoteRemoteText(error.message);
      skipped.push({ server: serverName, tool: entry.name, ...(keyword === undefined ? {} : { keyword }), reason });
      warn(
        `MCP server "${serverName}": skipped tool "${quoteRemoteText(String(entry.name), { maxChars: 200 })}"${keyword === undefined ? '' : ` (refused schema keyword "${quoteRemoteText(keyword, { maxChars: 200 })}")`}: ${reason}`,
      );
    }
  }
  const pid = pidOf();
  return {
    serverName,
    serverVersion: client.getServerVersion()?.version,
    pid,
    tools,
    skipped,
    get client() {
      return current;
    },
    close,
  };
}
