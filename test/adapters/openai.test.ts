// The OpenAI adapters (Chat Completions and Responses): tools out, tool calls in,
// results back — through a real runtime turn.
import { describe, expect, it } from '@jest/globals';
import {
  fromOpenAIChatToolCalls, fromOpenAIResponsesCalls, toOpenAIChatContextMessages, toOpenAIChatToolMessage, toOpenAIChatTools,
  toOpenAIResponsesContextMessages, toOpenAIResponsesOutput, toOpenAIResponsesTools,
} from '../../src/adapters/openai.ts';
import { createToolRuntime, defineTool } from '../../src/index.ts';

function runtime() {
  const rt = createToolRuntime({ sandbox: false });
  rt.register(defineTool({
    name: 'lookup',
    description: 'Looks a key up.',
    parameters: { key: { type: 'string', required: true } },
    output: { schema: { type: 'string' }, render: (args, v) => [{ type: 'text', text: `${args.key}=${v}` }] },
    execute: (args, exec) => {
      if (args.key === 'secret') throw new Error('not allowed');
      exec.deferContext({ role: 'user', content: [{ type: 'text', text: `saw ${args.key}` }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] });
      return args.key.toUpperCase();
    },
  }));
  return rt;
}

describe('OpenAI Chat Completions adapter', () => {
  it('tools out', () => {
    const rt = runtime();
    expect(toOpenAIChatTools(rt.schemas())).toEqual([
      { type: 'function', function: { name: 'lookup', description: 'Looks a key up.', parameters: rt.tool('lookup')!.parameters } },
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
      { role: 'tool', tool_call_id: 'call_3', content: expect.stringMatching(/^Error: .*invalid arguments/isu) },
    ]);
    expect(turn.results[2]!.error?.code).toBe('INVALID_ARGS');
    expect(toOpenAIChatContextMessages(turn)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'saw a' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
    ]);
  });
});

describe('OpenAI Responses adapter', () => {
  it('tools out (strict: false: our schemas keep optional properties)', () => {
    const rt = runtime();
    expect(toOpenAIResponsesTools(rt.schemas())).toEqual([
      { type: 'function', name: 'lookup', description: 'Looks a key up.', parameters: rt.tool('lookup')!.parameters, strict: false },
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
      { type: 'function_call_output', call_id: 'fc_2', output: expect.stringMatching(/^Error: .*unknown tool "nope"/u) },
    ]);
    expect(toOpenAIResponsesContextMessages(turn)).toEqual([
      { role: 'user', content: [{ type: 'input_text', text: 'saw b' }, { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' }] },
    ]);
  });
});
