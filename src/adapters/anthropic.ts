// Anthropic Messages API: tool list out, tool_use blocks in, tool_result blocks back.
// Plain data shapes only; the root entry never imports a provider SDK.
import type { JsonValue } from '../json/json-value.ts';
import type { ContentBlock, ToolResult } from '../pipeline/tool-result.ts';
import type { ToolSchemaProjection } from '../runtime/create-tool-runtime.ts';

export interface AnthropicTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: ToolSchemaProjection['parameters'];
}
export interface AnthropicToolUse {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: JsonValue;
}
export type AnthropicContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly source: { readonly type: 'base64'; readonly media_type: string; readonly data: string } };
export interface AnthropicToolResult {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content: readonly AnthropicContent[];
  readonly is_error?: true;
}

export const toAnthropicTools = (schemas: readonly ToolSchemaProjection[]): AnthropicTool[] =>
  schemas.map((s) => ({ name: s.name, description: s.description, input_schema: s.parameters }));

/** tool_use blocks of an assistant message → calls for rt.executeTurn. */
export const fromAnthropicToolUses = (blocks: readonly { readonly type: string }[]): { callId: string; name: string; arguments: JsonValue }[] =>
  blocks
    .filter((b): b is AnthropicToolUse => b.type === 'tool_use')
    .map((b) => ({ callId: b.id, name: b.name, arguments: b.input }));

const toAnthropicContent = (block: ContentBlock): AnthropicContent =>
  block.type === 'text' ? { type: 'text', text: block.text } : { type: 'image', source: { type: 'base64', media_type: block.mimeType, data: block.data } };

export const toAnthropicToolResult = (result: ToolResult): AnthropicToolResult => ({
  type: 'tool_result',
  tool_use_id: result.callId,
  content: result.content.map(toAnthropicContent),
  ...(result.isError ? { is_error: true as const } : {}),
});
