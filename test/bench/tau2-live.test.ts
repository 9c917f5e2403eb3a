// The τ²-bench retail live-model protocol end to end, with no network: the real
// `@anthropic-ai/sdk` and `openai` clients talk HTTP to a local stand-in of each provider
// (127.0.0.1) that checks every request as the API documents and answers as the agent
// with the scripted oracle's decisions, and as the simulated customer with the scripted
// customer's lines. What is proven: the requests each mode sends (parallel calls off for
// native, on for nativeParallel, run_code alone for ptc; cache marks on or off; the
// customer's prompt and its side of the conversation), the usage fields summed per mode
// apart from the customer's, and the final database graded against the gold one.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { END_TOKENS, GREETING } from '../../bench/tau2/customer-simulator.ts';
import { AGENT_PREAMBLE, LIVE_LIMITS, liveTaskModel, type LiveSpec } from '../../bench/tau2/live-model.ts';
import { liveMarkdownReport } from '../../bench/tau2/live-report.ts';
import type { AssistantBlock, Message, ModelRequest, TaskModel } from '../../bench/tau2/model.ts';
import { openingMessage } from '../../bench/tau2/plan.ts';
import type { Mode } from '../../bench/tau2/report.ts';
import { loadData, oracle, runBenchmark, type Tau2Data } from '../../bench/tau2/run-bench.ts';
import { loadTasks, type RetailTask } from '../../bench/tau2/tasks.ts';
import {
  asArray,
  isObject,
  type JsonObject,
  type MockProvider,
  startMockProvider,
} from '../adapters/support/mock-provider.ts';
import { anthropicProblems, openAIChatProblems } from '../adapters/support/provider-rules.ts';

const DATA = fileURLToPath(new URL('./fixtures/tau2-retail', import.meta.url));
let data: Tau2Data;
let task: RetailTask;
beforeAll(() => {
  data = loadData(DATA);
  const found = loadTasks(DATA).find((t) => t.id === '0'); // an exchange of two items in a delivered order
  if (found === undefined) throw new Error('no task 0 in the fixture');
  task = found;
});

const AGENT_USAGE = {
  input_tokens: 11,
  output_tokens: 5,
  cache_read_input_tokens: 100,
  cache_creation_input_tokens: 20,
};
const CUSTOMER_USAGE = { input_tokens: 7, output_tokens: 3 };

/** Who answers the stand-in's requests: the scripted oracle of the task run under way, and how the customer behaves. */
class Script {
  mode: Mode = 'native';
  oracle: TaskModel | undefined;
  /** The customer ends the conversation at its first chance instead of confirming. */
  hangUp = false;
  readonly log: { mode: Mode; who: 'agent' | 'customer'; body: JsonObject }[] = [];

  spec(provider: MockProvider, model: string, cache: boolean): (mode: Mode, t: RetailTask) => TaskModel {
    // The OpenAI client's base URL carries the API version; the Anthropic client adds it itself.
    const baseURL = model.startsWith('openai:') ? `${provider.url}/v1` : provider.url;
    const live: LiveSpec = { model, cache, endpoint: { baseURL, apiKey: 'test-key' } };
    return (mode, t) => {
      this.mode = mode;
      this.oracle = oracle(mode, t, data);
      return liveTaskModel(live, mode, t);
    };
  }

  /** The customer's next line: the scenario's request first, then "yes" to each confirmation, then the end. */
  customerLine(turn: number): string {
    if (turn === 0) return openingMessage(task);
    if (this.hangUp) return END_TOKENS[0];
    return (this.oracle?.customerReply('') as string | undefined) ?? END_TOKENS[0];
  }

  async agentReply(request: ModelRequest): Promise<readonly AssistantBlock[]> {
    if (this.oracle === undefined) throw new Error('no task run under way');
    return (await this.oracle.respond(request)).content;
  }
}

const textOf = (system: unknown): string =>
  typeof system === 'string'
    ? system
    : asArray(system as JsonObject[])
        .map((b) => (isObject(b) && typeof b['text'] === 'string' ? b['text'] : ''))
        .join('');

function anthropicStandIn(script: Script): Promise<MockProvider> {
  const reply = async (body: JsonObject): Promise<JsonObject> => {
    const customer = textOf(body['system']).includes('<scenario>');
    script.log.push({ mode: script.mode, who: customer ? 'customer' : 'agent', body });
    const content = customer
      ? [{ type: 'text', text: script.customerLine(asArray(body['messages']).length - 1) }]
      : await script.agentReply({
          tools: [],
          system: textOf(body['system']),
          messages: asArray(body['messages']) as unknown as Message[],
        });
    return {
      id: 'msg_test',
      type: 'message',
      role: 'assistant',
      model: String(body['model']),
      content: content as unknown as JsonObject[],
      stop_reason: (content as { type: string }[]).some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: customer ? CUSTOMER_USAGE : AGENT_USAGE,
    };
  };
  return startMockProvider({
    routes: { '/v1/messages': { validate: anthropicProblems, replies: Array.from({ length: 400 }, () => reply) } },
    errorBody: (text) => ({ type: 'error', error: { type: 'invalid_request_error', message: text } }),
  });
}

function openAIStandIn(script: Script): Promise<MockProvider> {
  const reply = async (body: JsonObject): Promise<JsonObject> => {
    const messages = asArray(body['messages']);
    const first = messages[0];
    const customer = isObject(first) && textOf(first['content']).includes('<scenario>');
    script.log.push({ mode: script.mode, who: customer ? 'customer' : 'agent', body });
    const blocks: readonly AssistantBlock[] = customer
      ? [{ type: 'text', text: script.customerLine(messages.length - 2) }]
      : await script.agentReply({ tools: [], messages: messages as unknown as Message[] });
    const text = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    const calls = blocks.flatMap((b) =>
      b.type === 'tool_use'
        ? [{ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input) } }]
        : [],
    );
    return {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 0,
      model: String(body['model']),
      choices: [
        {
          index: 0,
          finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
          logprobs: null,
          message: {
            role: 'assistant',
            content: text === '' ? null : text,
            refusal: null,
            ...(calls.length > 0 ? { tool_calls: calls } : {}),
          },
        },
      ],
      usage: customer
        ? { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 }
        : { prompt_tokens: 50, completion_tokens: 4, total_tokens: 54, prompt_tokens_details: { cached_tokens: 30 } },
    };
  };
  return startMockProvider({
    routes: {
      '/v1/chat/completions': { validate: openAIChatProblems, replies: Array.from({ length: 400 }, () => reply) },
    },
    errorBody: (text) => ({ error: { message: text, type: 'invalid_request_error', param: null, code: null } }),
  });
}

const open: MockProvider[] = [];
afterAll(async () => {
  for (const provider of open) await provider.close();
});

/** Whether a Messages request body carries a cache breakpoint anywhere. */
const marked = (body: JsonObject): boolean => JSON.stringify(body).includes('"cache_control"');

describe('τ² retail with a live model, against local stand-ins of the providers', () => {
  it('Anthropic: every mode passes task 0, each request as its mode sends it, usage summed per mode and per party', async () => {
    const script = new Script();
    const provider = await anthropicStandIn(script);
    open.push(provider);
    const report = await runBenchmark(data, [task], {
      model: script.spec(provider, 'anthropic:claude-test', true),
      limits: LIVE_LIMITS,
    });
    expect(report.failures).toEqual([]);
    expect(provider.requests.flatMap((r) => r.problems)).toEqual([]);
    for (const mode of ['native', 'nativeParallel', 'ptc'] as const) {
      const agent = script.log.filter((e) => e.mode === mode && e.who === 'agent').map((e) => e.body);
      const customer = script.log.filter((e) => e.mode === mode && e.who === 'customer').map((e) => e.body);
      const totals = report[mode];
      expect(totals.passed).toBe(1);
      expect(agent.length).toBe(totals.modelRequests);
      const r = agent.length;
      expect(totals.api).toEqual({
        inputTokens: 11 * r,
        promptTokens: 131 * r,
        outputTokens: 5 * r,
        cacheReadTokens: 100 * r,
        cacheWriteTokens: 20 * r,
      });
      const c = customer.length;
      expect(c).toBeGreaterThan(1);
      expect(totals.customerApi).toEqual({
        inputTokens: 7 * c,
        promptTokens: 7 * c,
        outputTokens: 3 * c,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      });
      for (const body of agent) {
        const system = textOf(body['system']);
        expect(system.startsWith(AGENT_PREAMBLE)).toBe(true);
        expect(system).toContain(data.policy.slice(0, 200));
        const tools = asArray(body['tools']).filter(isObject);
        expect(tools.at(-1)?.['cache_control']).toEqual({ type: 'ephemeral' });
        const last = asArray(body['messages']).filter(isObject).at(-1);
        expect(asArray(last?.['content']).filter(isObject).at(-1)?.['cache_control']).toEqual({ type: 'ephemeral' });
        if (mode === 'ptc') {
          expect(tools.map((t) => t['name'])).toEqual(['run_code']);
          expect(body['tool_choice']).toBeUndefined();
        } else {
          expect(tools.length).toBe(16);
          expect(body['tool_choice']).toEqual({ type: 'auto', disable_parallel_tool_use: mode === 'native' });
        }
      }
      // The customer's side: the scenario in its prompt, the greeting first, the agent's lines as the other party's.
      const lastCustomer = customer.at(-1) ?? {};
      expect(textOf(lastCustomer['system'])).toContain(task.user_scenario.instructions.reason_for_call);
      expect(lastCustomer['tools']).toBeUndefined();
      const seen = asArray(lastCustomer['messages']).filter(isObject);
      expect(seen[0]).toEqual({ role: 'user', content: GREETING });
      expect(seen.map((m) => m['role'])).toEqual(seen.map((_, i) => (i % 2 === 0 ? 'user' : 'assistant')));
      expect(JSON.stringify(seen[1])).toContain('Yusuf');
    }
    // Parallel calls allowed: the same calls in fewer requests.
    expect(report.nativeParallel.toolCalls).toBe(report.native.toolCalls);
    expect(report.nativeParallel.modelRequests).toBeLessThan(report.native.modelRequests);
    expect(report.ptc.toolCalls).toBeLessThan(report.native.toolCalls);
    const table = liveMarkdownReport([report, report]);
    expect(table).toContain('| native | 1 |');
    expect(table).toContain('2 runs of 1 tasks');
  }, 180_000);

  it('grades the database: a customer who hangs up before confirming leaves task 0 failed; no cache marks with cache off', async () => {
    const script = new Script();
    script.hangUp = true;
    const provider = await anthropicStandIn(script);
    open.push(provider);
    const report = await runBenchmark(data, [task], {
      modes: ['native'],
      model: script.spec(provider, 'anthropic:claude-test', false),
      limits: LIVE_LIMITS,
    });
    expect(report.native.passed).toBe(0);
    expect(report.failures).toEqual([
      { id: '0', mode: 'native', failure: expect.stringContaining('database differs from the gold one') },
    ]);
    expect(script.log.length).toBeGreaterThan(2);
    expect(script.log.filter((e) => marked(e.body))).toEqual([]);
  }, 120_000);

  it('cuts a conversation off at the message limit, and fails it', async () => {
    const script = new Script();
    const provider = await anthropicStandIn(script);
    open.push(provider);
    const report = await runBenchmark(data, [task], {
      modes: ['native'],
      model: script.spec(provider, 'anthropic:claude-test', true),
      limits: { maxMessages: 4 },
    });
    expect(report.failures).toEqual([{ id: '0', mode: 'native', failure: 'reached 4 messages' }]);
    expect(script.log.filter((e) => e.who === 'agent').length).toBe(2);
  }, 120_000);

  it('OpenAI: native and nativeParallel pass task 0 through Chat Completions, parallel calls off then on, usage summed', async () => {
    const script = new Script();
    const provider = await openAIStandIn(script);
    open.push(provider);
    const report = await runBenchmark(data, [task], {
      modes: ['native', 'nativeParallel'],
      model: script.spec(provider, 'openai:gpt-test', true),
      limits: LIVE_LIMITS,
    });
    expect(report.failures).toEqual([]);
    expect(provider.requests.flatMap((r) => r.problems)).toEqual([]);
    for (const mode of ['native', 'nativeParallel'] as const) {
      const agent = script.log.filter((e) => e.mode === mode && e.who === 'agent').map((e) => e.body);
      const customer = script.log.filter((e) => e.mode === mode && e.who === 'customer').map((e) => e.body);
      const r = agent.length;
      expect(report[mode].passed).toBe(1);
      expect(r).toBe(report[mode].modelRequests);
      expect(report[mode].api).toEqual({
        inputTokens: 50 * r,
        promptTokens: 50 * r,
        outputTokens: 4 * r,
        cacheReadTokens: 30 * r,
        cacheWriteTokens: 0,
      });
      expect(report[mode].customerApi?.promptTokens).toBe(9 * customer.length);
      for (const body of agent) expect(body['parallel_tool_calls']).toBe(mode === 'nativeParallel');
      for (const body of customer) expect(body['tools']).toBeUndefined();
    }
  }, 180_000);
});
