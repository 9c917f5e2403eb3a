// One tool an MCP server lists → one of our tools that calls it over the client.
// inputSchema → parameters and outputSchema → output schema (full JSON Schema, 2020-12
// unless the schema's `$schema` says otherwise, as MCP specifies); structuredContent →
// the canonical value, else the text content. A tool without an outputSchema may still
// send structuredContent: its result is typed JsonValue, the structured value when one
// came and the text otherwise.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ContentBlock as McpContentBlock, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { defineJsonSchemaTool, type OutsideSchema, type Tool } from '../definition/define-tool.ts';
import { DefinitionError } from '../errors/definition-error.ts';
import type { JsonValue } from '../json/json-value.ts';
import { mcpContentText, mcpImages } from './mcp-content.ts';
import { escapeRemoteControls } from './quote-remote-text.ts';
import { MCP_META_ERROR } from './to-mcp-call-tool-result.ts';
import { isWrapped, unwrapSchema, unwrapValue } from './wrapped-value.ts';

export interface McpToolOptions {
  /** Registered name = prefix + the MCP name (the server is still called with its own name). @default '' */
  readonly prefix?: string;
  /** The server's name, for error messages. */
  readonly serverName: string;
  /** Request timeout of one call, and the tool's `timeoutMs`. @default 60000 (the MCP SDK's default) */
  readonly timeoutMs?: number;
  /**
   * Take the tool's effect from the server's annotations: `readOnlyHint: true` makes it a
   * read (a preview runs it live). A hint is the server's word, not a guarantee: without
   * this every imported tool is a write (a preview records it and does not run it).
   * @default false
   */
  readonly trustAnnotations?: boolean;
}

/**
 * A failed MCP call (`isError: true` from the server): code TOOL_ERROR, or the code a
 * ptc-runtime server sent under `_meta` (so `DENIED` upstream is `DENIED` here); `info`
 * names the server and tool.
 */
export class McpToolError extends Error {
  readonly code: string;
  readonly info: { readonly server: string; readonly tool: string };
  constructor(server: string, tool: string, message: string, code = 'TOOL_ERROR') {
    super(message);
    this.name = 'McpToolError';
    this.code = code;
    this.info = { server, tool };
  }
}

/** The `_meta` key under which an imported MCP tool's call carries `exec.idempotencyKey`. */
export const MCP_IDEMPOTENCY_KEY = 'ptc-runtime/idempotency-key';

/** The error code under our `_meta` key, when it looks like one (upper-case words, at most 64 characters). */
function metaErrorCode(meta: unknown): string | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const error = (meta as Record<string, unknown>)[MCP_META_ERROR];
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/u.test(code) ? code : undefined;
}

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
  // Our own server wraps non-object values (see wrapped-value.ts): the tool's schema is the value's.
  const wrapped = isWrapped(listed._meta) && listed.outputSchema !== undefined;
  const outputSchema = wrapped ? unwrapSchema(listed.outputSchema) : listed.outputSchema;
  return defineJsonSchemaTool({
    name: `${options.prefix ?? ''}${mcpName}`,
    description: listed.description ?? listed.title ?? listed.annotations?.title ?? '',
    parameters: listed.inputSchema,
    schemaDialect: 'draft-2020-12',
    output: {
      // Without an outputSchema: any JSON (structuredContent when sent, else the text content).
      schema: (outputSchema ?? {}) as OutsideSchema,
      render: (_args, value) => [{ type: 'text', text: renderValue(value) }],
    },
    ...(timeout === undefined ? {} : { timeoutMs: timeout }),
    // MCP's own promise: a read-only tool does not change its environment.
    ...(listed.annotations?.readOnlyHint === true ? { isConcurrencySafe: () => true } : {}),
    effect: options.trustAnnotations === true && listed.annotations?.readOnlyHint === true ? 'read' : 'write',
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
          // The tool's own words (bounded by maxMessageBytes), minus what would drive a terminal.
          escapeRemoteControls(mcpContentText(content)) || `MCP tool "${mcpName}" failed without a message`,
          metaErrorCode(result._meta),
        );
      }
      // Images reach the model as a context message; the value stays JSON.
      const images = mcpImages(content);
      if (images.length > 0) exec.deferContext({ role: 'user', content: images });
      const structured = result.structuredContent;
      if (wrapped || isWrapped(result._meta)) {
        const inner = unwrapValue(structured);
        if (inner !== undefined) return inner.value;
      }
      return structured !== undefined && structured !== null ? (structured as JsonValue) : mcpContentText(content);
    },
  });
}
