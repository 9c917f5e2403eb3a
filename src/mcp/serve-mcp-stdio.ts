// Serves the runtime over stdio until the client goes away (stdin ends) or `signal`
// aborts. stdout carries only MCP messages: log to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Readable, Writable } from 'node:stream';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';
import { createMcpServer, settleCalls, type McpServerOptions } from './create-mcp-server.ts';

export interface ServeMcpStdioOptions extends McpServerOptions {
  /** @default process.stdin */
  readonly stdin?: Readable;
  /** @default process.stdout */
  readonly stdout?: Writable;
  /** Stops serving when it aborts. */
  readonly signal?: AbortSignal;
}

/**
 * Resolves when the connection is over (stdin ended, or `signal` aborted) and the
 * calls already started have answered; the caller then closes the runtime.
 */
export async function serveMcpStdio(rt: ToolRuntime, options: ServeMcpStdioOptions = {}): Promise<void> {
  const stdin = options.stdin ?? process.stdin;
  const server = createMcpServer(rt, options);
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  let done!: () => void;
  const over = new Promise<void>((resolve) => (done = resolve));
  stdin.once('end', () => done());
  stdin.once('close', () => done());
  options.signal?.addEventListener('abort', () => done(), { once: true });
  if (options.signal?.aborted === true) done();
  await server.connect(transport);
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
