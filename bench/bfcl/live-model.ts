// A live model in the oracle's place (never run in CI): `--model anthropic:<id>` uses the
// Messages API (ANTHROPIC_API_KEY), `--model openai:<id>` the Chat Completions API
// (OPENAI_API_KEY). Requests and replies stay in the loop's Anthropic shapes.
import type { AssistantBlock, ApiUsage, ModelReply, ModelRequest, TurnModel } from './model.ts';

/** How a live model is asked. */
export interface LiveModelOptions {
  /**
   * Prompt caching: Anthropic marks the tools and the system text as a cache breakpoint
   * (`cache_control`); OpenAI caches long prompts by itself either way, and reports it.
   * @default true
   */
  readonly cache?: boolean;
}

/** Usage fields summed over a model's requests. */
class UsageTally {
  private totals = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  add(part: Partial<ApiUsage>): void {
    this.totals = {
      inputTokens: this.totals.inputTokens + (part.inputTokens ?? 0),
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

class AnthropicModel implements TurnModel {
  private readonly model: string;
  private readonly cache: boolean;
  private readonly tally = new UsageTally();
  constructor(model: string, options: LiveModelOptions) {
    this.model = model;
    this.cache = options.cache ?? true;
  }
  startTurn(): void {}
  usage(): ApiUsage {
    return this.tally.get();
  }
  async respond(request: ModelRequest): Promise<ModelReply> {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    const client = new Anthropic();
    const text = [SYSTEM, request.system].filter(Boolean).join('\n\n');
    const cached = { cache_control: { type: 'ephemeral' as const } };
    const tools = request.tools.map((tool, i) =>
      this.cache && i === request.tools.length - 1 ? { ...tool, ...cached } : tool,
    );
    const reply = await client.messages.create({
      model: this.model,
      max_tokens: 4096,
      system: [{ type: 'text', text, ...(this.cache ? cached : {}) }],
      tools: tools as never,
      messages: request.messages as never,
    });
    this.tally.add({
      inputTokens: reply.usage.input_tokens,
      outputTokens: reply.usage.output_tokens,
      cacheReadTokens: reply.usage.cache_read_input_tokens ?? 0,
      cacheWriteTokens: reply.usage.cache_creation_input_tokens ?? 0,
    });
    const content: AssistantBlock[] = [];
    for (const b of reply.content) {
      if (b.type === 'text') content.push({ type: 'text', text: b.text });
      else if (b.type === 'tool_use') content.push({ type: 'tool_use', id: b.id, name: b.name, input: b.input });
    }
    return { content };
  }
}

type ChatMessage = Record<string, unknown>;

/** The Anthropic-shaped conversation as Chat Completions messages. */
export function toChat(request: ModelRequest): ChatMessage[] {
  const out: ChatMessage[] = [{ role: 'system', content: [SYSTEM, request.system].filter(Boolean).join('\n\n') }];
  for (const m of request.messages) {
    if (m.role === 'assistant') {
      const text = m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
      const calls = m.content.flatMap((b) =>
        b.type === 'tool_use'
          ? [{ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input) } }]
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
  private readonly tally = new UsageTally();
  constructor(model: string) {
    this.model = model;
  }
  startTurn(): void {}
  usage(): ApiUsage {
    return this.tally.get();
  }
  async respond(request: ModelRequest): Promise<ModelReply> {
    const { default: OpenAI } = await import('openai');
    const client = new OpenAI();
    const reply = await client.chat.completions.create({
      model: this.model,
      messages: toChat(request) as never,
      // Function tools only (a hosted-mode code execution entry has no Chat Completions form).
      tools: request.tools.flatMap((t) =>
        'input_schema' in t
          ? [
              {
                type: 'function' as const,
                function: { name: t.name, description: t.description, parameters: t.input_schema },
              },
            ]
          : [],
      ),
    });
    this.tally.add({
      inputTokens: reply.usage?.prompt_tokens ?? 0,
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
  if (provider === 'openai') return new OpenAIModel(id);
  throw new Error(`unknown provider ${provider} (anthropic or openai)`);
}
