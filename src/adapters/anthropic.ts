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
import {
  holdContexts,
  observeContainer,
  observeProgramEnd,
  observeResponsePrograms,
  programCallerOf,
  type HostedConversation,
} from '../hosted/hosted-conversation.ts';
import { hostedCaller } from '../pipeline/tool-caller.ts';
import { programResultText } from './program-result-text.ts';

/**
 * The code execution tool versions that run programs calling your tools (programmatic
 * tool calling), as `@anthropic-ai/sdk` 1.16 types them; `code_execution_20260120`
 * (the default) is the first the programmatic tool calling guide requires.
 */
export type AnthropicCodeExecutionType =
  | 'code_execution_20250825'
  | 'code_execution_20260120'
  | 'code_execution_20260521';
/** The code execution tool entry of a hosted-mode request. */
export interface AnthropicCodeExecutionTool {
  type: AnthropicCodeExecutionType;
  name: 'code_execution';
  /** Never set: lets code read `description` across a request's tools. */
  description?: undefined;
}
/** Who may call a tool: the model (`direct`) or code running in that code execution tool. */
export type AnthropicAllowedCaller = 'direct' | AnthropicCodeExecutionType;
/** Every entry a request built here may hold in `tools`. */
export type AnthropicRequestTool = AnthropicTool | AnthropicCodeExecutionTool;
/** @default 'code_execution_20260120' */
export const DEFAULT_ANTHROPIC_CODE_EXECUTION: AnthropicCodeExecutionType = 'code_execution_20260120';

/** Request options; in hosted mode, the conversation (for its container) and the code execution version. */
export interface AnthropicRequestOptions extends RequestOptions {
  /** Hosted mode: the conversation; its container id is sent back as `container`. */
  readonly conversation?: HostedConversation;
  /** Hosted mode: the code execution tool version. @default 'code_execution_20260120' */
  readonly codeExecution?: AnthropicCodeExecutionType;
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: { type: 'object'; [keyword: string]: unknown };
  defer_loading?: true;
  /** Hosted mode: who may call the tool. */
  allowed_callers?: AnthropicAllowedCaller[];
}
export interface AnthropicToolUse {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
  /** `{ type: 'direct' }`, or `{ type: 'code_execution_…', tool_id }` for a call a program made. */
  readonly caller?: { readonly type: string; readonly tool_id?: string } | null;
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
export function toAnthropicTools(
  schemas: readonly ToolSchemaProjection[],
  options: { readonly codeExecution?: AnthropicCodeExecutionType } = {},
): AnthropicTool[] {
  const names = providerToolNames(
    schemas.map((s) => s.name),
    ANTHROPIC_MAX_TOOL_NAME,
  );
  const program = options.codeExecution ?? DEFAULT_ANTHROPIC_CODE_EXECUTION;
  return schemas.map((s) => ({
    name: names.get(s.name) ?? s.name,
    description: s.description,
    input_schema: { ...s.parameters, type: 'object' },
    ...(s.deferLoading === true ? { defer_loading: true as const } : {}),
    ...(s.callers === undefined
      ? {}
      : { allowed_callers: s.callers.map((c): AnthropicAllowedCaller => (c === 'direct' ? 'direct' : program)) }),
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
  options: AnthropicRequestOptions = {},
): { tools: AnthropicRequestTool[]; system?: string; container?: string } {
  const scope = options.agent === undefined ? {} : { agent: options.agent };
  const system = promptText(rt, options);
  const tools: AnthropicRequestTool[] = toAnthropicTools(rt.schemas(scope), options);
  // Hosted mode: the code execution tool that runs the model's programs, and the
  // container those programs wait in (required while one waits for tool results).
  const hosted = rt.mode(scope) === 'hosted';
  if (hosted)
    tools.unshift({ type: options.codeExecution ?? DEFAULT_ANTHROPIC_CODE_EXECUTION, name: 'code_execution' });
  const container = hosted ? options.conversation?.container : undefined;
  return {
    tools,
    ...(system === undefined ? {} : { system }),
    ...(container === undefined ? {} : { container }),
  };
}

/** Options of {@link fromAnthropicToolUses}. */
export interface AnthropicCallOptions extends ToolNameOptions {
  /** Hosted mode: the conversation that learns the programs, their ends and the container this response shows. */
  readonly conversation?: HostedConversation;
}

/** An assistant message as the SDK returns it: its content, and (hosted mode) its container. */
export interface AnthropicMessageLike {
  readonly content: readonly { readonly type: string }[];
  readonly container?: { readonly id: string } | null;
}

/**
 * tool_use blocks of an assistant message (other blocks are ignored) → calls for
 * rt.executeTurn, in model order, under their registered names. The runtime (or the
 * schema list that was sent) is needed only when a name was sent as an alias.
 *
 * Hosted mode: a tool_use whose `caller` is a code execution program
 * (`{ type: 'code_execution_…', tool_id }`) becomes a call with `caller: { type:
 * 'program', programId: tool_id, provider: 'anthropic' }`; pass the whole message (for
 * its container) and `{ conversation }`, which learns the programs this message starts
 * (code_execution `server_tool_use`) and ends (`code_execution_tool_result`).
 */
export function fromAnthropicToolUses(
  blocks: readonly { readonly type: string }[] | AnthropicMessageLike,
  source?: ToolNameSource,
  options: AnthropicCallOptions = {},
): TurnCall[] {
  const registered = registeredToolNames(source, ANTHROPIC_MAX_TOOL_NAME, options);
  const content = Array.isArray(blocks) ? blocks : (blocks as AnthropicMessageLike).content;
  const { conversation } = options;
  if (conversation !== undefined) {
    const container = Array.isArray(blocks) ? undefined : (blocks as AnthropicMessageLike).container;
    if (typeof container?.id === 'string') observeContainer(conversation, container.id);
    observeAnthropicPrograms(conversation, content);
  }
  return content
    .filter((b): b is AnthropicToolUse => b.type === 'tool_use')
    .map((b) => {
      const call = { callId: b.id, name: registered(b.name), arguments: b.input as JsonValue };
      const caller = b.caller;
      if (caller === undefined || caller === null || caller.type === 'direct') return call;
      // Any other caller is a program's: taken only for a program this conversation saw.
      return { ...call, caller: hostedCaller('anthropic', typeof caller.tool_id === 'string' ? caller.tool_id : '') };
    });
}

interface ProgramBlock {
  readonly type: string;
  readonly id?: unknown;
  readonly name?: unknown;
  readonly input?: unknown;
  readonly tool_use_id?: unknown;
  readonly content?: unknown;
}

/** The programs a message's code execution `server_tool_use` blocks start (taken one at a time: bounded by the conversation). */
function* anthropicProgramStarts(blocks: readonly ProgramBlock[]): Generator<{ programId: string; code: string }> {
  for (const block of blocks) {
    if (block.type !== 'server_tool_use' || block.name !== 'code_execution' || typeof block.id !== 'string') continue;
    const code = (block.input as { code?: unknown } | null)?.code;
    yield { programId: block.id, code: typeof code === 'string' ? code : JSON.stringify(block.input ?? null) };
  }
}

/** Code execution `server_tool_use` blocks start programs; their `code_execution_tool_result` blocks end them. */
function observeAnthropicPrograms(
  conversation: HostedConversation,
  content: readonly { readonly type: string }[],
): void {
  observeResponsePrograms(conversation, 'anthropic', anthropicProgramStarts(content as readonly ProgramBlock[]));
  for (const block of content as readonly ProgramBlock[]) {
    if (block.type !== 'code_execution_tool_result' || typeof block.tool_use_id !== 'string') continue;
    const result = (block.content ?? {}) as {
      type?: unknown;
      stdout?: unknown;
      stderr?: unknown;
      return_code?: unknown;
      error_code?: unknown;
    };
    const stdout = typeof result.stdout === 'string' ? result.stdout : '';
    const stderr = typeof result.stderr === 'string' ? result.stderr : '';
    const ok = result.return_code === 0;
    const output =
      typeof result.error_code === 'string' ? `error: ${result.error_code}` : ok ? stdout : `${stdout}${stderr}`;
    observeProgramEnd(conversation, 'anthropic', block.tool_use_id, {
      ok,
      output,
      detail: {
        type: typeof result.type === 'string' ? result.type : null,
        return_code: typeof result.return_code === 'number' ? result.return_code : null,
        stderr,
        ...(typeof result.error_code === 'string' ? { error_code: result.error_code } : {}),
      },
    });
  }
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
 * Hosted mode: the tool_result of a call a program made — one text block with what the
 * program reads: the value's JSON text, or a failure's text (with `is_error: true`).
 */
export function toAnthropicProgramToolResult(result: ToolResult): AnthropicToolResult {
  return {
    type: 'tool_result',
    tool_use_id: result.callId,
    content: [{ type: 'text', text: programResultText(result) }],
    ...(result.isError ? { is_error: true as const } : {}),
  };
}

/**
 * The next user message after a turn: every tool_result in model order, then the
 * turn's additional contexts (they reach the model after all results). Empty context
 * text is left out.
 *
 * Hosted mode, with `{ conversation }`: a program's call gets its value's JSON text (see
 * toAnthropicProgramToolResult), and a message answering a program holds tool_result blocks
 * only, as the API requires while a program waits; its contexts are held by the
 * conversation and come with the next message that may carry them.
 */
export const toAnthropicUserMessage = (
  turn: Pick<TurnResult, 'results' | 'additionalContexts'>,
  options: { readonly conversation?: HostedConversation } = {},
): AnthropicUserMessage => {
  const { conversation } = options;
  const program = (r: ToolResult): boolean => programCallerOf(conversation, r.callId) !== undefined;
  const results = turn.results.map((r) => (program(r) ? toAnthropicProgramToolResult(r) : toAnthropicToolResult(r)));
  let contexts = turn.additionalContexts;
  if (conversation !== undefined) {
    if (turn.results.some(program)) {
      holdContexts(conversation, contexts);
      contexts = [];
    } else contexts = [...conversation.takeHeldContexts(), ...contexts];
  }
  return {
    role: 'user',
    content: [
      ...results,
      ...contexts.flatMap((c) =>
        c.content.filter((b) => b.type !== 'text' || !isBlank(b.text)).map(toAnthropicContent),
      ),
    ],
  };
};

export type { RequestOptions } from './prompt-text.ts';
export type { ToolNameOptions, ToolNameSource } from './provider-tool-names.ts';
