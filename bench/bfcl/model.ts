// The model side of the loop: Anthropic Messages shapes, so the scripted oracles and a
// live model are driven the same way.
import type { AnthropicRequestTool, AnthropicUserMessage } from '../../src/adapters/anthropic.ts';
import type { BoundCall } from './oracle.ts';

export type AssistantBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: unknown }
  | ToolSearchBlock;

/** The provider's own tool search (Anthropic's `tool_search_tool_regex`): the call and what it found. */
export type ToolSearchBlock =
  | {
      readonly type: 'server_tool_use';
      readonly id: string;
      readonly name: typeof TOOL_SEARCH.name;
      readonly input: { readonly query: string };
    }
  | {
      readonly type: 'tool_search_tool_result';
      readonly tool_use_id: string;
      readonly content: {
        readonly type: 'tool_search_tool_search_result';
        readonly tool_references: readonly { readonly type: 'tool_reference'; readonly tool_name: string }[];
      };
    };

/** The tool search tool as a Messages request lists it, next to the `defer_loading` tools it finds. */
export const TOOL_SEARCH = { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' } as const;

export type Message =
  | { readonly role: 'user'; readonly content: string | AnthropicUserMessage['content'] }
  | { readonly role: 'assistant'; readonly content: readonly AssistantBlock[] };

export interface ModelRequest {
  readonly tools: readonly AnthropicRequestTool[];
  readonly system?: string;
  readonly messages: readonly Message[];
}

export interface ModelReply {
  readonly content: readonly AssistantBlock[];
}

/** Token counts a provider's API reported (its usage fields), summed over requests. */
export interface ApiUsage {
  /** The provider's input field as reported (Anthropic input_tokens leaves out cached tokens; OpenAI prompt_tokens does not). */
  readonly inputTokens: number;
  /** Every input token the requests carried, cached or not (Anthropic: input + cache read + cache write). */
  readonly promptTokens: number;
  readonly outputTokens: number;
  /** Input tokens read from the prompt cache (Anthropic cache_read_input_tokens, OpenAI cached_tokens). */
  readonly cacheReadTokens: number;
  /** Input tokens written to the prompt cache (Anthropic cache_creation_input_tokens). */
  readonly cacheWriteTokens: number;
}

export interface TurnModel {
  /** What the API reported so far (live models only). */
  usage?(): ApiUsage;
  /**
   * The ground truth of the coming turn and the result text of each of its calls
   * (scripted models replay it; live models ignore it).
   */
  startTurn(calls: readonly BoundCall[], results?: readonly string[]): void;
  respond(request: ModelRequest): Promise<ModelReply>;
}
