// The OpenAI adapters (Chat Completions and Responses): tools out, tool calls in,
// results back — through a real runtime turn.
import { describe, expect, it } from '@jest/globals';
import {
  fromOpenAIChatToolCalls,
  fromOpenAIResponsesCalls,
  toOpenAIChatContextMessages,
  toOpenAIChatMessages,
  toOpenAIChatRequest,
  toOpenAIChatToolMessage,
  toOpenAIChatTools,
  toOpenAIResponsesContextMessages,
  toOpenAIResponsesInput,
  toOpenAIResponsesOutput,
  toOpenAIResponsesRequest,
  toOpenAIResponsesTools,
} from '../../src/adapters/openai.ts';
import { createToolRuntime, defineTool, type ToolResult } from '../../src/index.ts';

function runtime() {
  const rt = createToolRuntime({ sandbox: false });
  rt.register(
    defineTool({
      name: 'lookup',
      description: 'Looks a key up.',
      parameters: { key: { type: 'string', required: true } },
      output: { schema: { type: 'string' }, render: (args, v) => [{ type: 'text', text: `${args.key}=${v}` }] },
      execute: (args, exec) => {
        if (args.key === 'secret') throw new Error('not allowed');
        exec.deferContext({
          role: 'user',
          content: [
            { type: 'text', text: `saw ${args.key}` },
            { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          ],
        });
        return args.key.toUpperCase();
      },
    }),
  );
  return rt;
}

describe('OpenAI Chat Completions adapter', () => {
  it('tools out', () => {
    const rt = runtime();
    expect(toOpenAIChatTools(rt.schemas())).toEqual([
      {
        type: 'function',
        function: { name: 'lookup', description: 'Looks a key up.', parameters: rt.tool('lookup')!.parameters },
      },
    ]);
  });

  it('tool_calls in → turn → tool messages (failures read "Error: …") and context messages', async () => {
    const rt = runtime();
    const calls = fromOpenAIChatToolCalls([
      { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"key":"a"}' } },
      { id: 'call_2', type: 'function', function: { name: 'lookup', arguments: '{"key":"secret"}' } },
      { id: 'call_3', type: 'function', function: { name: 'lookup', arguments: '{"key": ' } }, // truncated JSON from the model
      { id: 'call_4', type: 'custom' },
    ]);
    expect(calls.map((c) => c.callId)).toEqual(['call_1', 'call_2', 'call_3']);
    const turn = await rt.executeTurn(calls);
    expect(turn.results.map(toOpenAIChatToolMessage)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: 'a=A' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Error: not allowed' },
      {
        role: 'tool',
        tool_call_id: 'call_3',
        content: expect.stringMatching(
          /^Error: invalid arguments for tool "lookup": arguments: malformed JSON \(.+\); the text began "\{\\"key\\": ". Send the arguments as one JSON object$/u,
        ),
      },
    ]);
    expect(turn.results[2]!.error?.code).toBe('INVALID_ARGS');
    expect(toOpenAIChatContextMessages(turn)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'saw a' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
    ]);
  });
});

describe('OpenAI Responses adapter', () => {
  it('tools out (strict: false: our schemas keep optional properties)', () => {
    const rt = runtime();
    expect(toOpenAIResponsesTools(rt.schemas())).toEqual([
      {
        type: 'function',
        name: 'lookup',
        description: 'Looks a key up.',
        parameters: rt.tool('lookup')!.parameters,
        strict: false,
      },
    ]);
  });

  it('function_call items in → turn → function_call_output items and input messages', async () => {
    const rt = runtime();
    const calls = fromOpenAIResponsesCalls([
      { type: 'reasoning' },
      { type: 'function_call', call_id: 'fc_1', name: 'lookup', arguments: '{"key":"b"}' },
      { type: 'message' },
      { type: 'function_call', call_id: 'fc_2', name: 'nope', arguments: '{}' },
    ]);
    expect(calls).toEqual([
      { callId: 'fc_1', name: 'lookup', arguments: { key: 'b' } },
      { callId: 'fc_2', name: 'nope', arguments: {} },
    ]);
    const turn = await rt.executeTurn(calls);
    expect(turn.results.map(toOpenAIResponsesOutput)).toEqual([
      { type: 'function_call_output', call_id: 'fc_1', output: 'b=B' },
      {
        type: 'function_call_output',
        call_id: 'fc_2',
        output: expect.stringMatching(/^Error: .*unknown tool "nope"/u),
      },
    ]);
    expect(toOpenAIResponsesContextMessages(turn)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'saw b' },
          { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' },
        ],
      },
    ]);
  });
});

describe('OpenAI adapters: provider rules', () => {
  const empty = (content: ToolResult['content']): ToolResult => ({
    callId: 'e',
    name: 'e',
    isError: false,
    value: '',
    content,
  });

  it('an empty or blank result reads "(no output)"; empty context text is left out; unsupported images become a marker', () => {
    for (const content of [[], [{ type: 'text' as const, text: '' }], [{ type: 'text' as const, text: '  ' }]]) {
      expect(toOpenAIChatToolMessage(empty(content)).content).toBe('(no output)');
      expect(toOpenAIResponsesOutput(empty(content)).output).toBe('(no output)');
    }
    const turn = {
      results: [empty([])],
      additionalContexts: [
        { role: 'user' as const, content: [{ type: 'text' as const, text: '' }] },
        { role: 'user' as const, content: [{ type: 'image' as const, data: 'AAAA', mimeType: 'image/tiff' }] },
      ],
    };
    expect(toOpenAIChatMessages(turn)).toEqual([
      { role: 'tool', tool_call_id: 'e', content: '(no output)' },
      { role: 'user', content: [{ type: 'text', text: '[image image/tiff: not a type the OpenAI API accepts]' }] },
    ]);
    expect(toOpenAIResponsesInput(turn)).toEqual([
      { type: 'function_call_output', call_id: 'e', output: '(no output)' },
      {
        role: 'user',
        content: [{ type: 'input_text', text: '[image image/tiff: not a type the OpenAI API accepts]' }],
      },
    ]);
  });

  it('the request builders leave out an empty tools list (the API refuses one) and add the prompt as system text', () => {
    const rt = createToolRuntime({ sandbox: false });
    expect(toOpenAIChatRequest(rt, [{ role: 'user', content: 'hi' }])).toEqual({
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(toOpenAIResponsesRequest(rt)).toEqual({});
    expect(toOpenAIResponsesRequest(rt, { system: 'Be brief.' })).toEqual({ instructions: 'Be brief.' });
    expect(toOpenAIChatRequest(rt, [], { system: 'Be brief.' }).messages).toEqual([
      { role: 'system', content: 'Be brief.' },
    ]);
  });

  it('a message without tool_calls (a text answer: the API leaves the field out) gives no calls', () => {
    expect(fromOpenAIChatToolCalls(undefined)).toEqual([]);
    expect(fromOpenAIChatToolCalls(null)).toEqual([]);
  });

  it('blank arguments are {}; a function_call without a string call_id is skipped', () => {
    expect(
      fromOpenAIChatToolCalls([{ id: 'c', type: 'function', function: { name: 'lookup', arguments: '' } }]),
    ).toEqual([{ callId: 'c', name: 'lookup', arguments: {} }]);
    expect(
      fromOpenAIResponsesCalls([{ type: 'function_call', call_id: null, name: 'lookup', arguments: '{}' }]),
    ).toEqual([]);
  });
});
