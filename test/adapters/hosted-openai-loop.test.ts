// Hosted mode against OpenAI's programmatic tool calling (Responses API), with the real
// `openai` client and a local mock that emits the documented items: a `program` item
// (call_id, code, fingerprint), `function_call` items with `caller: { type: 'program',
// caller_id }`, and at the end the `program_output`. The mock also checks what the API
// requires of hosted requests (the programmatic_tool_calling tool, allowed_callers, each
// program-made call answered with its caller, the program item sent back) and answers
// 400 otherwise.
import { afterAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { runOpenAIHostedLoop } from '../../examples/hosted/openai-hosted-loop.ts';
import {
  fromOpenAIResponsesCalls,
  toOpenAIChatRequest,
  toOpenAIProgramOutput,
  toOpenAIResponsesRequest,
} from '../../src/adapters/openai.ts';
import { HOSTED_PROGRAM, replayJournal } from '../../src/index.ts';
import { asArray, isObject, startMockProvider, type JsonObject, type MockProvider } from './support/mock-provider.ts';
import { openAIResponse } from './support/openai-responses.ts';
import { openAIResponsesProblems } from './support/provider-rules.ts';
import { hostedRuntime, recordSpans, spanTree } from './support/hosted-tools.ts';

const spans = recordSpans();
const open: MockProvider[] = [];
afterAll(async () => {
  for (const provider of open) await provider.close();
  spans.stop();
});

const PROGRAM = 'call_program1';
const byProgram = { type: 'program', caller_id: PROGRAM };

const call = (callId: string, name: string, args: JsonObject, caller: JsonObject): JsonObject => ({
  type: 'function_call',
  id: `fc_${callId}`,
  call_id: callId,
  name,
  arguments: JSON.stringify(args),
  status: 'in_progress',
  caller,
});

/** The hosted-PTC rules, on top of the general Responses ones. */
function hostedProblems(body: JsonObject): string[] {
  const problems = openAIResponsesProblems(body);
  const tools = asArray(body['tools']).filter(isObject);
  if (!tools.some((t) => t['type'] === 'programmatic_tool_calling'))
    problems.push("tools: allowed_callers 'programmatic' needs the programmatic_tool_calling tool");
  const items = asArray(body['input']).filter(isObject);
  const programs = new Set(items.filter((i) => i['type'] === 'program').map((i) => String(i['call_id'])));
  const callers = new Map<string, string>();
  for (const i of items) {
    if (i['type'] === 'function_call' && isObject(i['caller']) && i['caller']['type'] === 'program') {
      const programId = String(i['caller']['caller_id']);
      callers.set(String(i['call_id']), programId);
      if (!programs.has(programId) && programId === PROGRAM)
        problems.push(`program item ${programId} missing from input`);
    }
    if (i['type'] === 'program' && typeof i['fingerprint'] !== 'string')
      problems.push('program: fingerprint is required');
  }
  for (const i of items) {
    if (i['type'] !== 'function_call_output') continue;
    const programId = callers.get(String(i['call_id']));
    const sent = isObject(i['caller']) ? i['caller']['caller_id'] : undefined;
    if (programId !== undefined && sent !== programId)
      problems.push(`function_call_output ${String(i['call_id'])}: caller must name program ${programId}`);
  }
  return problems;
}

/** What the function_call_output for `id` said, in a request body. */
function outputOf(body: JsonObject, id: string): string {
  const item = asArray(body['input']).find(
    (i) => isObject(i) && i['type'] === 'function_call_output' && i['call_id'] === id,
  );
  if (!isObject(item)) throw new Error(`no output for ${id}`);
  return String(item['output']);
}

describe('hosted mode: OpenAI programmatic tool calling, real openai client, mock Responses API', () => {
  it('requests carry programmatic_tool_calling, allowed_callers and output_schema, typed against the SDK', () => {
    const { rt } = hostedRuntime();
    const request = toOpenAIResponsesRequest(rt);
    expect(request.tools).toEqual([
      { type: 'programmatic_tool_calling' },
      expect.objectContaining({ name: 'ask_user', allowed_callers: ['direct'] }),
      expect.objectContaining({
        name: 'get_inventory',
        allowed_callers: ['programmatic'],
        output_schema: rt.tool('get_inventory')!.outputSchema,
      }),
      expect.objectContaining({ name: 'get_secret', allowed_callers: ['programmatic'] }),
    ]);
    expect(request.tools?.[3]).not.toHaveProperty('output_schema');
    // Assignable to the SDK's request params.
    const params: OpenAI.Responses.ResponseCreateParamsNonStreaming = { model: 'gpt-test', input: 'hi', ...request };
    const output: OpenAI.Responses.ResponseInputItem = toOpenAIProgramOutput(
      { callId: 'c1', name: 'get_inventory', isError: false, value: { sku: 'A1', units: 7 }, content: [] },
      PROGRAM,
    );
    expect(params.tools).toHaveLength(4);
    expect(output).toEqual({
      type: 'function_call_output',
      call_id: 'c1',
      output: '{"sku":"A1","units":7}',
      caller: { type: 'program', caller_id: PROGRAM },
    });
    // Chat Completions has no programmatic tool calling.
    expect(() => toOpenAIChatRequest(rt, [])).toThrow(/Responses API/);
  });

  it('reads a program-made call from the SDK-typed output as a nested call of its program', () => {
    const output: OpenAI.Responses.ResponseOutputItem[] = [
      { type: 'program', id: 'cm_1', call_id: PROGRAM, code: 'await tools.get_secret({})', fingerprint: 'fp' },
      {
        type: 'function_call',
        call_id: 'call_1',
        name: 'get_secret',
        arguments: '{}',
        caller: { type: 'program', caller_id: PROGRAM },
      },
    ];
    expect(fromOpenAIResponsesCalls(output)).toEqual([
      {
        callId: 'call_1',
        name: 'get_secret',
        arguments: {},
        caller: { type: 'program', programId: PROGRAM, provider: 'openai' },
      },
    ]);
  });

  it('a program calls two tools (one denied by policy), then a forged caller and a direct-only tool are refused', async () => {
    const provider = await startMockProvider({
      routes: {
        '/v1/responses': {
          validate: hostedProblems,
          replies: [
            openAIResponse([
              {
                type: 'program',
                id: 'cm_1',
                call_id: PROGRAM,
                code: 'const inv = await tools.get_inventory({sku: "A1"});\nconst s = await tools.get_secret({});',
                fingerprint: 'gAAAA-opaque',
              },
              call('call_inv', 'get_inventory', { sku: 'A1' }, byProgram),
              call('call_secret', 'get_secret', {}, byProgram),
            ]),
            openAIResponse([
              call(
                'call_forged',
                'get_inventory',
                { sku: 'B2' },
                { type: 'program', caller_id: 'call_forged_program' },
              ),
              call('call_ask', 'ask_user', { question: 'ok?' }, byProgram),
            ]),
            openAIResponse([
              { type: 'program_output', id: 'cmo_1', call_id: PROGRAM, result: 'A1: 7 units', status: 'completed' },
              {
                type: 'message',
                id: 'msg_1',
                role: 'assistant',
                status: 'completed',
                content: [{ type: 'output_text', text: 'A1 has 7 units in stock.', annotations: [] }],
              },
            ]),
          ],
        },
      },
      errorBody: (text) => ({ error: { message: text, type: 'invalid_request_error', param: null, code: null } }),
    });
    open.push(provider);
    const { rt, journal, seen } = hostedRuntime();
    spans.exporter.reset();
    const client = new OpenAI({ apiKey: 'test-key', baseURL: `${provider.url}/v1`, maxRetries: 0 });
    const outcome = await runOpenAIHostedLoop({ client, rt, model: 'gpt-test', question: 'Stock of A1?' });

    expect(provider.requests.map((r) => r.problems)).toEqual([[], [], []]);
    expect(outcome).toEqual({ answer: 'A1 has 7 units in stock.', steps: 3 });

    // Outputs in the provider's shape: JSON text (output_schema), the caller named; a denial is a JSON string.
    const second = provider.requests[1]!.body;
    expect(JSON.parse(outputOf(second, 'call_inv'))).toEqual({ sku: 'A1', units: 7 });
    expect(JSON.parse(outputOf(second, 'call_secret'))).toContain('programs may not read secrets');
    const third = provider.requests[2]!.body;
    expect(JSON.parse(outputOf(third, 'call_forged'))).toContain('never appeared in this conversation');
    expect(JSON.parse(outputOf(third, 'call_ask'))).toContain('may not be called from programs');

    const program = { type: 'program', programId: PROGRAM, provider: 'openai' };
    expect(seen).toEqual([
      { callId: PROGRAM, name: HOSTED_PROGRAM, caller: { type: 'direct' }, parentCallId: undefined },
      { callId: 'call_inv', name: 'get_inventory', caller: program, parentCallId: PROGRAM },
      { callId: 'call_secret', name: 'get_secret', caller: program, parentCallId: PROGRAM },
    ]);

    const replay = await replayJournal(journal, rt);
    const shape = (nodes: typeof replay.tree): unknown =>
      nodes.map((n) => ({ id: n.presentation.callId, children: shape(n.children) }));
    expect(shape(replay.tree)).toEqual([
      { id: 'call_forged', children: [] },
      { id: 'call_ask', children: [] },
      {
        id: PROGRAM,
        children: [
          { id: 'call_inv', children: [] },
          { id: 'call_secret', children: [] },
        ],
      },
    ]);
    expect(spanTree(spans.exporter.getFinishedSpans())).toEqual(
      expect.arrayContaining([
        `execute_tool ${HOSTED_PROGRAM} (${PROGRAM})`,
        '  execute_tool get_inventory (call_inv)',
        '  execute_tool get_secret (call_secret)',
      ]),
    );
    await rt.close();
  });
});
