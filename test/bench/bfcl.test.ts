// The BFCL multi-turn harness (bench/bfcl): the call parser, CPython's generator, Python's
// text forms, our environments against upstream's recorded outputs, and a few entries run
// in both modes through the runtime and graded.
import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { loadDataset } from '../../bench/bfcl/data.ts';
import { liveModel, toChat } from '../../bench/bfcl/live-model.ts';
import { checkAgainstUpstream, loadSample } from '../../bench/bfcl/fidelity.ts';
import type { ModelReply, ModelRequest, TurnModel } from '../../bench/bfcl/model.ts';
import { DeferredNativeOracle, NativeOracle, ParallelNativeOracle, turnProgram } from '../../bench/bfcl/oracle.ts';
import { bindArgs, parseCall } from '../../bench/bfcl/parse-call.ts';
import { PyRandom } from '../../bench/bfcl/py-random.ts';
import { floatRepr, jsonDumps, pyRepr, resultText } from '../../bench/bfcl/py-value.ts';
import { runBenchmark } from '../../bench/bfcl/run-bench.ts';
import { spreadReport } from '../../bench/bfcl/report.ts';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

describe('ground-truth call parser', () => {
  it('reads keyword and positional literals with Python escapes', () => {
    expect(parseCall("edit_ticket(ticket_id=3, updates={'priority':2, 'tags': ['a', \"b\"]})")).toEqual({
      name: 'edit_ticket',
      positional: [],
      keywords: { ticket_id: 3, updates: { priority: 2, tags: ['a', 'b'] } },
    });
    const echo = parseCall("echo(content = 'It\\'s \\u00e9\\n', file_name=None)");
    expect(echo.keywords).toEqual({ content: "It's é\n", file_name: null });
    const call = parseCall("sort('final_report.pdf')");
    expect(bindArgs(call, ['file_name'])).toEqual({ file_name: 'final_report.pdf' });
    expect(parseCall('lockDoors(unlock=False, door=[], x=-1.5e3, y=True)').keywords).toEqual({
      unlock: false,
      door: [],
      x: -1500,
      y: true,
    });
    expect(() => parseCall('cd(folder=)')).toThrow(SyntaxError);
    expect(() => parseCall('cd(folder=os.system("x"))')).toThrow(SyntaxError);
  });
});

describe('CPython random.Random(int)', () => {
  it('matches the values CPython 3.11 prints', () => {
    const a = new PyRandom(141053);
    expect([a.randint(1000000, 9999999), a.randint(10000000, 99999999), a.randint(100000000, 999999999)]).toEqual([
      3426812, 45451592, 498276044,
    ]);
    const b = new PyRandom(141053);
    expect([b.randint(100000, 999999), b.randint(1000000, 9999999)]).toEqual([251675, 5431449]);
    const c = new PyRandom(141053);
    expect([c.randint(100000000000, 999999999999), c.randint(10000, 99999)]).toEqual([262919693687, 44620]);
    const d = new PyRandom(141053);
    d.randint(100000, 999999);
    expect([d.randint(100000000000, 999999999999), d.randint(10000, 99999)]).toEqual([391310425148, 58617]);
    expect(new PyRandom(200191).randint(10000, 99999)).toBe(67410);
    expect(new PyRandom(1053520).randint(0, 86400)).toBe(69015);
    expect(new PyRandom(141053).uniform(-10, 40)).toBe(36.63485703790535);
    expect(new PyRandom(141053).uniform(0, 120)).toBe(111.92365689097284);
    const e = new PyRandom(141053);
    e.randint(100000000000, 999999999999);
    expect(e.getrandbits(70)).toBe(429147543522522715196n);
  });
});

describe("Python's text forms", () => {
  it('prints repr and json.dumps as Python does', () => {
    expect([floatRepr(0.1), floatRepr(1e16), floatRepr(1.5e-5), floatRepr(-2.5), floatRepr(123456.789)]).toEqual([
      '0.1',
      '1e+16',
      '1.5e-05',
      '-2.5',
      '123456.789',
    ]);
    expect(pyRepr(['a', "it's", 1, true, null, { k: [] }])).toBe(`['a', "it's", 1, True, None, {'k': []}]`);
    expect(jsonDumps({ a: 'é', b: [1, 2.5], c: null, d: false })).toBe(
      '{"a": "\\u00e9", "b": [1, 2.5], "c": null, "d": false}',
    );
    expect(resultText(null)).toBe('None');
    expect(resultText(new Map<string | number, null>([[1, null]]))).toBe('{"1": null}');
  });
});

describe('our environments against upstream', () => {
  it('reproduce every recorded result string and public state of upstream classes', () => {
    const report = checkAgainstUpstream(loadSample(here('../../bench/bfcl/upstream-sample.json')));
    expect(report.mismatches).toEqual([]);
    expect(report.stateMismatches).toEqual([]);
    expect(report.entries).toBeGreaterThanOrEqual(50);
    expect(report.exact + report.equalButFloatText).toBe(report.results);
    // Only the int/float text of integral floats may differ (we print 10000.0 as 10000).
    expect(report.exact / report.results).toBeGreaterThan(0.7);
  });
});

describe('entries in both modes', () => {
  const dataset = loadDataset(here('./fixtures/bfcl'));

  it('the scripted oracles pass every entry natively, through run_code, and over deferred tools', async () => {
    const report = await runBenchmark(dataset, dataset.entries);
    expect(report.failures).toEqual([]);
    expect(report.entries).toBe(3);
    // native: one request per call plus one answer per turn; ptc: a program and an answer per
    // turn with calls, one answer for the empty turn.
    expect(report.native).toMatchObject({ passed: 3, modelRequests: 17, toolCalls: 10, methodCalls: 10 });
    expect(report.ptc).toMatchObject({ passed: 3, modelRequests: 13, toolCalls: 6, methodCalls: 10 });
    // nativeParallel: a turn's calls together, an answer after; none of these calls needs another's result.
    expect(report.nativeParallel).toMatchObject({ passed: 3, modelRequests: 13, toolCalls: 10, methodCalls: 10 });
    // Deferred tools: one more request per turn that needs tools not read yet ($describe).
    expect(report.ptcDeferred).toMatchObject({ passed: 3, modelRequests: 19, toolCalls: 12, methodCalls: 10 });
    // nativeDeferred: the provider's tool search finds a tool within the response that first
    // calls it, so the requests and calls are nativeParallel's; the context holds the search
    // tool and the definitions found, not every definition.
    const nativeDeferred = report.nativeDeferred!;
    expect(nativeDeferred).toMatchObject({ passed: 3, modelRequests: 13, toolCalls: 10, methodCalls: 10 });
    expect(nativeDeferred.definitionTokens).toBeLessThan(report.nativeParallel!.definitionTokens);
    expect(nativeDeferred.definitionTokens).toBeGreaterThan(0);
    // The search call is model output; what it found is a result.
    expect(nativeDeferred.outputTokens).toBeGreaterThan(report.nativeParallel!.outputTokens);
    expect(nativeDeferred.resultTokens).toBeGreaterThan(report.nativeParallel!.resultTokens);
    expect(report.native.contextTokens).toBe(report.native.definitionTokens + report.native.resultTokens);
    expect(report.ptc.contextTokensDefinitionsOnce).toBeLessThan(report.ptc.contextTokens);
    for (const mode of [report.native, report.nativeParallel!, nativeDeferred, report.ptc]) {
      expect(mode.totalTokens).toBe(mode.requestTokens + mode.outputTokens);
      expect(mode.outputTokens).toBeGreaterThan(0);
    }
    // The program text is model output: ptc writes more per call than a native call.
    expect(report.ptc.outputTokens).toBeGreaterThan(report.nativeParallel!.outputTokens);
  }, 60_000);

  it('fails a model that skips a call or changes the state', async () => {
    class Lazy implements TurnModel {
      startTurn(): void {}
      async respond(): Promise<ModelReply> {
        return { content: [{ type: 'text', text: 'I did it.' }] };
      }
    }
    const lazy = await runBenchmark(dataset, dataset.entries.slice(0, 1), { model: () => new Lazy() });
    // A live model runs native, nativeParallel and ptc: each fails the same way.
    expect(lazy.failures.map((f) => [f.mode, f.failure])).toEqual([
      ['native', 'turn 0: empty_turn_model_response'],
      ['nativeParallel', 'turn 0: empty_turn_model_response'],
      ['ptc', 'turn 0: empty_turn_model_response'],
    ]);
    class Unreachable implements TurnModel {
      startTurn(): void {}
      async respond(): Promise<ModelReply> {
        throw new Error('Connection error.');
      }
    }
    const down = await runBenchmark(dataset, dataset.entries.slice(0, 1), { model: () => new Unreachable() });
    expect(down.failures.map((f) => f.failure)).toEqual(
      Array(3).fill('turn 0: the model request failed: Connection error.'),
    );
    class WrongFolder implements TurnModel {
      private sent = false;
      startTurn(): void {
        this.sent = false;
      }
      async respond(): Promise<ModelReply> {
        if (this.sent) return { content: [{ type: 'text', text: 'Done.' }] };
        this.sent = true;
        return { content: [{ type: 'tool_use', id: 'x', name: 'mkdir', input: { dir_name: 'tmp' } }] };
      }
    }
    const wrong = await runBenchmark(dataset, dataset.entries.slice(0, 1), { model: () => new WrongFolder() });
    expect(wrong.native.passed).toBe(0);
    expect(wrong.failures[0]?.failure).toBe('turn 0: instance_state_mismatch GorillaFileSystem.root');
  }, 60_000);

  it('sums the usage a model reports and shows repeated runs with their spread', async () => {
    class Metered extends NativeOracle {
      private requests = 0;
      private readonly perRequest: number;
      constructor(perRequest: number) {
        super();
        this.perRequest = perRequest;
      }
      override async respond(request: ModelRequest): Promise<ModelReply> {
        this.requests += 1;
        return super.respond(request);
      }
      usage() {
        return {
          inputTokens: this.requests * this.perRequest,
          promptTokens: this.requests * this.perRequest,
          outputTokens: this.requests,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
        };
      }
    }
    const one = await runBenchmark(dataset, dataset.entries, { model: () => new Metered(100) });
    const two = await runBenchmark(dataset, dataset.entries, { model: () => new Metered(200) });
    // A live model runs all three modes (here the one-call-per-request Metered in each).
    expect(one.nativeParallel?.api).toEqual(one.native.api);
    expect(one.native.api).toEqual({
      inputTokens: 1700,
      promptTokens: 1700,
      outputTokens: 17,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    const table = spreadReport([one, two]);
    expect(table).toContain('| **all** | native | 3 | 17 | 2,550 (1,700–3,400) | 0 | 17 |');
    expect(table).toContain('| **all** | nativeParallel | 3 | 17 | 2,550 (1,700–3,400) | 0 | 17 |');
    expect(table).toContain('2 runs; each cell: the mean, and (min–max) when the runs differ.');
  }, 60_000);

  it('sends a call that needs a value read in the same request in the next request', async () => {
    const oracle = new ParallelNativeOracle();
    oracle.startTurn(
      [
        { name: 'get_user_id', args: { user: 'Alice' } },
        { name: 'list_users', args: {} },
        { name: 'send_message', args: { receiver_id: 'USR002', message: 'Hi Alice' } },
        { name: 'mean', args: { numbers: [10000, 3] } },
      ],
      ['{"user_id": "USR002"}', '{"user_list": ["Alice", "Bob"]}', '{"sent_status": true}', '{"result": 5001.5}'],
    );
    const ask = async (known: string): Promise<string[]> => {
      const reply = await oracle.respond({ tools: [], messages: [{ role: 'user', content: known }] });
      return reply.content.map((block) =>
        block.type === 'tool_use' ? block.name : block.type === 'text' ? block.text : block.type,
      );
    };
    // USR002 is not known yet and the first call's result has it: send_message waits.
    expect(await ask('Send Alice "Hi Alice".')).toEqual(['get_user_id', 'list_users']);
    // Now it is in the conversation; 10000 was never in a result of this request.
    expect(await ask('Send Alice "Hi Alice". {"user_id": "USR002"}')).toEqual(['send_message', 'mean']);
    expect(await ask('')).toEqual(['Done.']);
  });

  it('over deferred tools, searches for the tools a request first calls, by exact name, once per entry', async () => {
    const oracle = new DeferredNativeOracle();
    const turn = [
      { name: 'ls', args: {} },
      { name: 'cd', args: { folder: 'a.b' } },
    ];
    oracle.startTurn(turn, ['{}', '{}']);
    const first = await oracle.respond({ tools: [], messages: [{ role: 'user', content: 'go' }] });
    expect(first.content.map((block) => block.type)).toEqual([
      'server_tool_use',
      'tool_search_tool_result',
      'tool_use',
      'tool_use',
    ]);
    expect(first.content[0]).toMatchObject({ name: 'tool_search_tool_regex', input: { query: '^(ls|cd)$' } });
    expect(first.content[1]).toMatchObject({
      content: { tool_references: [{ tool_name: 'ls' }, { tool_name: 'cd' }] },
    });
    // A tool found once stays loaded: the next turn calls it without searching.
    oracle.startTurn(turn, ['{}', '{}']);
    const again = await oracle.respond({ tools: [], messages: [{ role: 'user', content: 'again' }] });
    expect(again.content.map((block) => block.type)).toEqual(['tool_use', 'tool_use']);
  });

  it('writes a turn as one awaited program', () => {
    expect(
      turnProgram([
        { name: 'cd', args: { folder: 'document' } },
        { name: 'mean', args: { numbers: [3, 4] } },
      ]),
    ).toBe(
      'const r0 = await tools.cd({"folder":"document"});\nconst r1 = await tools.mean({"numbers":[3,4]});\nreturn [r0, r1];',
    );
  });
});

describe('a live model in the loop', () => {
  it('takes provider:model and converts the conversation for Chat Completions', () => {
    expect(() => liveModel('anthropic:')).toThrow('anthropic:<id>');
    expect(() => liveModel('gemini:x')).toThrow('unknown provider');
    expect(liveModel('openai:some-model')).toBeDefined();
    const chat = toChat({
      tools: [],
      messages: [
        { role: 'user', content: 'Go to document.' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'cd', input: { folder: 'document' } }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'c1',
              content: [{ type: 'text', text: '{"current_working_directory": "document"}' }],
            },
          ],
        },
      ],
    });
    expect(chat.slice(1)).toEqual([
      { role: 'user', content: 'Go to document.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'cd', arguments: '{"folder":"document"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"current_working_directory": "document"}' },
    ]);
  });
});
