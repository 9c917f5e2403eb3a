// One tool an MCP server lists → one of our tools that calls it over the client.
// inputSchema → parameters and outputSchema → output schema (full JSON Schema, 2020-12
// unless the schema's `$schema` says otherwise, as MCP specifies); structuredContent →
// the canonical value, else the text content.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ContentBlock as McpContentBlock, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { defineJsonSchemaTool, type Tool } from '../definition/define-tool.ts';
import { DefinitionError } from '../errors/definition-error.ts';
import type { JsonValue } from '../json/json-value.ts';
import { mcpContentText, mcpImages } from './mcp-content.ts';

export interface McpToolOptions {
  /** Registered name = prefix + the MCP name (the server is still called with its own name). @default '' */
  readonly prefix?: string;
  /** The server's name, for error messages. */
  readonly serverName: string;
  /** Request timeout of one call, and the tool's `timeoutMs`. @default 60000 (the MCP SDK's default) */
  readonly timeoutMs?: number;
}

/** A failed MCP call (`isError: true` from the server): code TOOL_ERROR, `info` names the server and tool. */
export class McpToolError extends Error {
  readonly code = 'TOOL_ERROR';
  readonly info: { readonly server: string; readonly tool: string };
  constructor(server: string, tool: string, message: string) {
    super(message);
    this.name = 'McpToolError';
    this.info = { server, tool };
  }
}

/** The `_meta` key under which an imported MCP tool's call carries `exec.idempotencyKey`. */
export const MCP_IDEMPOTENCY_KEY = 'ptc-runtime/idempotency-key';

const renderValue = (value: JsonValue): string => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/**
 * Defines (does not register) the tool. Throws DefinitionError only when a schema is
 * refused (a remote `$ref`, beyond the nesting/size limits) or the name is not a valid
 * tool name; what a schema loses otherwise is in the tool's `schemaWarnings`.
 */
/** What a tool needs of an MCP client: its calls (a reconnecting connection passes its own). */
export type McpCaller = Pick<Client, 'callTool'>;

export function defineMcpTool(client: McpCaller, listed: McpTool, options: McpToolOptions): Tool {
  const mcpName: unknown = listed.name;
  // The listing is read leniently (one odd tool must not sink the rest), so check the name here.
  if (typeof mcpName !== 'string') {
    throw new DefinitionError(
      'INVALID_DEFINITION',
      `a tool listed by MCP server "${options.serverName}" has no string "name" (got ${JSON.stringify(mcpName) ?? 'undefined'}); it cannot be called`,
    );
  }
  const timeout = options.timeoutMs;
  return defineJsonSchemaTool({
    name: `${options.prefix ?? ''}${mcpName}`,
    description: listed.description ?? listed.title ?? listed.annotations?.title ?? '',
    parameters: listed.inputSchema,
    schemaDialect: 'draft-2020-12',
    output: {
      ...(listed.outputSchema === undefined ? {} : { schema: listed.outputSchema }),
      render: (_args, value) => [{ type: 'text', text: renderValue(value) }],
    },
    ...(timeout === undefined ? {} : { timeoutMs: timeout }),
    // MCP's own promise: a read-only tool does not change its environment.
    ...(listed.annotations?.readOnlyHint === true ? { isConcurrencySafe: () => true } : {}),
    async execute(args, exec) {
      const result = await client.callTool(
        {
          name: mcpName,
          arguments: args as { [key: string]: JsonValue },
          // The call's stable key (the same when a durable run re-runs it): the server can make a retry safe.
          _meta: { [MCP_IDEMPOTENCY_KEY]: exec.idempotencyKey },
        },
        undefined,
        { signal: exec.signal, ...(timeout === undefined ? {} : { timeout }) },
      );
      const content = (Array.isArray(result.content) ? result.content : []) as McpContentBlock[];
      if (result.isError === true) {
        throw new McpToolError(
          options.serverName,
          mcpName,
          mcpContentText(content) || `MCP tool "${mcpName}" failed without a message`,
        );
      }
      // Images reach the model as a context message; the value stays JSON.
      const images = mcpImages(content);
      if (images.length > 0) exec.deferContext({ role: 'user', content: images });
      const structured = result.structuredContent;
      return structured !== undefined && structured !== null ? (structured as JsonValue) : mcpContentText(content);
    },
  });
}
