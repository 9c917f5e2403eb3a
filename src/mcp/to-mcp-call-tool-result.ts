// A ToolResult as an MCP tools/call result: `content` from the rendered content,
// `structuredContent` from the canonical value (MCP allows only an object there; left
// out when post-execute replaced the content, so that a redaction holds),
// `isError` for failures, and our error code and contexts under `_meta`.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JsonValue } from '../json/json-value.ts';
import { isContentReplaced } from '../pipeline/content-replaced.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import { toMcpContent } from './mcp-content.ts';

/** `_meta` keys this server sets. */
export const MCP_META_ERROR = 'ptc-runtime/error';
export const MCP_META_CONTEXTS = 'ptc-runtime/additionalContexts';

const isObject = (v: JsonValue | undefined): v is { readonly [key: string]: JsonValue } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function toMcpCallToolResult(result: ToolResult): CallToolResult {
  const meta: Record<string, unknown> = {};
  if (result.error !== undefined) meta[MCP_META_ERROR] = { code: result.error.code, message: result.error.message };
  if (result.additionalContexts !== undefined && result.additionalContexts.length > 0) meta[MCP_META_CONTEXTS] = result.additionalContexts;
  return {
    content: toMcpContent(result.content),
    // A value whose content post-execute replaced (a redaction) is not sent: the client would read the original.
    ...(!result.isError && isObject(result.value) && !isContentReplaced(result) ? { structuredContent: result.value as Record<string, unknown> } : {}),
    isError: result.isError,
    ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
  };
}
