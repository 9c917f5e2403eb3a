// A ToolResult as an MCP tools/call result: `content` from the rendered content,
// `structuredContent` from the canonical value (MCP allows only an object there: any other
// value is wrapped as `{ value }`, see wrapped-value.ts; left out when post-execute replaced
// the content, so that a redaction holds),
// `isError` for failures, and our error code and contexts under `_meta`.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JsonValue } from '../json/json-value.ts';
import { isContentReplaced } from '../pipeline/content-replaced.ts';
import { EMPTY_RESULT_TEXT, isBlank } from '../adapters/non-empty-text.ts';
import type { ContentBlock, ToolResult } from '../pipeline/tool-result.ts';
import { toMcpContent } from './mcp-content.ts';
import { MCP_META_WRAPPED, needsWrapping } from './wrapped-value.ts';

/** `_meta` keys this server sets. */
export const MCP_META_ERROR = 'ptc-runtime/error';
export const MCP_META_CONTEXTS = 'ptc-runtime/additionalContexts';

const isObject = (v: JsonValue): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The content without blank text blocks; `(no output)` when nothing is left. */
function withVisibleText(content: readonly ContentBlock[]): readonly ContentBlock[] {
  const visible = content.filter((b) => b.type !== 'text' || !isBlank(b.text));
  return visible.length > 0 ? visible : [{ type: 'text', text: EMPTY_RESULT_TEXT }];
}

/**
 * `wrapValue`: whether the value travels as `{ value }`; the server passes what the tool's
 * listing promised (see `listedAsWrapped`). Default: only values that are not objects.
 */
export function toMcpCallToolResult(result: ToolResult, wrapValue = needsWrapping(result.value)): CallToolResult {
  const wrap = wrapValue && result.value !== undefined;
  const meta: Record<string, unknown> = {};
  if (result.error !== undefined) meta[MCP_META_ERROR] = { code: result.error.code, message: result.error.message };
  if (result.additionalContexts !== undefined && result.additionalContexts.length > 0)
    meta[MCP_META_CONTEXTS] = result.additionalContexts;
  if (!result.isError && !isContentReplaced(result) && wrap) meta[MCP_META_WRAPPED] = true;
  return {
    // MCP clients forward content to model providers, which refuse empty text blocks.
    content: toMcpContent(withVisibleText(result.content)),
    // A value whose content post-execute replaced (a redaction) is not sent: the client would read the original.
    ...(!result.isError && !isContentReplaced(result) && result.value !== undefined && (wrap || isObject(result.value))
      ? { structuredContent: wrap ? { value: result.value } : (result.value as Record<string, unknown>) }
      : {}),
    isError: result.isError,
    ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
  };
}
