// The Anthropic Messages adapter: tools out, tool_use in, tool_result (with is_error)
// back — through a real runtime turn, and typed against @anthropic-ai/sdk's params.
import { describe, expect, it } from '@jest/globals';
import type Anthropic from '@anthropic-ai/sdk';
import {
  fromAnthropicToolUses,
  toAnthropicContent,
  toAnthropicRequest,
  toAnthropicToolResult,
  toAnthropicTools,
  toAnthropicUserMessage,
} from '../../src/adapters/anthropic.ts';
import { createToolRuntime, defineTool, type ToolResult } from '../../src/index.ts';

function runtime() {
  const rt = createToolRuntime({ sandbox: false });
  rt.register(
    defineTool({
      name: 'lookup',
      description: 'Looks a key up.',
      parameters: { key: { type: 'string', required: true, description: 'The key' } },
      output: { schema: { type: 'string' }, render: (args, v) => [{ type: 'text', text: `${args.key}=${v}` }] },
      execute: (args, exec) => {
        if (args.key === 'secret') throw new Error('not allowed');
        exec.deferContext({ role: 'user', content: [{ type: 'text', text: `looked up ${args.key}` }] });
        return args.key.toUpperCase();
      },
    }),
  );
  rt.register(
    defineTool({
      name: 'catalog',
      description: 'Big catalog.',
      parameters: {},
      deferLoading: true,
      output: { schema: { type: 'json' }, render: () => [] },
      execute: () => null,
    }),
  );
  return rt;
}

describe('Anthropic adapter', () => {
  it('tools out: name, description, input_schema (an object schema), defer_loading', () => {
    const rt = runtime();
    const tools = toAnthropicTools(rt.schemas());
    expect(tools).toEqual([
      {
        name: 'catalog',
        description: 'Big catalog.',
        input_schema: rt.tool('catalog')!.parameters,
        defer_loading: true,
      },
      { name: 'lookup', description: 'Looks a key up.', input_schema: rt.tool('lookup')!.parameters },
    ]);
    // Assignable to the SDK's request type.
    const typed: Anthropic.Messages.ToolUnion[] = tools;
    expect(typed).toHaveLength(2);
  });

  it('tool_use in → executeTurn → tool_results (is_error on failures) and contexts back, in model order', async () => {
    const rt = runtime();
    const assistant: Anthropic.Messages.ContentBlock[] = [
      { type: 'text', text: 'Let me look.', citations: null },
      { type: 'tool_use', id: 'tu_1', name: 'lookup', input: { key: 'a' }, caller: { type: 'direct' } },
      { type: 'tool_use', id: 'tu_2', name: 'lookup', input: { key: 'secret' }, caller: { type: 'direct' } },
      { type: 'tool_use', id: 'tu_3', name: 'lookup', input: { key: 'b' }, caller: { type: 'direct' } },
    ] as Anthropic.Messages.ContentBlock[];
    const calls = fromAnthropicToolUses(assistant);
    expect(calls).toEqual([
      { callId: 'tu_1', name: 'lookup', arguments: { key: 'a' } },
      { callId: 'tu_2', name: 'lookup', arguments: { key: 'secret' } },
      { callId: 'tu_3', name: 'lookup', arguments: { key: 'b' } },
    ]);
    const turn = await rt.executeTurn(calls);
    const message = toAnthropicUserMessage(turn);
    expect(message).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'tu_1', content: [{ type: 'text', text: 'a=A' }] },
        {
          type: 'tool_result',
          tool_use_id: 'tu_2',
          content: [{ type: 'text', text: 'Error: not allowed' }],
          is_error: true,
        },
        { type: 'tool_result', tool_use_id: 'tu_3', content: [{ type: 'text', text: 'b=B' }] },
        { type: 'text', text: 'looked up a' },
        { type: 'text', text: 'looked up b' },
      ],
    });
    const typed: Anthropic.Messages.MessageParam = message;
    expect(typed.role).toBe('user');
  });

  it('images: accepted types as base64 image blocks, others as a text marker', () => {
    expect(toAnthropicContent({ type: 'image', data: 'AAAA', mimeType: 'image/png' })).toEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: 'AAAA' },
    });
    expect(toAnthropicContent({ type: 'image', data: 'AAAA', mimeType: 'image/tiff' })).toEqual({
      type: 'text',
      text: '[image image/tiff: not a type the Messages API accepts]',
    });
    const result: ToolResult = {
      callId: 'x',
      name: 'x',
      isError: false,
      value: null,
      content: [{ type: 'image', data: 'AAAA', mimeType: 'image/webp' }],
    };
    const block: Anthropic.Messages.ToolResultBlockParam = toAnthropicToolResult(result);
    expect(block.is_error).toBeUndefined();
  });

  it('no empty text block: an empty or blank result reads "(no output)", empty context text is left out', () => {
    const empty = (content: ToolResult['content']): ToolResult => ({
      callId: 'e',
      name: 'e',
      isError: false,
      value: '',
      content,
    });
    for (const content of [[], [{ type: 'text' as const, text: '' }], [{ type: 'text' as const, text: ' \n ' }]]) {
      expect(toAnthropicToolResult(empty(content)).content).toEqual([{ type: 'text', text: '(no output)' }]);
    }
    expect(
      toAnthropicToolResult(
        empty([
          { type: 'text', text: '' },
          { type: 'text', text: 'kept' },
        ]),
      ).content,
    ).toEqual([{ type: 'text', text: 'kept' }]);
    const message = toAnthropicUserMessage({
      results: [empty([{ type: 'text', text: '' }])],
      additionalContexts: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '' },
            { type: 'text', text: 'note' },
          ],
        },
      ],
    });
    expect(message.content).toEqual([
      { type: 'tool_result', tool_use_id: 'e', content: [{ type: 'text', text: '(no output)' }] },
      { type: 'text', text: 'note' },
    ]);
  });

  it('toAnthropicRequest: the tools for the mode, and the prompt sections as system text only when the SDK is not embedded', () => {
    const embedded = runtime();
    expect(toAnthropicRequest(embedded)).toEqual({ tools: toAnthropicTools(embedded.schemas()) });
    expect(toAnthropicRequest(embedded, { system: 'Be brief.' }).system).toBe('Be brief.');
    const rt = createToolRuntime({ mode: 'ptc', embedSdkInDescription: false });
    rt.register(
      defineTool({
        name: 'x',
        description: 'X.',
        parameters: {},
        output: { schema: { type: 'json' }, render: () => [] },
        execute: () => 1,
      }),
    );
    const request = toAnthropicRequest(rt, { system: 'Be brief.' });
    expect(request.system).toBe(['Be brief.', ...rt.prompt().map((s) => s.text)].join('\n\n'));
    expect(request.system).toContain(rt.sdk());
    const typed: Pick<Anthropic.Messages.MessageCreateParams, 'tools' | 'system'> = request;
    expect(typed.tools).toHaveLength(1);
  });

  it('ptc mode: the list is run_code only, and a direct call comes back as an is_error result', async () => {
    const rt = createToolRuntime({ mode: 'ptc' });
    rt.register(
      defineTool({
        name: 'x',
        description: 'X.',
        parameters: {},
        output: { schema: { type: 'json' }, render: () => [] },
        execute: () => 1,
      }),
    );
    expect(toAnthropicTools(rt.schemas()).map((t) => t.name)).toEqual(['run_code']);
    const turn = await rt.executeTurn(
      fromAnthropicToolUses([{ type: 'tool_use', id: 't', name: 'x', input: {} } as Anthropic.Messages.ToolUseBlock]),
    );
    expect(toAnthropicToolResult(turn.results[0]!)).toEqual({
      type: 'tool_result',
      tool_use_id: 't',
      content: [{ type: 'text', text: expect.stringContaining('only run_code is callable directly') }],
      is_error: true,
    });
    await rt.close();
  });
});
