// Anthropic Messages API: tool list out, tool_use blocks in, tool_result blocks back.
// Plain data shapes, assignable to the `@anthropic-ai/sdk` param types (checked by the
// adapter tests); this module never imports a provider SDK.
import type { JsonValue } from '../json/json-value.ts';
import type { ContentBlock, ContextMessage, ToolResult } from '../pipeline/tool-result.ts';
import type { ToolSchemaProjection } from '../runtime/create-tool-runtime.ts';
import type { TurnCall } from '../scheduler/execute-turn.ts';

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: { type: 'object'; [keyword: string]: unknown };
  defer_loading?: true;
}
export interface AnthropicToolUse {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}
/** The image types the Messages API accepts; others are sent as a text marker. */
export type AnthropicImageType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
export type AnthropicContent =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: AnthropicImageType; data: string } };
export interface AnthropicToolResult {
  type: 'tool_result';
  tool_use_id: string;
  content: AnthropicContent[];
  is_error?: true;
}
/** The user message that answers one assistant message's tool_use blocks. */
export interface AnthropicUserMessage {
  role: 'user';
  content: (AnthropicToolResult | AnthropicContent)[];
}

/** `rt.schemas()` → `tools` of a Messages request. */
export const toAnthropicTools = (schemas: readonly ToolSchemaProjection[]): AnthropicTool[] =>
  schemas.map((s) => ({
    name: s.name,
    description: s.description,
    input_schema: { ...s.parameters, type: 'object' },
    ...(s.deferLoading === true ? { defer_loading: true as const } : {}),
  }));

/** tool_use blocks of an assistant message (other blocks are ignored) → calls for rt.executeTurn, in model order. */
export const fromAnthropicToolUses = (blocks: readonly { readonly type: string }[]): TurnCall[] =>
  blocks
    .filter((b): b is AnthropicToolUse => b.type === 'tool_use')
    .map((b) => ({ callId: b.id, name: b.name, arguments: b.input as JsonValue }));

const IMAGE_TYPES: ReadonlySet<string> = new Set<AnthropicImageType>(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

export const toAnthropicContent = (block: ContentBlock): AnthropicContent => {
  if (block.type === 'text') return { type: 'text', text: block.text };
  return IMAGE_TYPES.has(block.mimeType)
    ? { type: 'image', source: { type: 'base64', media_type: block.mimeType as AnthropicImageType, data: block.data } }
    : { type: 'text', text: `[image ${block.mimeType}: not a type the Messages API accepts]` };
};

/** One result as a tool_result block; failures carry `is_error: true`. */
export const toAnthropicToolResult = (result: ToolResult): AnthropicToolResult => ({
  type: 'tool_result',
  tool_use_id: result.callId,
  content: result.content.map(toAnthropicContent),
  ...(result.isError ? { is_error: true as const } : {}),
});

/**
 * The next user message after a turn: every tool_result in model order, then the
 * turn's additional contexts (they reach the model after all results, SPEC §4).
 */
export const toAnthropicUserMessage = (turn: {
  readonly results: readonly ToolResult[];
  readonly additionalContexts: readonly ContextMessage[];
}): AnthropicUserMessage => ({
  role: 'user',
  content: [...turn.results.map(toAnthropicToolResult), ...turn.additionalContexts.flatMap((c) => c.content.map(toAnthropicContent))],
});
