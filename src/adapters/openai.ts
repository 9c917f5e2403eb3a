// OpenAI Chat Completions and Responses formats: tools out, tool calls in, results back.
// Plain data shapes, assignable to the `openai` package's param types (checked by the
// adapter tests); this module never imports a provider SDK. The API's rules hold for
// everything built here: function names match `^[a-zA-Z0-9_-]{1,64}$` (others are sent
// as aliases and mapped back), no text is empty, images are png, jpeg, gif or webp.
import { parseJsonArguments } from '../json/malformed-json.ts';
import type { ContentBlock, ToolResult } from '../pipeline/tool-result.ts';
import type { ToolRuntime, ToolSchemaProjection } from '../runtime/create-tool-runtime.ts';
import type { TurnCall, TurnResult } from '../scheduler/execute-turn.ts';
import { isBlank, nonEmptyText } from './non-empty-text.ts';
import { promptText, type RequestOptions } from './prompt-text.ts';
import {
  holdContexts,
  observeProgramEnd,
  observeResponsePrograms,
  programCallerOf,
  type HostedConversation,
} from '../hosted/hosted-conversation.ts';
import { hostedCaller } from '../pipeline/tool-caller.ts';
import { programResultText } from './program-result-text.ts';
import {
  OPENAI_MAX_TOOL_NAME,
  providerToolNames,
  registeredToolNames,
  type ToolNameOptions,
  type ToolNameSource,
} from './provider-tool-names.ts';

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
  /** Hosted mode: `['programmatic']` (programs only), `['direct']` or both. */
  allowed_callers?: ('direct' | 'programmatic')[];
  /** Hosted mode: the JSON the tool's string outputs hold, for a tool whose output is an object. */
  output_schema?: ToolSchemaProjection['parameters'];
}
/** The tool that lets the model write programs calling the `programmatic` tools (hosted mode). */
export interface OpenAIProgrammaticToolCalling {
  type: 'programmatic_tool_calling';
  /** Never set: lets code read `name` across a request's tools. */
  name?: undefined;
}
/** A program-made call's caller, as `function_call_output` items send it back. */
export interface OpenAIProgramCaller {
  type: 'program';
  caller_id: string;
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
  /** Hosted mode: the program that made the call. */
  caller?: OpenAIProgramCaller;
}
export type OpenAIChatUserContent = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };
export type OpenAIResponsesUserContent =
  | { type: 'input_text'; text: string }
  | { type: 'input_image'; image_url: string; detail: 'auto' };
export interface OpenAIChatUserMessage {
  role: 'user';
  content: OpenAIChatUserContent[];
}
export interface OpenAIResponsesUserMessage {
  role: 'user';
  content: OpenAIResponsesUserContent[];
}
/** What every context helper takes: the turn as `rt.executeTurn` returns it. */
export type TurnOutcome = Pick<TurnResult, 'results' | 'additionalContexts'>;

const aliases = (schemas: readonly ToolSchemaProjection[]): Map<string, string> =>
  providerToolNames(
    schemas.map((s) => s.name),
    OPENAI_MAX_TOOL_NAME,
  );

/** `rt.schemas()` → Chat Completions `tools`; names the API would refuse are sent as safe aliases. */
export function toOpenAIChatTools(schemas: readonly ToolSchemaProjection[]): OpenAIChatTool[] {
  const names = aliases(schemas);
  return schemas.map((s) => ({
    type: 'function',
    function: { name: names.get(s.name) ?? s.name, description: s.description, parameters: s.parameters },
  }));
}

/**
 * `rt.schemas()` → Responses API `tools`. `strict: false`: our schemas keep optional
 * properties and open objects, which strict mode refuses.
 */
export function toOpenAIResponsesTools(schemas: readonly ToolSchemaProjection[]): OpenAIResponsesTool[] {
  const names = aliases(schemas);
  return schemas.map((s) => ({
    type: 'function',
    name: names.get(s.name) ?? s.name,
    description: s.description,
    parameters: s.parameters,
    strict: false,
    ...(s.callers === undefined
      ? {}
      : { allowed_callers: s.callers.map((c) => (c === 'direct' ? ('direct' as const) : ('programmatic' as const))) }),
    ...(s.outputSchema === undefined ? {} : { output_schema: s.outputSchema }),
  }));
}

const scopeOf = (options: RequestOptions): { readonly agent?: NonNullable<RequestOptions['agent']> } =>
  options.agent === undefined ? {} : { agent: options.agent };

/**
 * A Chat Completions request's `tools` and `messages`, to spread into
 * `client.chat.completions.create({ model, ...toOpenAIChatRequest(rt, history) })`:
 * the tools for the agent's mode (left out when there are none: the API refuses an
 * empty list) and your messages, after a system message with `options.system` and
 * `rt.prompt()`'s sections when there is any such text.
 */
export function toOpenAIChatRequest<M>(
  rt: ToolRuntime,
  messages: readonly M[],
  options: RequestOptions = {},
): { tools?: OpenAIChatTool[]; messages: (M | { role: 'system'; content: string })[] } {
  if (rt.mode(scopeOf(options)) === 'hosted')
    throw new TypeError(
      'toOpenAIChatRequest: hosted mode needs the Responses API (toOpenAIResponsesRequest); Chat Completions has no programmatic tool calling',
    );
  const tools = toOpenAIChatTools(rt.schemas(scopeOf(options)));
  const system = promptText(rt, options);
  return {
    ...(tools.length === 0 ? {} : { tools }),
    messages: system === undefined ? [...messages] : [{ role: 'system', content: system }, ...messages],
  };
}

/**
 * A Responses request's `tools` and `instructions`, to spread into
 * `client.responses.create({ model, input, ...toOpenAIResponsesRequest(rt) })`; as
 * {@link toOpenAIChatRequest}, with the system text as `instructions`.
 */
export function toOpenAIResponsesRequest(
  rt: ToolRuntime,
  options: RequestOptions = {},
): { tools?: (OpenAIResponsesTool | OpenAIProgrammaticToolCalling)[]; instructions?: string } {
  const tools: (OpenAIResponsesTool | OpenAIProgrammaticToolCalling)[] = toOpenAIResponsesTools(
    rt.schemas(scopeOf(options)),
  );
  // Hosted mode: the tool under which the model's programs run and call the others.
  if (rt.mode(scopeOf(options)) === 'hosted') tools.unshift({ type: 'programmatic_tool_calling' });
  const instructions = promptText(rt, options);
  return { ...(tools.length === 0 ? {} : { tools }), ...(instructions === undefined ? {} : { instructions }) };
}

/**
 * `message.tool_calls` of a Chat Completions response → calls for rt.executeTurn, under
 * their registered names (the runtime or the sent list is needed only when a name was
 * sent as an alias). Arguments that are not valid JSON are refused by the runtime with
 * INVALID_ARGS saying so. Custom (non-function) tool calls are ignored.
 */
export function fromOpenAIChatToolCalls(
  // `message.tool_calls` as the API sends it: absent when the model answered in text.
  calls:
    | readonly {
        readonly id: string;
        readonly type?: string;
        readonly function?: { readonly name: string; readonly arguments: string };
      }[]
    | null
    | undefined,
  source?: ToolNameSource,
  options: ToolNameOptions = {},
): TurnCall[] {
  if (calls === undefined || calls === null) return [];
  const registered = registeredToolNames(source, OPENAI_MAX_TOOL_NAME, options);
  return calls.flatMap((c) =>
    (c.type === undefined || c.type === 'function') && c.function !== undefined
      ? [{ callId: c.id, name: registered(c.function.name), arguments: parseJsonArguments(c.function.arguments) }]
      : [],
  );
}

/** The fields of a Responses `output` item this adapter reads; any item of the union fits. */
export interface ResponsesItem {
  readonly type: string;
  readonly call_id?: string | null;
  readonly name?: unknown;
  readonly arguments?: unknown;
  /** `function_call`: `{ type: 'program', caller_id }` when a hosted program made it. */
  readonly caller?: unknown;
  /** `program`: its source. */
  readonly code?: unknown;
  /** `program_output`: what the program produced. */
  readonly result?: unknown;
  readonly status?: unknown;
}

/** Options of {@link fromOpenAIResponsesCalls}. */
export interface OpenAICallOptions extends ToolNameOptions {
  /** Hosted mode: the conversation that learns the programs this output starts (`program`) and ends (`program_output`). */
  readonly conversation?: HostedConversation;
}

/**
 * `function_call` items of a Responses API `output` (other items are ignored) → calls,
 * as {@link fromOpenAIChatToolCalls}. Takes `response.output` as the `openai` package
 * types it.
 *
 * Hosted mode: a `function_call` whose `caller` is `{ type: 'program', caller_id }`
 * becomes a call with `caller: { type: 'program', programId: caller_id, provider:
 * 'openai' }`; `{ conversation }` learns the programs this output starts (`program`
 * items, by `call_id`) and ends (`program_output`).
 */
export function fromOpenAIResponsesCalls(
  items: readonly ResponsesItem[],
  source?: ToolNameSource,
  options: OpenAICallOptions = {},
): TurnCall[] {
  const registered = registeredToolNames(source, OPENAI_MAX_TOOL_NAME, options);
  const { conversation } = options;
  if (conversation !== undefined) observeOpenAIPrograms(conversation, items);
  return items.flatMap((i) => {
    if (i.type !== 'function_call' || typeof i.call_id !== 'string' || typeof i.name !== 'string') return [];
    const call = {
      callId: i.call_id,
      name: registered(i.name),
      arguments: typeof i.arguments === 'string' ? parseJsonArguments(i.arguments) : {},
    };
    const caller = i.caller as { type?: unknown; caller_id?: unknown } | null | undefined;
    if (caller === undefined || caller === null || caller.type === 'direct') return [call];
    // Any other caller is a program's: taken only for a program this conversation saw.
    return [{ ...call, caller: hostedCaller('openai', typeof caller.caller_id === 'string' ? caller.caller_id : '') }];
  });
}

/** The programs a response's `program` items start (taken one at a time: bounded by the conversation). */
function* openaiProgramStarts(items: readonly ResponsesItem[]): Generator<{ programId: string; code: string }> {
  for (const i of items) {
    if (i.type === 'program' && typeof i.call_id === 'string')
      yield { programId: i.call_id, code: typeof i.code === 'string' ? i.code : '' };
  }
}

/** `program` items start programs (keyed by `call_id`); `program_output` items end them. */
function observeOpenAIPrograms(conversation: HostedConversation, items: readonly ResponsesItem[]): void {
  observeResponsePrograms(conversation, 'openai', openaiProgramStarts(items));
  for (const i of items) {
    if (i.type !== 'program_output' || typeof i.call_id !== 'string') continue;
    const status = typeof i.status === 'string' ? i.status : null;
    observeProgramEnd(conversation, 'openai', i.call_id, {
      ok: status === 'completed',
      output: typeof i.result === 'string' ? i.result : '',
      detail: { status },
    });
  }
}

/** The image types OpenAI's image inputs accept; others are sent as a text marker. */
const IMAGE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const unsupportedImage = (mimeType: string): string => `[image ${mimeType}: not a type the OpenAI API accepts]`;

const resultText = (result: ToolResult): string =>
  nonEmptyText(
    result.content
      .map((b) => (b.type === 'text' ? b.text : `[image ${b.mimeType}]`))
      .filter((t) => t !== '')
      .join('\n'),
  );

/**
 * A Chat Completions `tool` message. The format has no error flag: a failure's
 * content already reads `Error: …` (the runtime renders failures that way). An empty
 * result reads `(no output)`.
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

/**
 * Hosted mode: the `function_call_output` of a call a program made. It names that
 * program (`caller`), and its output is JSON text — the value's, or a failure's text as
 * a JSON string — which a tool sent with `output_schema` requires and the program parses.
 */
export const toOpenAIProgramOutput = (result: ToolResult, programId: string): OpenAIResponsesOutput => ({
  type: 'function_call_output',
  call_id: result.callId,
  output: result.isError ? JSON.stringify(programResultText(result)) : programResultText(result),
  caller: { type: 'program', caller_id: programId },
});

const dataUrl = (block: ContentBlock & { type: 'image' }): string => `data:${block.mimeType};base64,${block.data}`;
const nonEmpty = (blocks: readonly ContentBlock[]): ContentBlock[] =>
  blocks.filter((b) => b.type !== 'text' || !isBlank(b.text));

const chatContent = (b: ContentBlock): OpenAIChatUserContent =>
  b.type === 'text'
    ? { type: 'text', text: b.text }
    : IMAGE_TYPES.has(b.mimeType)
      ? { type: 'image_url', image_url: { url: dataUrl(b) } }
      : { type: 'text', text: unsupportedImage(b.mimeType) };

const responsesContent = (b: ContentBlock): OpenAIResponsesUserContent =>
  b.type === 'text'
    ? { type: 'input_text', text: b.text }
    : IMAGE_TYPES.has(b.mimeType)
      ? { type: 'input_image', image_url: dataUrl(b), detail: 'auto' }
      : { type: 'input_text', text: unsupportedImage(b.mimeType) };

/** A turn's additional contexts as Chat Completions user messages (send them after the tool messages). */
export const toOpenAIChatContextMessages = (turn: Pick<TurnOutcome, 'additionalContexts'>): OpenAIChatUserMessage[] =>
  turn.additionalContexts.flatMap((c) => {
    const blocks = nonEmpty(c.content);
    return blocks.length === 0 ? [] : [{ role: 'user' as const, content: blocks.map(chatContent) }];
  });

/** A turn's additional contexts as Responses API input messages (after the function_call_output items). */
export const toOpenAIResponsesContextMessages = (
  turn: Pick<TurnOutcome, 'additionalContexts'>,
): OpenAIResponsesUserMessage[] =>
  turn.additionalContexts.flatMap((c) => {
    const blocks = nonEmpty(c.content);
    return blocks.length === 0 ? [] : [{ role: 'user' as const, content: blocks.map(responsesContent) }];
  });

/** Everything a turn adds to a Chat Completions conversation: the tool messages in model order, then the contexts. */
export const toOpenAIChatMessages = (turn: TurnOutcome): (OpenAIChatToolMessage | OpenAIChatUserMessage)[] => [
  ...turn.results.map(toOpenAIChatToolMessage),
  ...toOpenAIChatContextMessages(turn),
];

/**
 * Everything a turn adds to a Responses `input`: the function_call_output items in model
 * order, then the contexts. Hosted mode, with `{ conversation }`: a program's call gets
 * its `caller` and JSON output (see toOpenAIProgramOutput), and while a program waits
 * for its calls the contexts are held by the conversation for the next turn that may
 * carry them.
 */
export const toOpenAIResponsesInput = (
  turn: TurnOutcome,
  options: { readonly conversation?: HostedConversation } = {},
): (OpenAIResponsesOutput | OpenAIResponsesUserMessage)[] => {
  const { conversation } = options;
  if (conversation === undefined)
    return [...turn.results.map(toOpenAIResponsesOutput), ...toOpenAIResponsesContextMessages(turn)];
  const outputs = turn.results.map((r) => {
    const caller = programCallerOf(conversation, r.callId);
    return caller === undefined ? toOpenAIResponsesOutput(r) : toOpenAIProgramOutput(r, caller.programId);
  });
  if (outputs.some((o) => o.caller !== undefined)) {
    holdContexts(conversation, turn.additionalContexts);
    return outputs;
  }
  const contexts = [...conversation.takeHeldContexts(), ...turn.additionalContexts];
  return [...outputs, ...toOpenAIResponsesContextMessages({ additionalContexts: contexts })];
};

export type { RequestOptions } from './prompt-text.ts';
export type { ToolNameOptions, ToolNameSource } from './provider-tool-names.ts';
