// OpenAI Chat Completions and Responses formats: tools out, tool calls in, results back.
// Plain data shapes only; the root entry never imports a provider SDK.
import type { JsonValue } from '../json/json-value.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import type { ToolSchemaProjection } from '../runtime/create-tool-runtime.ts';

export interface OpenAIChatTool {
  readonly type: 'function';
  readonly function: { readonly name: string; readonly description: string; readonly parameters: ToolSchemaProjection['parameters'] };
}
export interface OpenAIResponsesTool {
  readonly type: 'function';
  readonly name: string;
  readonly description: string;
  readonly parameters: ToolSchemaProjection['parameters'];
  readonly strict: false;
}

export const toOpenAIChatTools = (schemas: readonly ToolSchemaProjection[]): OpenAIChatTool[] =>
  schemas.map((s) => ({ type: 'function', function: { name: s.name, description: s.description, parameters: s.parameters } }));

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
  calls: readonly { readonly id: string; readonly function: { readonly name: string; readonly arguments: string } }[],
): { callId: string; name: string; arguments: JsonValue }[] =>
  calls.map((c) => ({ callId: c.id, name: c.function.name, arguments: parseArguments(c.function.arguments) }));

/** `function_call` output items of a Responses API response → calls. */
export const fromOpenAIResponsesCalls = (
  items: readonly { readonly type: string; readonly call_id?: string; readonly name?: string; readonly arguments?: string }[],
): { callId: string; name: string; arguments: JsonValue }[] =>
  items
    .filter((i) => i.type === 'function_call' && typeof i.call_id === 'string' && typeof i.name === 'string')
    .map((i) => ({ callId: i.call_id!, name: i.name!, arguments: parseArguments(i.arguments ?? '{}') }));

const resultText = (result: ToolResult): string =>
  result.content.map((b) => (b.type === 'text' ? b.text : `[image ${b.mimeType}]`)).join('\n');

/** A Chat Completions `tool` message. The format has no error flag: failures read as `Error: ...` text. */
export const toOpenAIChatToolMessage = (result: ToolResult): { role: 'tool'; tool_call_id: string; content: string } => ({
  role: 'tool',
  tool_call_id: result.callId,
  content: resultText(result),
});

/** A Responses API `function_call_output` item. */
export const toOpenAIResponsesOutput = (result: ToolResult): { type: 'function_call_output'; call_id: string; output: string } => ({
  type: 'function_call_output',
  call_id: result.callId,
  output: resultText(result),
});
