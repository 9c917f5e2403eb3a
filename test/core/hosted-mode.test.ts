// Hosted mode in the runtime: the mode per agent, what is sent and resolvable, who may
// call what, and every way a program-made call is refused (DENIED) rather than run.
// The provider loops themselves are in test/adapters/hosted-*-loop.test.ts.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import { hostedRuntime, recordSpans, spanTree } from '../adapters/support/hosted-tools.ts';
import { toAiSdkTools } from '../../src/adapters/ai-sdk.ts';
import { fromAnthropicToolUses, toAnthropicUserMessage } from '../../src/adapters/anthropic.ts';
import {
  createToolRuntime,
  defineTool,
  deny,
  HOSTED_PROGRAM,
  replayJournal,
  type ToolCaller,
  type ToolRuntime,
} from '../../src/index.ts';

const sandbox = createSandbox({ isolation: 'in-process' });
const spans = recordSpans();
afterAll(async () => {
  await sandbox.close();
  spans.stop();
});

const echo = (name: string, callers?: readonly ('direct' | 'program')[]) =>
  defineTool({
    name,
    description: `Echoes (${name}).`,
    parameters: { text: { type: 'string', description: 'What to echo' } },
    ...(callers === undefined ? {} : { callers }),
    output: { schema: { type: 'json' }, render: (_a, v) => [{ type: 'text', text: JSON.stringify(v) }] },
    execute: (args, exec) => {
      exec.deferContext({ role: 'user', content: [{ type: 'text', text: `${name} ran` }] });
      return { echoed: args.text ?? null };
    },
  });

function runtime(options: Parameters<typeof createToolRuntime>[0] = { mode: 'hosted', sandbox: false }): ToolRuntime {
  const rt = createToolRuntime(options);
  rt.register(echo('lookup'));
  rt.register(echo('ask', ['direct']));
  rt.register(echo('both', ['direct', 'program']));
  return rt;
}

const server = (id: string) => ({
  type: 'server_tool_use',
  id,
  name: 'code_execution',
  input: { code: 'await lookup({})' },
});
const use = (id: string, name: string, programId?: string) => ({
  type: 'tool_use',
  id,
  name,
  input: { text: id },
  caller: programId === undefined ? { type: 'direct' } : { type: 'code_execution_20260120', tool_id: programId },
});
const errorOf = (rt: Awaited<ReturnType<ToolRuntime['executeTurn']>>, i: number) => rt.results[i]!.error;

describe('hosted mode', () => {
  it('is a mode like the others: runtime default or per agent, no sandbox needed, no run_code, no prompt', () => {
    const rt = runtime({ sandbox: false });
    const agent = rt.createAgent('hosted-agent');
    const dispose = rt.setMode('hosted', { agent });
    expect(rt.mode()).toBe('native');
    expect(rt.mode({ agent })).toBe('hosted');
    expect(rt.schemas({ agent }).map((s) => [s.name, s.callers])).toEqual([
      ['ask', ['direct']],
      ['both', ['direct', 'program']],
      ['lookup', ['program']],
    ]);
    expect(rt.schemas().every((s) => s.callers === undefined)).toBe(true);
    expect(rt.prompt({ agent })).toEqual([]);
    expect(rt.tool('run_code', { agent })).toBeUndefined();
    dispose();
    expect(rt.mode({ agent })).toBe('native');
  });

  it('defineTool checks callers', () => {
    const bad = (callers: unknown) => () =>
      defineTool({
        name: 'x',
        description: 'x',
        parameters: {},
        callers: callers as ['direct'],
        output: { schema: { type: 'json' }, render: () => [] },
        execute: () => null,
      });
    expect(bad([])).toThrow(/callers must be a non-empty list/);
    expect(bad(['direct', 'direct'])).toThrow(/distinct/);
    expect(bad(['model'])).toThrow(/'direct' \/ 'program'/);
  });

  it('direct calls: a program-only tool is refused, direct and both-ways tools run', async () => {
    const rt = runtime();
    const turn = await rt.executeTurn(
      fromAnthropicToolUses([use('t1', 'lookup'), use('t2', 'ask'), use('t3', 'both')]),
    );
    expect(turn.results.map((r) => r.error?.code ?? 'ok')).toEqual(['UNKNOWN_TOOL', 'ok', 'ok']);
    expect(turn.results[0]!.error?.message).toMatch(/only from the provider's code execution/);
  });

  it('program-made calls are refused without the conversation, from another agent, or outside hosted mode', async () => {
    const rt = runtime({ sandbox: false });
    const hosted = rt.createAgent('h');
    rt.setMode('hosted', { agent: hosted });
    const other = rt.createAgent('o');
    let ran = 0;
    rt.on('tools/pre-execute', async (exec, next) => {
      if (exec.name !== HOSTED_PROGRAM) ran += 1;
      return next();
    });
    const content = [server('srv_1'), use('t1', 'lookup', 'srv_1')];

    const none = await rt.executeTurn(fromAnthropicToolUses(content), { agent: hosted });
    expect(errorOf(none, 0)).toEqual(
      expect.objectContaining({ code: 'DENIED', message: expect.stringMatching(/no hosted conversation/) }),
    );

    const conversation = rt.hostedConversation({ agent: hosted });
    const calls = fromAnthropicToolUses(content, rt, { agent: hosted, conversation });
    const wrongAgent = await rt.executeTurn(calls, { agent: other, conversation });
    expect(errorOf(wrongAgent, 0)?.message).toMatch(/another agent's conversation/);

    const notHosted = rt.hostedConversation({ agent: other });
    const otherCalls = fromAnthropicToolUses(content, rt, { agent: other, conversation: notHosted });
    const native = await rt.executeTurn(otherCalls, { agent: other, conversation: notHosted });
    expect(errorOf(native, 0)?.message).toMatch(/not in hosted mode/);
    expect(ran).toBe(0);

    const ok = await rt.executeTurn(calls, { agent: hosted, conversation });
    expect(ok.results[0]).toEqual(expect.objectContaining({ isError: false, value: { echoed: 't1' } }));
    expect(ran).toBe(1);
    await conversation.close();
    await notHosted.close();
  });

  it('a program the policy refuses: its calls are refused too; a program that ended takes no more calls', async () => {
    const rt = runtime();
    rt.on('tools/pre-execute', async (exec, next) =>
      exec.name === HOSTED_PROGRAM && exec.callId === 'srv_bad' ? deny('no hosted code here') : next(),
    );
    const conversation = rt.hostedConversation();
    const refused = await rt.executeTurn(
      fromAnthropicToolUses([server('srv_bad'), use('t1', 'lookup', 'srv_bad')], rt, { conversation }),
      { conversation },
    );
    expect(errorOf(refused, 0)?.message).toMatch(/was refused, so its calls are too: .*no hosted code here/);

    fromAnthropicToolUses([server('srv_ok')], rt, { conversation });
    const end = {
      type: 'code_execution_tool_result',
      tool_use_id: 'srv_ok',
      content: { type: 'code_execution_result', stdout: 'done', stderr: '', return_code: 0, content: [] },
    };
    fromAnthropicToolUses([end], rt, { conversation });
    const late = await rt.executeTurn(fromAnthropicToolUses([use('t2', 'lookup', 'srv_ok')]), { conversation });
    expect(errorOf(late, 0)?.message).toMatch(/has already ended/);
    expect(conversation.programs()).toEqual([
      { provider: 'anthropic', programId: 'srv_bad', state: 'refused' },
      { provider: 'anthropic', programId: 'srv_ok', state: 'ended' },
    ]);
  });

  it('a program-made call gets JSON text, and its contexts wait for a message that may carry them', async () => {
    const rt = runtime();
    const conversation = rt.hostedConversation();
    const turn = await rt.executeTurn(
      fromAnthropicToolUses([server('srv_1'), use('t1', 'lookup', 'srv_1')], rt, { conversation }),
      { conversation },
    );
    const held = toAnthropicUserMessage(turn, { conversation });
    expect(held.content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: '{"echoed":"t1"}' }] },
    ]);
    // The next message that may carry them does.
    const direct = await rt.executeTurn(fromAnthropicToolUses([use('t2', 'ask')]), { conversation });
    const next = toAnthropicUserMessage(direct, { conversation });
    expect(next.content.slice(1)).toEqual([
      { type: 'text', text: 'lookup ran' },
      { type: 'text', text: 'ask ran' },
    ]);
    await conversation.close();
    expect(conversation.programs()).toEqual([{ provider: 'anthropic', programId: 'srv_1', state: 'ended' }]);
  });

  it('the same policy sees a local run_code program as a program too', async () => {
    const rt = runtime({ mode: 'ptc', sandbox });
    const callers: ToolCaller[] = [];
    rt.on('tools/pre-execute', async (exec, next) => {
      if (exec.name === 'lookup') callers.push(exec.caller);
      return next();
    });
    const result = await rt.execute({
      callId: 'run_1',
      name: 'run_code',
      arguments: { description: 'look up', code: 'return await tools.lookup({ text: "x" })' },
    });
    expect(result.isError).toBe(false);
    expect(callers).toEqual([{ type: 'program', programId: 'run_1', provider: 'local' }]);
  });

  it('one tools module, a local run_code program and a hosted one: the same decisions, journal tree and span tree', async () => {
    type Outcome = { tree: unknown; spans: string[] };
    const shape = (nodes: Awaited<ReturnType<typeof replayJournal>>['tree']): unknown =>
      nodes.map((n) => ({ name: n.presentation.name, children: shape(n.children) }));
    const outcome = async (rt: ToolRuntime, journal: Parameters<typeof replayJournal>[0]): Promise<Outcome> => ({
      tree: shape((await replayJournal(journal, rt)).tree),
      spans: spanTree(spans.exporter.getFinishedSpans()).map((line) => line.replace(/ \(.*\)$/, '')),
    });

    spans.exporter.reset();
    const local = hostedRuntime(sandbox);
    const run = await local.rt.execute({
      callId: 'run_1',
      name: 'run_code',
      arguments: {
        description: 'stock and secret',
        code: 'const inv = await tools.get_inventory({ sku: "A1" }); try { await tools.get_secret({}); } catch {} return inv;',
      },
    });
    expect(run.isError).toBe(false);
    const a = await outcome(local.rt, local.journal);

    spans.exporter.reset();
    const hosted = hostedRuntime();
    const conversation = hosted.rt.hostedConversation();
    const by = { type: 'code_execution_20260120', tool_id: 'srv_1' };
    const content = [
      { type: 'server_tool_use', id: 'srv_1', name: 'code_execution', input: { code: '…' } },
      { type: 'tool_use', id: 't1', name: 'get_inventory', input: { sku: 'A1' }, caller: by },
      { type: 'tool_use', id: 't2', name: 'get_secret', input: {}, caller: by },
    ];
    const turn = await hosted.rt.executeTurn(fromAnthropicToolUses(content, hosted.rt, { conversation }), {
      conversation,
    });
    const end = { type: 'code_execution_tool_result', tool_use_id: 'srv_1', content: { return_code: 0, stdout: '' } };
    fromAnthropicToolUses([end], hosted.rt, { conversation });
    await conversation.close();
    const b = await outcome(hosted.rt, hosted.journal);

    // The same policy decision for the program's two calls, wherever the program ran.
    const decided = (seen: typeof local.seen) =>
      seen.filter((s) => s.caller.type === 'program').map((s) => [s.name, s.caller.type]);
    expect(decided(hosted.seen)).toEqual(decided(local.seen));
    expect(turn.results.map((r) => r.error?.code ?? 'ok')).toEqual(['ok', 'DENIED']);
    // The same trees, under the program's node: run_code locally, hosted_program at the provider.
    const rename = (o: Outcome): string => JSON.stringify(o).replaceAll(HOSTED_PROGRAM, 'run_code');
    expect(rename(b)).toBe(rename(a));
    expect(a.tree).toEqual([
      {
        name: 'run_code',
        children: [
          { name: 'get_inventory', children: [] },
          { name: 'get_secret', children: [] },
        ],
      },
    ]);
    expect(a.spans).toEqual(['execute_tool run_code', '  execute_tool get_inventory', '  execute_tool get_secret']);
  });

  it('the AI SDK tool set is not a hosted-mode adapter', () => {
    expect(() => toAiSdkTools(runtime())).toThrow(/hosted mode/);
  });
});
