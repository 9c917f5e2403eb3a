// Serves the runtime over stdio until the client goes away (stdin ends) or `signal`
// aborts. stdout carries only MCP messages: log to stderr. A request line longer than
// `maxRequestBytes`, or nested deeper than tool arguments may be, is answered with a
// JSON-RPC error (-32600) and dropped, and serving goes on: the MCP SDK alone would close the connection and lose every later request.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Readable, Writable } from 'node:stream';
import { MAX_JSON_DEPTH } from '../json/json-value.ts';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';
import { BoundedLines, requestIdOf, type OversizedLine } from './bounded-lines.ts';
import { createMcpServer, settleCalls, type McpServerOptions } from './create-mcp-server.ts';

export interface ServeMcpStdioOptions extends McpServerOptions {
  /** @default process.stdin */
  readonly stdin?: Readable;
  /** @default process.stdout */
  readonly stdout?: Writable;
  /** Stops serving when it aborts. */
  readonly signal?: AbortSignal;
  /** Longest request line (one JSON-RPC message) read, in bytes. @default 10485760 (10 MiB, the MCP SDK's buffer) */
  readonly maxRequestBytes?: number;
  /** Where a dropped oversized request is reported. @default a line on stderr */
  readonly onWarning?: (message: string) => void;
}

/** @default 10 MiB */
export const DEFAULT_MAX_REQUEST_BYTES = 10 * 1_048_576;
/** Tool arguments' own depth bound, plus the JSON-RPC envelope around them (message, params, arguments) and some slack. */
const MAX_REQUEST_DEPTH = MAX_JSON_DEPTH + 8;
/** JSON-RPC "Parse error". */
const PARSE_ERROR = -32700;
/** JSON-RPC "Invalid Request". */
const INVALID_REQUEST = -32600;

/**
 * Resolves when the connection is over (stdin ended, or `signal` aborted) and the
 * calls already started have answered; the caller then closes the runtime.
 */
export async function serveMcpStdio(rt: ToolRuntime, options: ServeMcpStdioOptions = {}): Promise<void> {
  const stdin = options.stdin ?? process.stdin;
  const maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  if (!Number.isSafeInteger(maxRequestBytes) || maxRequestBytes < 1) {
    throw new TypeError(
      `serveMcpStdio: maxRequestBytes must be a positive integer (bytes), got ${String(maxRequestBytes)}`,
    );
  }
  const warn = options.onWarning ?? ((message: string) => process.stderr.write(`${message}\n`));
  const server = createMcpServer(rt, options);
  const onOversized = (line: OversizedLine): void => {
    const id = requestIdOf(line);
    const message =
      line.over === 'depth'
        ? `request nested too deeply: JSON deeper than ${MAX_REQUEST_DEPTH} levels (tool arguments may nest ${MAX_JSON_DEPTH}); it was not read`
        : `request too large: ${line.bytes} bytes, more than the ${maxRequestBytes} bytes one message may have (maxRequestBytes); it was not read`;
    warn(`ptc serve: ${message}${id === null ? '' : ` (request id ${JSON.stringify(id)})`}`);
    transport
      .send({ jsonrpc: '2.0', id: id as string | number, error: { code: INVALID_REQUEST, message } })
      .catch(() => {});
  };
  // Only whole lines within the limit reach the SDK; its buffer is sized to hold one.
  const lines = stdin.pipe(new BoundedLines(maxRequestBytes, onOversized, MAX_REQUEST_DEPTH));
  const transport = new StdioServerTransport(lines, options.stdout ?? process.stdout, {
    maxBufferSize: 2 * maxRequestBytes + 2,
  });
  let done!: () => void;
  const over = new Promise<void>((resolve) => (done = resolve));
  stdin.once('end', () => done());
  stdin.once('close', () => done());
  options.signal?.addEventListener('abort', () => done(), { once: true });
  if (options.signal?.aborted === true) done();
  await server.connect(transport);
  // A line that is not JSON, or not a JSON-RPC message, is answered (JSON-RPC says so)
  // rather than only dropped: its sender learns what was wrong instead of waiting.
  const previousError = transport.onerror;
  transport.onerror = (error) => {
    previousError?.(error);
    const notJson = error instanceof SyntaxError;
    if (!notJson && error.name !== 'ZodError') return;
    const message = notJson
      ? `parse error: the request line is not JSON (${error.message.slice(0, 200)})`
      : 'invalid request: the line is JSON but not a JSON-RPC 2.0 message';
    warn(`ptc serve: ${message}`);
    transport
      .send({
        jsonrpc: '2.0',
        id: null as unknown as string,
        error: { code: notJson ? PARSE_ERROR : INVALID_REQUEST, message },
      })
      .catch(() => {});
  };
  const previous = transport.onclose;
  transport.onclose = () => {
    previous?.();
    done();
  };
  await over;
  // A client may send its last request and close stdin at once: answer it first.
  if (options.signal?.aborted !== true) await settleCalls(server);
  await server.close();
}
