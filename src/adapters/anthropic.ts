// Anthropic Messages API: tool list out, tool_use blocks in, tool_result blocks back.
// Plain data shapes, assignable to the `@anthropic-ai/sdk` param types (checked by the
// adapter tests); this module never imports a provider SDK. The API's rules hold for
// everything built here: tool names match `^[a-zA-Z0-9_-]{1,128}$` (others are sent as
// aliases and mapped back), no text block is empty, images are jpeg, png, gif or webp.
import type { JsonValue } from '../json/json-value.ts';
import type { ContentBlock, ToolResult } from '../pipeline/tool-result.ts';
import type { ToolRuntime, ToolSchemaProjection } from '../runtime/create-tool-runtime.ts';
import type { TurnCall, TurnResult } from '../scheduler/execute-turn.ts';
import { isBlank, nonEmptyText } from './non-empty-text.ts';
import {
  ANTHROPIC_MAX_TOOL_NAME,
  providerToolNames,
  registeredToolNames,
  type ToolNameOptions,
  type ToolNameSource,
} from './provider-tool-names.ts';
import { promptText, type RequestOptions } from './prompt-text.ts';

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

/**
 * `rt.schemas()` → `tools` of a Messages request. Names the API would refuse
 * (`tickets.count`) are sent as safe aliases; pass the runtime (or this list) to
 * {@link fromAnthropicToolUses} to get the registered names back.
 */
export function toAnthropicTools(schemas: readonly ToolSchemaProjection[]): AnthropicTool[] {
  const names = providerToolNames(
    schemas.map((s) => s.name),
    ANTHROPIC_MAX_TOOL_NAME,
  );
  return schemas.map((s) => ({
    name: names.get(s.name) ?? s.name,
    description: s.description,
    input_schema: { ...s.parameters, type: 'object' },
    ...(s.deferLoading === true ? { defer_loading: true as const } : {}),
  }));
}

/**
 * What a Messages request needs from the runtime, to spread into
 * `client.messages.create({ model, max_tokens, messages, ...toAnthropicRequest(rt) })`:
 * the tools for the agent's mode (in ptc mode run_code, whose description carries the
 * SDK by default) and, when `rt.prompt()` has sections (`embedSdkInDescription: false`),
 * `system` with them after your own `options.system`.
 */
export function toAnthropicRequest(
  rt: ToolRuntime,
  options: RequestOptions = {},
): { tools: AnthropicTool[]; system?: string } {
  const scope = options.agent === undefined ? {} : { agent: options.agent };
  const system = promptText(rt, options);
  return { tools: toAnthropicTools(rt.schemas(scope)), ...(system === undefined ? {} : { system }) };
}

/**
 * tool_use blocks of an assistant message (other blocks are ignored) → calls for
 * rt.executeTurn, in model order, under their registered names. The runtime (or the
 * schema list that was sent) is needed only when a name was sent as an alias.
 */
export function fromAnthropicToolUses(
  blocks: readonly { readonly type: string }[],
  source?: ToolNameSource,
  options: ToolNameOptions = {},
): TurnCall[] {
  const registered = registeredToolNames(source, ANTHROPIC_MAX_TOOL_NAME, options);
  return blocks
    .filter((b): b is AnthropicToolUse => b.type === 'tool_use')
    .map((b) => ({ callId: b.id, name: registered(b.name), arguments: b.input as JsonValue }));
}

const IMAGE_TYPES: ReadonlySet<string> = new Set<AnthropicImageType>([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
]);

export const toAnthropicContent = (block: ContentBlock): AnthropicContent => {
  if (block.type === 'text') return { type: 'text', text: nonEmptyText(block.text) };
  return IMAGE_TYPES.has(block.mimeType)
    ? { type: 'image', source: { type: 'base64', media_type: block.mimeType as AnthropicImageType, data: block.data } }
    : { type: 'text', text: `[image ${block.mimeType}: not a type the Messages API accepts]` };
};

/**
 * One result as a tool_result block; failures carry `is_error: true`. Empty text
 * blocks are dropped, and a result left without content reads `(no output)`.
 */
export function toAnthropicToolResult(result: ToolResult): AnthropicToolResult {
  const blocks = result.content.filter((b) => b.type !== 'text' || !isBlank(b.text));
  return {
    type: 'tool_result',
    tool_use_id: result.callId,
    content: blocks.length === 0 ? [{ type: 'text', text: nonEmptyText('') }] : blocks.map(toAnthropicContent),
    ...(result.isError ? { is_error: true as const } : {}),
  };
}

/**
 * The next user message after a turn: every tool_result in model order, then the
 * turn's additional contexts (they reach the model after all results). Empty context
 * text is left out.
 */
export const toAnthropicUserMessage = (
  turn: Pick<TurnResult, 'results' | 'additionalContexts'>,
): AnthropicUserMessage => ({
  role: 'user',
  content: [
    ...turn.results.map(toAnthropicToolResult),
    ...turn.additionalContexts.flatMap((c) =>
      c.content.filter((b) => b.type !== 'text' || !isBlank(b.text)).map(toAnthropicContent),
    ),
  ],
});

export type { RequestOptions } from './prompt-text.ts';
export type { ToolNameOptions, ToolNameSource } from './provider-tool-names.ts';
