// OpenAI Chat Completions and Responses formats: tools out, tool calls in, results back.
// Plain data shapes only; this module never imports a provider SDK.
import type { JsonValue } from '../json/json-value.ts';
import type { ContentBlock, ContextMessage, ToolResult } from '../pipeline/tool-result.ts';
import type { ToolSchemaProjection } from '../runtime/create-tool-runtime.ts';
import type { TurnCall } from '../scheduler/execute-turn.ts';

export interface OpenAIChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: ToolSchemaProjection['parameters'] };
}
export interface OpenAIResponsesTool {
  type: 'function';
  name: string;
  description: string;
  parameters: ToolSchemaProjection['parameters'];
  strict: false;
}
export interface OpenAIChatToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}
export interface OpenAIResponsesOutput {
  type: 'function_call_output';
  call_id: string;
  output: string;
}
export type OpenAIChatUserContent = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };
export type OpenAIResponsesUserContent = { type: 'input_text'; text: string } | { type: 'input_image'; image_url: string; detail: 'auto' };

export const toOpenAIChatTools = (schemas: readonly ToolSchemaProjection[]): OpenAIChatTool[] =>
  schemas.map((s) => ({ type: 'function', function: { name: s.name, description: s.description, parameters: s.parameters } }));

/** `strict: false`: our schemas keep optional properties and open objects, which strict mode refuses. */
export const toOpenAIResponsesTools = (schemas: readonly ToolSchemaProjection[]): OpenAIResponsesTool[] =>
  schemas.map((s) => ({ type: 'function', name: s.name, description: s.description, parameters: s.parameters, strict: false }));

const parseArguments = (text: string): JsonValue => {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    // Invalid JSON from the model: pass the raw text on, so the pipeline answers INVALID_ARGS.
    return text;
  }
};

/** `message.tool_calls` of a Chat Completions response → calls for rt.executeTurn. */
export const fromOpenAIChatToolCalls = (
  calls: readonly { readonly id: string; readonly type?: string; readonly function?: { readonly name: string; readonly arguments: string } }[],
): TurnCall[] =>
  calls
    .filter((c) => (c.type === undefined || c.type === 'function') && c.function !== undefined)
    .map((c) => ({ callId: c.id, name: c.function!.name, arguments: parseArguments(c.function!.arguments) }));

/** `function_call` items of a Responses API `output` (other items are ignored) → calls. */
export const fromOpenAIResponsesCalls = (
  items: readonly { readonly type: string; readonly call_id?: string; readonly name?: string; readonly arguments?: string }[],
): TurnCall[] =>
  items
    .filter((i) => i.type === 'function_call' && typeof i.call_id === 'string' && typeof i.name === 'string')
    .map((i) => ({ callId: i.call_id!, name: i.name!, arguments: parseArguments(i.arguments ?? '{}') }));

const resultText = (result: ToolResult): string =>
  result.content.map((b) => (b.type === 'text' ? b.text : `[image ${b.mimeType}]`)).join('\n');

/**
 * A Chat Completions `tool` message. The format has no error flag: a failure's
 * content already reads `Error: …` (the runtime renders failures that way).
 */
export const toOpenAIChatToolMessage = (result: ToolResult): OpenAIChatToolMessage => ({
  role: 'tool',
  tool_call_id: result.callId,
  content: resultText(result),
});

/** A Responses API `function_call_output` item (no error flag either; see above). */
export const toOpenAIResponsesOutput = (result: ToolResult): OpenAIResponsesOutput => ({
  type: 'function_call_output',
  call_id: result.callId,
  output: resultText(result),
});

const dataUrl = (block: ContentBlock & { type: 'image' }): string => `data:${block.mimeType};base64,${block.data}`;

/** A turn's additional contexts as Chat Completions user messages (send them after the tool messages). */
export const toOpenAIChatContextMessages = (contexts: readonly ContextMessage[]): { role: 'user'; content: OpenAIChatUserContent[] }[] =>
  contexts.map((c) => ({
    role: 'user',
    content: c.content.map((b): OpenAIChatUserContent => (b.type === 'text' ? { type: 'text', text: b.text } : { type: 'image_url', image_url: { url: dataUrl(b) } })),
  }));

/** A turn's additional contexts as Responses API input messages (after the function_call_output items). */
export const toOpenAIResponsesContextMessages = (contexts: readonly ContextMessage[]): { role: 'user'; content: OpenAIResponsesUserContent[] }[] =>
  contexts.map((c) => ({
    role: 'user',
    content: c.content.map((b): OpenAIResponsesUserContent => (b.type === 'text' ? { type: 'input_text', text: b.text } : { type: 'input_image', image_url: dataUrl(b), detail: 'auto' })),
  }));
