// Durable replay gives the same presentation as live: both go through
// presentExecution, the tool's pure presenters, and the generic fallback.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolRuntime, defineTool, type JsonValue, type ToolResult } from '../../src/index.ts';
import type { ToolRuntime } from '../../src/runtime/create-tool-runtime.ts';
import type { TurnCall } from '../../src/scheduler/execute-turn.ts';
import { openFileJournal } from '../../src/journal/file/file-journal.ts';
import { createMemoryJournal } from '../../src/journal/memory/memory-journal.ts';
import { presentExecution, type ExecutionPresentation } from '../../src/journal/present-execution.ts';
import { presentationTree } from '../../src/journal/presentation-tree.ts';
import { replayJournal } from '../../src/journal/replay-journal.ts';
import { work, workTool } from './helpers.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-replay-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The same tools, registered in any runtime (the live one and the replaying one). */
function registerTools(rt: ToolRuntime): void {
  rt.register(workTool({ presenters: true }));
  rt.register(workTool({ name: 'plain' }));
  rt.register(
    defineTool({
      name: 'odd',
      description: 'presenters that break',
      parameters: { n: { type: 'number', required: true } },
      output: { schema: { type: 'json' }, render: (_a, v) => [{ type: 'text', text: JSON.stringify(v) }] },
      timeoutMs: 5,
      execute: async (args, exec) =>
        args.n < 0
          ? new Promise<never>((_resolve, reject) =>
              exec.signal.addEventListener('abort', () => reject(new Error('stopped'))),
            )
          : { n: args.n },
      presentCall: () => {
        throw new Error('broken presenter');
      },
      presentResult: () => new Date(0) as unknown as JsonValue,
    }),
  );
  rt.createAgent('alice');
  rt.register(
    defineTool({
      name: 'mine',
      description: "alice's tool",
      parameters: { q: { type: 'string', required: true } },
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      execute: (args) => args.q.toUpperCase(),
      presentCall: (args) => ({ asking: args.q }),
      presentResult: (args, result) => ({ asked: args.q, answer: result.value ?? null }),
    }),
    { agent: 'alice' },
  );
}

const liveOf = (
  rt: ToolRuntime,
  calls: readonly TurnCall[],
  results: readonly ToolResult[],
  agent?: string,
): ExecutionPresentation[] =>
  results.map((r, i) =>
    presentExecution(rt, { ...calls[i]!, arguments: calls[i]!.arguments as JsonValue, agent: agent ?? null }, r),
  );

describe('journal replay', () => {
  it('renders exactly the live presentation, from the file journal, in a fresh runtime', async () => {
    const path = join(dir, 'session.jsonl');
    const rt = createToolRuntime({ sandbox: false, journal: path, timeoutPolicy: { graceMs: 5000 } });
    registerTools(rt);

    const first: TurnCall[] = [
      work({ id: 'a', mode: 'safe', contexts: 1 }),
      work({ id: 'b', mode: 'safe', fail: true }),
      work({ id: 'c', mode: 'exclusive' }, 'plain'),
      { callId: 'd', name: 'ghost', arguments: { any: ['thing'] } },
      { callId: 'e', name: 'odd', arguments: { n: 1 } },
      { callId: 'f', name: 'odd', arguments: { n: -1 } },
    ];
    const second: TurnCall[] = [{ callId: 'g', name: 'mine', arguments: { q: 'hi' } }];
    const t1 = await rt.executeTurn(first);
    const t2 = await rt.executeTurn(second, { agent: 'alice' });
    expect(t1.results.map((r) => r.error?.code ?? 'ok')).toEqual([
      'ok',
      'TOOL_ERROR',
      'ok',
      'UNKNOWN_TOOL',
      'ok',
      'TOOL_TIMEOUT',
    ]);
    const live = [...liveOf(rt, first, t1.results), ...liveOf(rt, second, t2.results, 'alice')];

    // The tools' own presenters were used where they work, the generic form elsewhere.
    expect(live[0]).toEqual({
      callId: 'a',
      name: 'work',
      call: { title: 'Working on a' },
      result: { title: 'a: done', text: 'done:a' },
    });
    expect(live[1]!.result).toEqual({ title: 'b: failed', text: 'Error: work b failed' });
    expect(live[2]!.call).toEqual({ generic: true, name: 'plain', arguments: { id: 'c', mode: 'exclusive' } });
    expect(live[3]!.result).toEqual({
      generic: true,
      isError: true,
      content: [{ type: 'text', text: 'Error: unknown tool "ghost"' }],
      error: { code: 'UNKNOWN_TOOL', message: 'unknown tool "ghost"' },
    });
    expect(live[4]).toEqual({
      callId: 'e',
      name: 'odd',
      call: { generic: true, name: 'odd', arguments: { n: 1 } },
      result: { generic: true, isError: false, content: [{ type: 'text', text: '{"n":1}' }] },
    });
    expect(live[6]).toEqual({
      callId: 'g',
      name: 'mine',
      call: { asking: 'hi' },
      result: { asked: 'hi', answer: 'HI' },
    });

    const fresh = createToolRuntime({ sandbox: false });
    registerTools(fresh);
    const replay = await replayJournal(openFileJournal(path), fresh);
    expect(replay.executions).toEqual(live);
    expect(replay.interrupted).toEqual([]);
    expect(replay.warnings).toEqual([]);
  });

  it('falls back to the generic presentation when the logged input no longer fits', async () => {
    const journal = createMemoryJournal();
    const rt = createToolRuntime({ sandbox: false, journal });
    registerTools(rt);
    await rt.executeTurn([work({ id: 'a', mode: 'safe' })]);
    // Later, `work` takes different arguments: its presenters skip the old entry.
    const later = createToolRuntime({ sandbox: false });
    later.register(
      defineTool({
        name: 'work',
        description: 'v2',
        parameters: { task: { type: 'string', required: true } },
        output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'v2' }] },
        execute: () => null,
        presentCall: (args) => ({ v2: args.task }),
      }),
    );
    const { executions } = await replayJournal(journal, later);
    expect(executions).toEqual([
      {
        callId: 'a',
        name: 'work',
        call: { generic: true, name: 'work', arguments: { id: 'a', mode: 'safe' } },
        result: { generic: true, isError: false, content: [{ type: 'text', text: 'done:a' }] },
      },
    ]);
  });

  it('reports results without a call, and calls without a result', async () => {
    const journal = createMemoryJournal();
    const result: ToolResult = { callId: 'x', name: 'plain', isError: false, value: 1, content: [] };
    await journal.append([{ type: 'tool/result', callId: 'x', name: 'plain', result }]);
    await journal.append([{ type: 'tool/call', callId: 'y', name: 'plain', agent: null, arguments: {} }]);
    const replay = await replayJournal(journal, { tool: () => undefined });
    expect(replay.executions).toEqual([]);
    expect(replay.interrupted.map((c) => c.callId)).toEqual(['y']);
    expect(replay.warnings).toEqual([
      { kind: 'orphan-result', message: 'result of call "x" has no tool/call event; skipped' },
    ]);
  });

  it('arranges nested calls under their parent; a parent that never committed stays in the tree over its children (issue 21)', async () => {
    const journal = createMemoryJournal();
    const ok = (callId: string, name = 'plain'): ToolResult => ({
      callId,
      name,
      isError: false,
      value: 1,
      content: [],
    });
    const call = (callId: string, parentCallId?: string) => ({
      type: 'tool/call' as const,
      callId,
      name: 'plain',
      agent: null,
      arguments: {},
      ...(parentCallId === undefined ? {} : { parentCallId, rootCallId: callId.split(':')[0]! }),
    });
    const result = (callId: string) => ({ type: 'tool/result' as const, callId, name: 'plain', result: ok(callId) });
    // a has two children (the second with a child of its own); b died after its first child committed.
    for (const event of [
      call('a'),
      call('a:ptc:1', 'a'),
      result('a:ptc:1'),
      call('a:ptc:2', 'a'),
      call('a:ptc:2:call:1', 'a:ptc:2'),
      result('a:ptc:2:call:1'),
      result('a:ptc:2'),
      result('a'),
      call('b'),
      call('b:ptc:1', 'b'),
      result('b:ptc:1'),
    ])
      await journal.append([event]);
    const replay = await replayJournal(journal, { tool: () => undefined });
    const shape = (nodes: typeof replay.tree): unknown =>
      nodes.map((n) => ({ [n.presentation.callId]: shape(n.children) }));
    expect(shape(replay.tree)).toEqual([
      { a: [{ 'a:ptc:1': [] }, { 'a:ptc:2': [{ 'a:ptc:2:call:1': [] }] }] },
      { b: [{ 'b:ptc:1': [] }] },
    ]);
    expect(replay.executions.map((e) => [e.callId, e.parentCallId])).toEqual([
      ['a:ptc:1', 'a'],
      ['a:ptc:2:call:1', 'a:ptc:2'],
      ['a:ptc:2', 'a'],
      ['a', undefined],
      ['b:ptc:1', 'b'],
    ]);
    expect(replay.interrupted.map((c) => c.callId)).toEqual(['b']);
    expect(Object.isFrozen(replay.tree)).toBe(true);
    expect(Object.isFrozen(replay.tree[0]!.children)).toBe(true);
    // The live side arranges its presentations with the same function (the committed calls'
    // subtree is the same; replay adds the interrupted parent as a stand-in).
    expect(presentationTree(replay.executions)[0]).toEqual(replay.tree[0]);
  });
});
