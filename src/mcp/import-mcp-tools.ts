// Connects to MCP servers and registers every tool they list under its MCP name
// (plus an optional per-server prefix). Returns one close() that unregisters the
// tools and stops every server: call it when the runtime closes.
import type { AgentRef, Dispose } from '../registry/tool-registry.ts';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';
import {
  connectMcpServer,
  describeServerSpec,
  type ConnectMcpOptions,
  type McpConnection,
  type McpServerSpec,
  type SkippedMcpTool,
} from './connect-mcp-server.ts';

export interface ImportMcpToolsOptions extends ConnectMcpOptions {
  /** The servers to start (stdio). A string is a command line such as `"npx @modelcontextprotocol/server-filesystem ."`. */
  readonly servers: readonly McpServerSpec[];
  /** Register into this agent's scope instead of the global layer. */
  readonly agent?: AgentRef;
}

export interface McpToolImport {
  /** Registered tool names, in the servers' listing order. */
  readonly tools: readonly string[];
  readonly skipped: readonly SkippedMcpTool[];
  readonly connections: readonly McpConnection[];
  /** Unregisters the tools and stops every server process. Idempotent; never rejects. */
  close(): Promise<void>;
}

/**
 * Starts every server (in parallel), then registers their tools. If any server fails
 * to start, or a name collides (use a `prefix`), everything started is stopped and the
 * error is thrown.
 */
export async function importMcpTools(rt: ToolRuntime, options: ImportMcpToolsOptions): Promise<McpToolImport> {
  if (!Array.isArray(options.servers))
    throw new TypeError('importMcpTools: servers must be an array of command lines or { command, args }');
  const settled = await Promise.allSettled(options.servers.map((spec) => connectMcpServer(spec, options)));
  const connections = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const disposers: Dispose[] = [];
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    for (const dispose of disposers.splice(0).reverse()) {
      try {
        dispose();
      } catch {
        // Already disposed by the caller: nothing left to remove.
      }
    }
    await Promise.all(connections.map((c) => c.close().catch(() => {})));
  };

  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed !== undefined) {
    await close();
    throw failed.reason;
  }
  const names: string[] = [];
  for (const [i, connection] of connections.entries()) {
    for (const tool of connection.tools) {
      try {
        disposers.push(rt.register(tool, options.agent === undefined ? {} : { agent: options.agent }));
      } catch (error) {
        await close();
        throw new Error(
          `MCP server "${describeServerSpec(options.servers[i]!)}": cannot register tool "${tool.name}": ${(error as Error).message}. ` +
            'Give this server a prefix (API: { command, args, prefix } or { url, prefix }; CLI: --mcp-prefix, or --mcp-url-prefix after its --mcp-url) so its names do not collide.',
          { cause: error },
        );
      }
      names.push(tool.name);
    }
  }
  return { tools: names, skipped: connections.flatMap((c) => c.skipped), connections, close };
}
