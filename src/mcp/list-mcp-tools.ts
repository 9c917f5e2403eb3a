// Reads a server's whole tool list within stated bounds. An imported server is
// untrusted: one whose `tools/list` always returns a `nextCursor`, lists a million
// tools, sends megabytes of schemas or never answers would otherwise hang the import
// forever while the host's heap grows. Each bound ends the import with an
// McpImportLimitError that names it, its value and the option that changes it.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PaginatedResultSchema, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { ToolRuntimeError } from '../errors/tool-runtime-error.ts';

export interface McpImportLimits {
  /** `tools/list` pages read from one server. @default 100 */
  readonly maxPages: number;
  /** Tools listed by one server. @default 1000 */
  readonly maxTools: number;
  /** Size of one server's tool definitions (names, descriptions, schemas) as JSON text. @default 16 MiB */
  readonly maxListBytes: number;
  /** Connecting (handshake) and listing, from start to end, in milliseconds. @default 30000 */
  readonly timeoutMs: number;
  /**
   * One message from the server, for as long as the connection lasts (tool calls too):
   * a stdio line, an HTTP JSON body or one server-sent event. @default 10 MiB (the MCP SDK's stdio buffer)
   */
  readonly maxMessageBytes: number;
}

export const DEFAULT_MCP_IMPORT_LIMITS: Readonly<McpImportLimits> = Object.freeze({
  maxPages: 100,
  maxTools: 1_000,
  maxListBytes: 16 * 1_048_576,
  timeoutMs: 30_000,
  maxMessageBytes: 10 * 1_048_576,
});

/** An MCP server's tool list broke an import bound. Code `MCP_IMPORT_LIMIT`; `details.limit` names the bound. */
export class McpImportLimitError extends ToolRuntimeError {
  constructor(limit: keyof McpImportLimits, message: string) {
    super('MCP_IMPORT_LIMIT', message, { limit });
  }
}

const LIMIT_KEYS = Object.keys(DEFAULT_MCP_IMPORT_LIMITS) as (keyof McpImportLimits)[];

/** Defaults overlaid with `given`; throws a TypeError naming a bad field. */
export function resolveMcpImportLimits(given: Partial<McpImportLimits> | undefined, where: string): McpImportLimits {
  if (given === undefined) return DEFAULT_MCP_IMPORT_LIMITS;
  if (typeof given !== 'object' || given === null)
    throw new TypeError(`${where}: limits must be an object such as { maxTools: 200 }`);
  const limits: Record<string, number> = { ...DEFAULT_MCP_IMPORT_LIMITS };
  for (const [key, value] of Object.entries(given)) {
    if (value === undefined) continue;
    if (!(LIMIT_KEYS as string[]).includes(key))
      throw new TypeError(`${where}: unknown MCP import limit "${key}"; known: ${LIMIT_KEYS.join(', ')}`);
    const max = key === 'timeoutMs' ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > max) {
      throw new TypeError(
        `${where}: limits.${key} must be a positive integer${key === 'timeoutMs' ? ' of milliseconds' : ''}, got ${String(value)}`,
      );
    }
    limits[key] = value;
  }
  return limits as unknown as McpImportLimits;
}

/**
 * Every page of `tools/list`, within `limits` (the deadline is the caller's `signal`,
 * which also bounds each request). `where` names the server in messages.
 */
export async function listMcpTools(
  client: Client,
  limits: McpImportLimits,
  signal: AbortSignal,
  where: string,
): Promise<McpTool[]> {
  const listed: McpTool[] = [];
  const seenCursors = new Set<string>();
  let bytes = 0;
  let cursor: string | undefined;
  for (let page = 1; ; page += 1) {
    if (page > limits.maxPages) {
      throw new McpImportLimitError(
        'maxPages',
        `MCP server "${where}" was still returning a nextCursor after ${limits.maxPages} pages of tools/list (limits.maxPages); the listing was stopped`,
      );
    }
    // Not client.listTools(): its result schema refuses the whole page for one tool whose
    // schema MCP's own types do not describe (a boolean property schema, a root without
    // `type: 'object'`) and compiles every output schema with the SDK's validator. Each
    // tool's schemas are judged here, one tool at a time, so no tool drags down the rest.
    const result = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      PaginatedResultSchema,
      { signal, timeout: limits.timeoutMs },
    );
    const entries: unknown = (result as { tools?: unknown }).tools;
    if (!Array.isArray(entries)) throw new Error(`MCP server "${where}" answered tools/list without a "tools" array`);
    // An entry that is not even an object cannot be named or called; the rest are defined one by one.
    listed.push(...(entries.filter((t) => typeof t === 'object' && t !== null && !Array.isArray(t)) as McpTool[]));
    if (listed.length > limits.maxTools) {
      throw new McpImportLimitError(
        'maxTools',
        `MCP server "${where}" lists more than ${limits.maxTools} tools (limits.maxTools); the listing was stopped`,
      );
    }
    // Measured without recursion: one tool nested 5,000 levels deep must not overflow the stack (it is skipped later).
    for (const tool of entries) bytes += jsonLength(tool);
    if (bytes > limits.maxListBytes) {
      throw new McpImportLimitError(
        'maxListBytes',
        `MCP server "${where}" sent more than ${limits.maxListBytes} bytes of tool definitions (limits.maxListBytes); the listing was stopped`,
      );
    }
    cursor = result.nextCursor;
    if (cursor === undefined) return listed;
    if (seenCursors.has(cursor)) {
      throw new McpImportLimitError(
        'maxPages',
        `MCP server "${where}" returned the nextCursor ${JSON.stringify(cursor.slice(0, 80))} twice in tools/list: the listing would never end`,
      );
    }
    seenCursors.add(cursor);
  }
}

/** About the length of `value` as JSON text, with an explicit stack (any depth). */
function jsonLength(value: unknown): number {
  let length = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') length += v.length + 2;
    else if (typeof v === 'number' || typeof v === 'boolean') length += String(v).length;
    else if (v === null) length += 4;
    else if (Array.isArray(v)) {
      length += 2 + v.length;
      for (const item of v) stack.push(item);
    } else if (typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>);
      length += 2 + entries.length;
      for (const [key, item] of entries) {
        length += key.length + 3;
        stack.push(item);
      }
    }
  }
  return length;
}
