// The real `openai` client (Chat Completions and Responses) against a local mock of
// the API that checks every request the way OpenAI documents (function names
// `^[a-zA-Z0-9_-]{1,64}$`, no empty tools list, every tool call answered by its
// tool message / function_call_output, no empty text) and answers 400 otherwise. The
// adapters are used with the client's own types: response.output and
// message.tool_calls go in as they are.
import { afterAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { createSandbox } from '../../sandbox/index.ts';
import {
  fromOpenAIChatToolCalls,
  fromOpenAIResponsesCalls,
  toOpenAIChatMessages,
  toOpenAIChatRequest,
  toOpenAIResponsesInput,
  toOpenAIResponsesRequest,
} from '../../src/adapters/openai.ts';
import { createToolRuntime, type ToolRuntime } from '../../src/index.ts';
import {
  asArray,
  isObject,
  startMockProvider,
  type JsonObject,
  type MockProvider,
  type Reply,
} from './support/mock-provider.ts';
import { openAIResponse } from './support/openai-responses.ts';
import { openAIChatProblems, openAIResponsesProblems } from './support/provider-rules.ts';
import { registerTickets } from './support/ticket-tools.ts';

const sandbox = createSandbox();
const open: MockProvider[] = [];
afterAll(async () => {
  for (const provider of open) await provider.close();
  await sandbox.close();
});

async function mock(chat: Reply[], responses: Reply[] = []): Promise<{ provider: MockProvider; client: OpenAI }> {
  const provider = await startMockProvider({
    routes: {
      '/v1/chat/completions': { validate: openAIChatProblems, replies: chat },
      '/v1/responses': { validate: openAIResponsesProblems, replies: responses },
    },
    errorBody: (message) => ({ error: { message, type: 'invalid_request_error', param: null, code: null } }),
  });
  open.push(provider);
  return { provider, client: new OpenAI({ apiKey: 'test-key', baseURL: `${provider.url}/v1`, maxRetries: 0 }) };
}

const completion = (message: JsonObject): JsonObject => ({
  id: 'chatcmpl-test',
  object: 'chat.completion',
  created: 0,
  model: 'gpt-test',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: null, refusal: null, ...message },
      finish_reason: message['tool_calls'] === undefined ? 'stop' : 'tool_calls',
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});
const chatCall = (id: string, name: string, args: string): JsonObject => ({
  id,
  type: 'function',
  function: { name, arguments: args },
});

const functionCall = (callId: string, name: string, args: string): JsonObject => ({
  type: 'function_call',
  id: `fc_${callId}`,
  call_id: callId,
  name,
  arguments: args,
  status: 'completed',
});
const outputText = (text: string): JsonObject => ({
  type: 'message',
  id: 'msg_test',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text, annotations: [] }],
});

/** What the tool message / function_call_output for `id` said, in a request body. */
function answerTo(body: JsonObject, id: string): string {
  for (const item of [...asArray(body['messages']), ...asArray(body['input'])]) {
    if (isObject(item) && item['role'] === 'tool' && item['tool_call_id'] === id) return String(item['content']);
    if (isObject(item) && item['type'] === 'function_call_output' && item['call_id'] === id)
      return String(item['output']);
  }
  throw new Error(`no answer to ${id}`);
}

/** A Chat Completions loop as an app writes it with the openai client and the adapter. */
async function chatLoop(client: OpenAI, rt: ToolRuntime, question: string): Promise<string> {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: question }];
  for (let step = 0; step < 5; step++) {
    const reply = await client.chat.completions.create({ model: 'gpt-test', ...toOpenAIChatRequest(rt, messages) });
    const message = reply.choices[0]!.message;
    const calls = fromOpenAIChatToolCalls(message.tool_calls, rt); // as the README writes it: absent on a text answer
    if (calls.length === 0) return message.content ?? '';
    messages.push({ role: 'assistant', content: message.content, tool_calls: message.tool_calls ?? [] });
    messages.push(...toOpenAIChatMessages(await rt.executeTurn(calls)));
  }
  throw new Error('no answer');
}

describe('openai client, Chat Completions', () => {
  it('the mock refuses what the real API refuses: a dotted function name, an empty tools list, an unanswered tool call', async () => {
    const { provider, client } = await mock([]);
    await expect(
      client.chat.completions.create({
        model: 'gpt-test',
        tools: [{ type: 'function', function: { name: 'tickets.count', parameters: { type: 'object' } } }],
        messages: [
          { role: 'user', content: 'hi' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_x', type: 'function', function: { name: 'x', arguments: '{}' } }],
          },
        ],
      }),
    ).rejects.toThrow(/^400 /u);
    await expect(
      client.chat.completions.create({ model: 'gpt-test', tools: [], messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toThrow(/too short/u);
    expect(provider.requests[0]!.problems).toEqual([
      expect.stringContaining("Invalid 'tools[0].name'"),
      'tool_call_ids did not have response messages: call_x',
    ]);
  });

  it('ptc: run_code carries the SDK, the program runs, an empty result reads "(no output)"', async () => {
    const rt = registerTickets(createToolRuntime({ mode: 'ptc', sandbox }));
    const count = JSON.stringify({
      description: 'Count closed tickets',
      code: 'return await tools["tickets.count"]({ status: "closed" });',
    });
    const silent = JSON.stringify({ description: 'Print nothing', code: 'console.log("");' });
    const { provider, client } = await mock([
      completion({ tool_calls: [chatCall('call_1', 'run_code', count), chatCall('call_2', 'run_code', silent)] }),
      (body) => completion({ content: `${answerTo(body, 'call_1')} closed; ${answerTo(body, 'call_2')}` }),
    ]);
    expect(await chatLoop(client, rt, 'How many closed tickets?')).toBe('5 closed; (no output)');
    expect(provider.requests.map((r) => r.problems)).toEqual([[], []]);
    const tools = asArray(provider.requests[0]!.body['tools']);
    expect(tools.map((t) => (isObject(t) && isObject(t['function']) ? t['function']['name'] : null))).toEqual([
      'run_code',
    ]);
    const description =
      isObject(tools[0]) && isObject(tools[0]['function']) ? String(tools[0]['function']['description']) : '';
    expect(description).toContain(rt.sdk());
    await rt.close();
  });

  it('native: a dotted name round-trips through its alias; malformed JSON arguments are refused saying so', async () => {
    const rt = registerTickets(createToolRuntime({ sandbox: false }));
    const { provider, client } = await mock([
      completion({
        tool_calls: [
          chatCall('call_a', 'tickets_count', '{"status":"open"}'),
          chatCall('call_b', 'tickets_count', '{"status": "open"'),
        ],
      }),
      (body) => completion({ content: `${answerTo(body, 'call_a')} | ${answerTo(body, 'call_b')}` }),
    ]);
    const answer = await chatLoop(client, rt, 'Count open tickets.');
    expect(answer).toMatch(
      /^3 open tickets \| Error: invalid arguments for tool "tickets\.count": arguments: malformed JSON \(.+\); the text began "\{\\"status\\": \\"open\\"". Send the arguments as one JSON object$/u,
    );
    expect(provider.requests.map((r) => r.problems)).toEqual([[], []]);
    const names = asArray(provider.requests[0]!.body['tools']).map((t) =>
      isObject(t) && isObject(t['function']) ? t['function']['name'] : null,
    );
    expect(names).toEqual(['notes_clear', 'tickets_count']);
  });
});

describe('openai client, Responses', () => {
  /** A Responses loop as an app writes it: output items go back into the input as they are. */
  async function responsesLoop(client: OpenAI, rt: ToolRuntime, question: string): Promise<string> {
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: question }];
    for (let step = 0; step < 5; step++) {
      const reply = await client.responses.create({ model: 'gpt-test', input, ...toOpenAIResponsesRequest(rt) });
      // response.output typed by the client (call_id, name, arguments as it declares them) goes in unchanged.
      const calls = fromOpenAIResponsesCalls(reply.output, rt);
      if (calls.length === 0) return reply.output_text;
      input.push(
        ...(reply.output as OpenAI.Responses.ResponseInputItem[]),
        ...toOpenAIResponsesInput(await rt.executeTurn(calls)),
      );
    }
    throw new Error('no answer');
  }

  it('ptc: run_code carries the SDK; a dotted name in the program; an empty return reads "(no output)"', async () => {
    const rt = registerTickets(createToolRuntime({ mode: 'ptc', sandbox }));
    const { provider, client } = await mock(
      [],
      [
        openAIResponse([
          functionCall(
            'call_1',
            'run_code',
            JSON.stringify({
              description: 'Count open tickets',
              code: 'return await tools["tickets.count"]({ status: "open" });',
            }),
          ),
        ]),
        openAIResponse([
          functionCall(
            'call_2',
            'run_code',
            JSON.stringify({ description: 'Clear notes', code: 'return await tools["notes.clear"]({});' }),
          ),
        ]),
        (body) => openAIResponse([outputText(`${answerTo(body, 'call_1')} open; ${answerTo(body, 'call_2')}`)]),
      ],
    );
    expect(await responsesLoop(client, rt, 'How many open tickets?')).toBe('3 open; (no output)');
    expect(provider.requests.map((r) => r.problems)).toEqual([[], [], []]);
    const [tool] = asArray(provider.requests[0]!.body['tools']);
    expect(isObject(tool) ? [tool['name'], String(tool['description']).includes(rt.sdk())] : []).toEqual([
      'run_code',
      true,
    ]);
    expect(provider.requests[0]!.body['instructions']).toBeUndefined();
    await rt.close();
  });

  it('with embedSdkInDescription: false the SDK goes out as instructions; native calls by alias', async () => {
    const rt = registerTickets(createToolRuntime({ mode: 'both', sandbox, embedSdkInDescription: false }));
    const { provider, client } = await mock(
      [],
      [
        openAIResponse([functionCall('call_n', 'tickets_count', '{"status":"closed"}')]),
        (body) => openAIResponse([outputText(answerTo(body, 'call_n'))]),
      ],
    );
    expect(await responsesLoop(client, rt, 'Closed?')).toBe('5 closed tickets');
    expect(provider.requests.map((r) => r.problems)).toEqual([[], []]);
    expect(String(provider.requests[0]!.body['instructions'])).toContain(rt.sdk());
    await rt.close();
  });
});
