// The real `@anthropic-ai/sdk` client against a local mock of the Messages API that
// checks every request the way the API documents (tool name pattern, non-empty text
// blocks, image types, each tool_use answered by a tool_result first in the next user
// message) and answers 400 otherwise. Driven through examples/agent-loop in ptc mode
// (the SDK reaches the model in run_code's description) and natively with a dotted
// tool name and an empty result.
import { afterAll, describe, expect, it } from '@jest/globals';
import Anthropic from '@anthropic-ai/sdk';
import { runAgentLoop } from '../../examples/agent-loop/agent-loop.ts';
import { anthropicModel } from '../../examples/agent-loop/anthropic-live.ts';
import { createSandbox } from '../../sandbox/index.ts';
import { fromAnthropicToolUses, toAnthropicRequest, toAnthropicUserMessage } from '../../src/adapters/anthropic.ts';
import { createToolRuntime } from '../../src/index.ts';
import {
  asArray,
  isObject,
  startMockProvider,
  type Json,
  type JsonObject,
  type MockProvider,
  type Reply,
} from './support/mock-provider.ts';
import { anthropicProblems } from './support/provider-rules.ts';
import { registerTickets } from './support/ticket-tools.ts';

const sandbox = createSandbox();
afterAll(() => sandbox.close());

const message = (content: JsonObject[], stop: 'tool_use' | 'end_turn'): JsonObject => ({
  id: 'msg_test',
  type: 'message',
  role: 'assistant',
  model: 'claude-test',
  content,
  stop_reason: stop,
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
});
const toolUse = (id: string, name: string, input: JsonObject): JsonObject => ({ type: 'tool_use', id, name, input });

/** The text of the tool_result answering `id` in the last message of a request. */
function toolResultText(request: JsonObject, id: string): string {
  const last = asArray(request['messages']).at(-1);
  const block = isObject(last)
    ? asArray(last['content']).find((b) => isObject(b) && b['type'] === 'tool_result' && b['tool_use_id'] === id)
    : undefined;
  if (!isObject(block)) throw new Error(`no tool_result for ${id}`);
  return asArray(block['content'])
    .map((c: Json) => (isObject(c) && typeof c['text'] === 'string' ? c['text'] : ''))
    .join('');
}

async function mock(replies: Reply[]): Promise<{ provider: MockProvider; client: Anthropic }> {
  const provider = await startMockProvider({
    routes: { '/v1/messages': { validate: anthropicProblems, replies } },
    errorBody: (text) => ({ type: 'error', error: { type: 'invalid_request_error', message: text } }),
  });
  return { provider, client: new Anthropic({ apiKey: 'test-key', baseURL: provider.url, maxRetries: 0 }) };
}

describe('Anthropic SDK client against a mock Messages API', () => {
  const open: MockProvider[] = [];
  afterAll(async () => {
    for (const provider of open) await provider.close();
  });

  it('the mock refuses what the real API refuses: a dotted tool name, an empty text block, an unanswered tool_use', async () => {
    const { provider, client } = await mock([]);
    open.push(provider);
    await expect(
      client.messages.create({
        model: 'claude-test',
        max_tokens: 10,
        tools: [{ name: 'tickets.count', input_schema: { type: 'object' } }],
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_1', name: 'x', input: {} }] },
          { role: 'user', content: [{ type: 'text', text: '' }] },
        ],
      }),
    ).rejects.toThrow(/^400 /u);
    const [refused] = provider.requests;
    expect(refused!.problems).toEqual([
      "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: tu_1',
      'messages.2.content.0: text content blocks must be non-empty',
    ]);
  });

  it('ptc through examples/agent-loop: run_code carries the SDK, the program runs, an empty result reads "(no output)"', async () => {
    const rt = registerTickets(createToolRuntime({ mode: 'ptc', sandbox }));
    const program = 'const open = await tools["tickets.count"]({ status: "open" });\nreturn `${open} open`;';
    const { provider, client } = await mock([
      message(
        [
          { type: 'text', text: 'Counting.' },
          toolUse('tu_1', 'run_code', { description: 'Count open tickets', code: program }),
        ],
        'tool_use',
      ),
      message(
        [
          toolUse('tu_2', 'run_code', {
            description: 'Clear notes',
            code: 'await tools["notes.clear"]({});\nconsole.log("");\nreturn "";',
          }),
        ],
        'tool_use',
      ),
      // The third request answers tu_2; the second one answered tu_1.
      (request) =>
        message(
          [
            {
              type: 'text',
              text: `Answer: ${toolResultText(request, 'tu_2')} / ${toolResultText(provider.requests[1]!.body, 'tu_1')}`,
            },
          ],
          'end_turn',
        ),
    ]);
    open.push(provider);
    const result = await runAgentLoop({
      rt,
      model: anthropicModel(client, 'claude-test'),
      question: 'How many open tickets?',
    });
    expect(provider.requests.map((r) => r.problems)).toEqual([[], [], []]);
    expect(result.stoppedBy).toBe('answer');
    expect(result.answer).toBe('Answer: (no output) / 3 open');
    const first = provider.requests[0]!.body;
    const tools = asArray(first['tools']) as JsonObject[];
    expect(tools.map((t) => t['name'])).toEqual(['run_code']);
    expect(String(tools[0]!['description'])).toContain(rt.sdk());
    expect(String(tools[0]!['description'])).toContain(' "tickets.count": Tool<');
    await rt.close();
  });

  it('native: a dotted tool name goes out as an alias and comes back as the registered tool; results pair with tool_use ids', async () => {
    const rt = registerTickets(createToolRuntime({ sandbox: false }));
    const { provider, client } = await mock([
      (request) => {
        const names = asArray(request['tools']).map((t) => (isObject(t) ? t['name'] : null));
        expect(names).toEqual(['notes_clear', 'tickets_count']);
        return message(
          [toolUse('tu_a', 'tickets_count', { status: 'closed' }), toolUse('tu_b', 'notes_clear', {})],
          'tool_use',
        );
      },
      (request) =>
        message(
          [{ type: 'text', text: `${toolResultText(request, 'tu_a')}; ${toolResultText(request, 'tu_b')}` }],
          'end_turn',
        ),
    ]);
    open.push(provider);
    const request = toAnthropicRequest(rt, { system: 'Use the tools.' });
    const messages: Anthropic.Messages.MessageParam[] = [
      { role: 'user', content: 'Count closed tickets, then clear notes.' },
    ];
    const first = await client.messages.create({ model: 'claude-test', max_tokens: 100, messages, ...request });
    const calls = fromAnthropicToolUses(first.content, rt);
    expect(calls.map((c) => c.name)).toEqual(['tickets.count', 'notes.clear']);
    const turn = await rt.executeTurn(calls);
    messages.push({ role: 'assistant', content: first.content }, toAnthropicUserMessage(turn));
    const second = await client.messages.create({ model: 'claude-test', max_tokens: 100, messages, ...request });
    expect(second.content).toEqual([expect.objectContaining({ type: 'text', text: '5 closed tickets; (no output)' })]);
    expect(provider.requests.map((r) => r.problems)).toEqual([[], []]);
  });
});
