// A live model in the oracle's place (never run in CI): `--model anthropic:<id>` uses the
// Messages API (ANTHROPIC_API_KEY), `--model openai:<id>` the Chat Completions API
// (OPENAI_API_KEY). Requests and replies stay in the loop's Anthropic shapes.
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import type { AssistantBlock, ApiUsage, Message, ModelReply, ModelRequest, TurnModel } from './model.ts';

/** How a live model is asked. */
export interface LiveModelOptions {
  /**
   * Prompt caching: Anthropic marks the tools and the system text as a cache breakpoint
   * (`cache_control`); OpenAI caches long prompts by itself either way, and reports it.
   * @default true
   */
  readonly cache?: boolean;
  /**
   * With `cache`, also mark the last message of every request (Anthropic), so a long
   * conversation is read from the cache up to its previous request.
   * @default false
   */
  readonly cacheConversation?: boolean;
  /** The text put before the request's own system text. @default a one-line tool-operator instruction */
  readonly preamble?: string;
  /**
   * Whether the model may send several tool calls in one reply (Anthropic
   * `disable_parallel_tool_use`, OpenAI `parallel_tool_calls`). @default the provider's default (it may)
   */
  readonly parallelToolCalls?: boolean;
  /** Another endpoint than the provider's (a proxy, a local stand-in). @default the SDK's environment variables */
  readonly endpoint?: { readonly baseURL: string; readonly apiKey: string };
  /** Reply length limit. @default 4096 */
  readonly maxTokens?: number;
}

/** Usage fields summed over a model's requests. */
class UsageTally {
  private totals = { inputTokens: 0, promptTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  add(part: Partial<ApiUsage>): void {
    this.totals = {
      inputTokens: this.totals.inputTokens + (part.inputTokens ?? 0),
      promptTokens: this.totals.promptTokens + (part.promptTokens ?? 0),
      outputTokens: this.totals.outputTokens + (part.outputTokens ?? 0),
      cacheReadTokens: this.totals.cacheReadTokens + (part.cacheReadTokens ?? 0),
      cacheWriteTokens: this.totals.cacheWriteTokens + (part.cacheWriteTokens ?? 0),
    };
  }
  get(): ApiUsage {
    return this.totals;
  }
}

const SYSTEM =
  'You are an assistant operating tools for the user. Use the tools to carry out each request; when it is done, answer briefly.';

const systemText = (options: LiveModelOptions, request: ModelRequest): string =>
  [options.preamble ?? SYSTEM, request.system].filter(Boolean).join('\n\n');

type CacheMark = { readonly cache_control: Anthropic.CacheControlEphemeral };
const CACHED: CacheMark = { cache_control: { type: 'ephemeral' } };

/** Our conversation as Messages API params; with `cacheLast`, its last block marked as a cache breakpoint. */
export function toAnthropicMessages(messages: readonly Message[], cacheLast: boolean): Anthropic.MessageParam[] {
  const out = messages.map(
    // Our blocks are the Messages API's own shapes (tool_result, text, tool_use, tool search).
    (m): Anthropic.MessageParam =>
      m.role === 'user'
        ? { role: 'user', content: m.content as Anthropic.ContentBlockParam[] | string }
        : { role: 'assistant', content: m.content as Anthropic.ContentBlockParam[] },
  );
  const last = out.at(-1);
  if (!cacheLast || last === undefined) return out;
  const blocks = typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : [...last.content];
  const end = blocks.at(-1);
  if (end !== undefined && (end.type === 'text' || end.type === 'tool_result' || end.type === 'tool_use'))
    blocks[blocks.length - 1] = { ...end, ...CACHED };
  out[out.length - 1] = { ...last, content: blocks } as Anthropic.MessageParam;
  return out;
}

class AnthropicModel implements TurnModel {
  private readonly model: string;
  private readonly options: LiveModelOptions;
  private readonly tally = new UsageTally();
  private client: Anthropic | undefined;
  constructor(model: string, options: LiveModelOptions) {
    this.model = model;
    this.options = options;
  }
  startTurn(): void {}
  usage(): ApiUsage {
    return this.tally.get();
  }
  async respond(request: ModelRequest): Promise<ModelReply> {
    const { default: Client } = await import('@anthropic-ai/sdk');
    const { endpoint } = this.options;
    this.client ??= new Client(endpoint === undefined ? {} : { ...endpoint, maxRetries: 0 });
    const cache = this.options.cache ?? true;
    const text = systemText(this.options, request);
    // Our tool definitions are the Messages API's own shapes.
    const tools = (request.tools as readonly Anthropic.ToolUnion[]).map((tool, i) =>
      cache && i === request.tools.length - 1 ? { ...tool, ...CACHED } : tool,
    );
    const { parallelToolCalls } = this.options;
    const params: Anthropic.MessageCreateParamsNonStreaming = {
      model: this.model,
      max_tokens: this.options.maxTokens ?? 4096,
      ...(text === '' ? {} : { system: [{ type: 'text', text, ...(cache ? CACHED : {}) }] }),
      ...(tools.length === 0 ? {} : { tools }),
      ...(tools.length === 0 || parallelToolCalls === undefined
        ? {}
        : { tool_choice: { type: 'auto', disable_parallel_tool_use: !parallelToolCalls } }),
      messages: toAnthropicMessages(request.messages, cache && this.options.cacheConversation === true),
    };
    const reply = await this.client.messages.create(params);
    const read = reply.usage.cache_read_input_tokens ?? 0;
    const written = reply.usage.cache_creation_input_tokens ?? 0;
    this.tally.add({
      inputTokens: reply.usage.input_tokens,
      // Anthropic's input_tokens leaves out what was read from or written to the cache.
      promptTokens: reply.usage.input_tokens + read + written,
      outputTokens: reply.usage.output_tokens,
      cacheReadTokens: read,
      cacheWriteTokens: written,
    });
    const content: AssistantBlock[] = [];
    for (const b of reply.content) {
      if (b.type === 'text') content.push({ type: 'text', text: b.text });
      else if (b.type === 'tool_use') content.push({ type: 'tool_use', id: b.id, name: b.name, input: b.input });
    }
    return { content };
  }
}

/** The Anthropic-shaped conversation as Chat Completions messages. */
export function toChat(request: ModelRequest, preamble: string = SYSTEM): OpenAI.ChatCompletionMessageParam[] {
  const system = [preamble, request.system].filter(Boolean).join('\n\n');
  const out: OpenAI.ChatCompletionMessageParam[] = system === '' ? [] : [{ role: 'system', content: system }];
  for (const m of request.messages) {
    if (m.role === 'assistant') {
      const text = m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
      const calls = m.content.flatMap((b) =>
        b.type === 'tool_use'
          ? [{ id: b.id, type: 'function' as const, function: { name: b.name, arguments: JSON.stringify(b.input) } }]
          : [],
      );
      out.push({
        role: 'assistant',
        content: text === '' ? null : text,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
    } else if (typeof m.content === 'string') out.push({ role: 'user', content: m.content });
    else
      for (const b of m.content) {
        if (b.type === 'tool_result')
          out.push({
            role: 'tool',
            tool_call_id: b.tool_use_id,
            content: b.content.map((c) => (c.type === 'text' ? c.text : '[image]')).join('\n'),
          });
        else if (b.type === 'text') out.push({ role: 'user', content: b.text });
      }
  }
  return out;
}

class OpenAIModel implements TurnModel {
  private readonly model: string;
  private readonly options: LiveModelOptions;
  private readonly tally = new UsageTally();
  private client: OpenAI | undefined;
  constructor(model: string, options: LiveModelOptions) {
    this.model = model;
    this.options = options;
  }
  startTurn(): void {}
  usage(): ApiUsage {
    return this.tally.get();
  }
  async respond(request: ModelRequest): Promise<ModelReply> {
    const { default: Client } = await import('openai');
    const { endpoint, parallelToolCalls } = this.options;
    this.client ??= new Client(endpoint === undefined ? {} : { ...endpoint, maxRetries: 0 });
    // Function tools only (a hosted-mode code execution entry has no Chat Completions form).
    const tools = request.tools.flatMap((t): OpenAI.ChatCompletionFunctionTool[] =>
      'input_schema' in t
        ? [{ type: 'function', function: { name: t.name, description: t.description, parameters: t.input_schema } }]
        : [],
    );
    const reply = await this.client.chat.completions.create({
      model: this.model,
      messages: toChat(request, this.options.preamble ?? SYSTEM),
      ...(tools.length === 0 ? {} : { tools }),
      ...(tools.length === 0 || parallelToolCalls === undefined ? {} : { parallel_tool_calls: parallelToolCalls }),
      ...(this.options.maxTokens === undefined ? {} : { max_completion_tokens: this.options.maxTokens }),
    });
    this.tally.add({
      inputTokens: reply.usage?.prompt_tokens ?? 0,
      // OpenAI's prompt_tokens includes the cached part.
      promptTokens: reply.usage?.prompt_tokens ?? 0,
      outputTokens: reply.usage?.completion_tokens ?? 0,
      cacheReadTokens: reply.usage?.prompt_tokens_details?.cached_tokens ?? 0,
    });
    const message = reply.choices[0]?.message;
    const content: AssistantBlock[] = [];
    if (message?.content) content.push({ type: 'text', text: message.content });
    for (const c of message?.tool_calls ?? [])
      if (c.type === 'function') {
        let input: unknown = {};
        try {
          input = JSON.parse(c.function.arguments);
        } catch {
          input = {};
        }
        content.push({ type: 'tool_use', id: c.id, name: c.function.name, input });
      }
    return { content };
  }
}

/** `anthropic:<model id>` or `openai:<model id>`. */
export function liveModel(spec: string, options: LiveModelOptions = {}): TurnModel {
  const at = spec.indexOf(':');
  const provider = spec.slice(0, at);
  const id = spec.slice(at + 1);
  if (at < 0 || id === '') throw new Error(`--model wants anthropic:<id> or openai:<id>, got ${spec}`);
  if (provider === 'anthropic') return new AnthropicModel(id, options);
  if (provider === 'openai') return new OpenAIModel(id, options);
  throw new Error(`unknown provider ${provider} (anthropic or openai)`);
}
