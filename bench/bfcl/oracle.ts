// Scripted models that replay the ground truth through the same request/response loop a
// live model uses (Anthropic Messages shapes). native: one request per ground-truth call,
// then one for the turn's answer. ptc: one request whose run_code program makes the
// turn's calls in order with await, then one for the answer.
import { type AssistantBlock, type ModelReply, type ModelRequest, TOOL_SEARCH, type TurnModel } from './model.ts';
import type { PyValue } from './py-value.ts';

export interface BoundCall {
  readonly name: string;
  readonly args: Readonly<Record<string, PyValue>>;
}

const ANSWER = 'Done.';

export class NativeOracle implements TurnModel {
  private calls: readonly BoundCall[] = [];
  private next = 0;
  private ids = 0;

  startTurn(calls: readonly BoundCall[]): void {
    this.calls = calls;
    this.next = 0;
  }

  async respond(_request: ModelRequest): Promise<ModelReply> {
    const call = this.calls[this.next++];
    if (call === undefined) return { content: [{ type: 'text', text: ANSWER }] };
    return { content: [{ type: 'tool_use', id: `toolu_${++this.ids}`, name: call.name, input: call.args }] };
  }
}

/** The scalar values in a call's arguments (strings and numbers, nested lists and dicts included). */
function scalars(value: unknown): (string | number)[] {
  if (typeof value === 'string' || typeof value === 'number') return [value];
  if (Array.isArray(value)) return value.flatMap(scalars);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(scalars);
  return [];
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether `text` holds `value` as a value: a number not inside a longer one (`10000` matches `10000.0`). */
function holds(text: string, value: string | number): boolean {
  if (typeof value === 'string') return value !== '' && text.includes(value);
  return new RegExp(`(?<![\\d.])${escape(String(value))}(?:\\.0+)?(?![\\d.])`).test(text);
}

/** Everything the model has read so far: the user's messages and the tool results. */
function conversationText(request: ModelRequest): string {
  const parts: string[] = [];
  for (const message of request.messages) {
    if (message.role !== 'user') continue;
    if (typeof message.content === 'string') parts.push(message.content);
    else
      for (const block of message.content)
        if (block.type === 'tool_result') for (const c of block.content) if (c.type === 'text') parts.push(c.text);
  }
  return parts.join('\n');
}

/**
 * Native tool calling with parallel calls, as every provider allows: the turn's calls go
 * out together, in order (the runtime runs these exclusive tools one after another in the
 * order written), except a call that needs a value it has not read yet: an argument that
 * first appears in the result of a call of the same request (a user id looked up, a price
 * read) waits for the next request, when that result is in the conversation.
 */
export class ParallelNativeOracle implements TurnModel {
  private calls: readonly BoundCall[] = [];
  private results: readonly string[] = [];
  private next = 0;
  private ids = 0;

  startTurn(calls: readonly BoundCall[], results: readonly string[] = []): void {
    this.calls = calls;
    this.results = results;
    this.next = 0;
  }

  async respond(request: ModelRequest): Promise<ModelReply> {
    if (this.next >= this.calls.length) return { content: [{ type: 'text', text: ANSWER }] };
    const known = conversationText(request);
    const start = this.next;
    let end = start + 1;
    for (; end < this.calls.length; end++) {
      const pending = this.results.slice(start, end);
      const needs = scalars(this.calls[end]?.args).some(
        (value) => !holds(known, value) && pending.some((result) => holds(result, value)),
      );
      if (needs) break;
    }
    this.next = end;
    return {
      content: this.calls.slice(start, end).map((call) => ({
        type: 'tool_use' as const,
        id: `toolu_${++this.ids}`,
        name: call.name,
        input: call.args,
      })),
    };
  }
}

/** The program a model would write for a turn: each call awaited in order, every result returned. */
export function turnProgram(calls: readonly BoundCall[]): string {
  const lines = calls.map((c, i) => `const r${i} = await tools.${c.name}(${JSON.stringify(c.args)});`);
  return [...lines, `return [${calls.map((_, i) => `r${i}`).join(', ')}];`].join('\n');
}

export class PtcOracle implements TurnModel {
  private calls: readonly BoundCall[] = [];
  private sent = false;
  private ids = 0;

  startTurn(calls: readonly BoundCall[]): void {
    this.calls = calls;
    this.sent = false;
  }

  async respond(_request: ModelRequest): Promise<ModelReply> {
    if (this.sent || this.calls.length === 0) return { content: [{ type: 'text', text: ANSWER }] };
    this.sent = true;
    return {
      content: [
        {
          type: 'tool_use',
          id: `toolu_${++this.ids}`,
          name: 'run_code',
          input: { description: 'Carry out the request', code: turnProgram(this.calls) },
        },
      ],
    };
  }
}

/**
 * run_code over deferred tools: the SDK lists names and summaries only, so before a turn
 * that needs tools it has not read yet, the model prints their signatures with
 * `$describe` (one request), then writes the turn's program from them (another).
 */
export class DeferredPtcOracle implements TurnModel {
  private calls: readonly BoundCall[] = [];
  private step = 0;
  private ids = 0;
  private readonly described = new Set<string>();

  startTurn(calls: readonly BoundCall[]): void {
    this.calls = calls;
    this.step = 0;
  }

  async respond(_request: ModelRequest): Promise<ModelReply> {
    const fresh = [...new Set(this.calls.map((c) => c.name))].filter((n) => !this.described.has(n));
    const runCode = (description: string, code: string): ModelReply => ({
      content: [{ type: 'tool_use', id: `toolu_${++this.ids}`, name: 'run_code', input: { description, code } }],
    });
    if (this.calls.length === 0 || this.step >= 2) return { content: [{ type: 'text', text: ANSWER }] };
    if (this.step === 0 && fresh.length > 0) {
      this.step = 1;
      for (const n of fresh) this.described.add(n);
      return runCode(
        'Read the signatures of the tools this needs',
        fresh.map((n) => `console.log(await tools.$describe({ name: ${JSON.stringify(n)} }));`).join('\n'),
      );
    }
    this.step = 2;
    return runCode('Carry out the request', turnProgram(this.calls));
  }
}

/**
 * Native tool calling over `defer_loading` tools, as a provider's tool search serves them:
 * the request carries the search tool, not the definitions; before it first calls a tool,
 * the model searches for it (here by its exact name, the best a model can do) and the
 * provider loads the definitions it finds into the context, within the same response.
 * Calls go out together as with nativeParallel.
 */
export class DeferredNativeOracle implements TurnModel {
  private readonly parallel = new ParallelNativeOracle();
  private readonly loaded = new Set<string>();
  private searches = 0;

  startTurn(calls: readonly BoundCall[], results: readonly string[] = []): void {
    this.parallel.startTurn(calls, results);
  }

  async respond(request: ModelRequest): Promise<ModelReply> {
    const reply = await this.parallel.respond(request);
    const fresh = [
      ...new Set(reply.content.flatMap((block) => (block.type === 'tool_use' ? [block.name] : []))),
    ].filter((name) => !this.loaded.has(name));
    if (fresh.length === 0) return reply;
    for (const name of fresh) this.loaded.add(name);
    const id = `srvtoolu_${++this.searches}`;
    const search: AssistantBlock[] = [
      {
        type: 'server_tool_use',
        id,
        name: TOOL_SEARCH.name,
        input: { query: `^(${fresh.map(escape).join('|')})$` },
      },
      {
        type: 'tool_search_tool_result',
        tool_use_id: id,
        content: {
          type: 'tool_search_tool_search_result',
          tool_references: fresh.map((name) => ({ type: 'tool_reference' as const, tool_name: name })),
        },
      },
    ];
    return { content: [...search, ...reply.content] };
  }
}
