// The streaming sequencer that executeTurn, run_code and composite tools share: nested
// requests, one-at-a-time submission, closing. (Internal failures: step-recovery.test.ts.)
import { describe, expect, it } from '@jest/globals';
import type { ToolExecution } from '../../src/index.ts';
import { executeTool, type PipelineDeps } from '../../src/pipeline/execute-tool.ts';
import { Hooks } from '../../src/pipeline/hooks.ts';
import { ToolRegistry } from '../../src/registry/tool-registry.ts';
import { createCallSequencer } from '../../src/scheduler/call-sequencer.ts';
import { createMemoryJournal } from '../../src/journal/memory/memory-journal.ts';
import { SchedulerError } from '../../src/scheduler/scheduler-error.ts';
import {
  deferred,
  expectJournalWhole,
  hops,
  OverlapRecorder,
  work,
  workTool,
  type WorkToolOptions,
} from './helpers.ts';

/** A bare pipeline (what the runtime gives run_code), with the `work` tool. */
function pipeline(options: WorkToolOptions = {}) {
  const registry = new ToolRegistry();
  const hooks = new Hooks();
  const recorder = new OverlapRecorder();
  registry.register(workTool({ ...options, recorder }));
  const deps: PipelineDeps = {
    registry,
    hooks,
    approval: undefined,
    resolveTool: (name, agent) => registry.resolve(name, agent),
    directCallRefusal: () => undefined,
  };
  return { deps, registry, hooks, recorder };
}

describe('createCallSequencer', () => {
  it('runs nested calls submitted one at a time, with their parent token and root call id', async () => {
    const seen: Array<{ callId: string; parent: symbol | undefined; rootCallId: string }> = [];
    const { deps } = pipeline({
      during: (_args, exec: ToolExecution) =>
        void seen.push({ callId: exec.callId, parent: exec.parent, rootCallId: exec.rootCallId }),
    });
    const journal = createMemoryJournal();
    const parent = Symbol('outer');
    const sequencer = createCallSequencer(deps, { journal });
    const first = await sequencer.submit({ ...work({ id: 'outer:ptc:1', mode: 'safe' }), parent, rootCallId: 'outer' });
    expect(first.value).toEqual({ id: 'outer:ptc:1' });
    const second = await sequencer.submit({
      ...work({ id: 'outer:ptc:2', mode: 'exclusive' }),
      parent,
      rootCallId: 'outer',
    });
    expect(second.value).toEqual({ id: 'outer:ptc:2' });
    await sequencer.close();
    expect(seen).toEqual([
      { callId: 'outer:ptc:1', parent, rootCallId: 'outer' },
      { callId: 'outer:ptc:2', parent, rootCallId: 'outer' },
    ]);
    const { events } = await journal.read();
    expect(events[0]).toEqual({
      type: 'tool/call',
      callId: 'outer:ptc:1',
      name: 'work',
      agent: null,
      arguments: { id: 'outer:ptc:1', mode: 'safe' },
      rootCallId: 'outer',
    });
    expect(events.map((e) => e.type)).toEqual(['tool/call', 'tool/result', 'tool/call', 'tool/result']);
  });

  it('gives the same results as direct execution', async () => {
    const { deps } = pipeline();
    const sequencer = createCallSequencer(deps);
    const viaSequencer = await sequencer.submit(work({ id: 'x', mode: 'safe', contexts: 1 }));
    const direct = await executeTool(deps, work({ id: 'x', mode: 'safe', contexts: 1 }));
    expect(viaSequencer).toEqual(direct);
  });

  it('counts a body that starts on an idle pool against the bound, and starts a queued body when it ends', async () => {
    const ids = ['a', 'b', 'c', 'd'];
    const gates = new Map(ids.map((id) => [id, deferred()]));
    const started: string[] = [];
    const { deps, recorder } = pipeline({
      during: async (args) => {
        started.push(args.id);
        await gates.get(args.id)!.promise;
      },
    });
    const sequencer = createCallSequencer(deps, { concurrency: 2 });
    const results = ids.map((id) => sequencer.submit(work({ id, mode: 'safe' })));
    await hops(20);
    // `a` started while the pool was idle: with it, only one more body may run.
    expect(started).toEqual(['a', 'b']);
    gates.get('a')!.resolve();
    await hops(20);
    expect(started).toEqual(['a', 'b', 'c']);
    gates.get('c')!.resolve();
    await hops(20);
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    gates.get('b')!.resolve();
    gates.get('d')!.resolve();
    expect((await Promise.all(results)).map((r) => r.isError)).toEqual([false, false, false, false]);
    expect(recorder.maxParallel).toBe(2);
    expect(recorder.violations).toEqual([]);
    await sequencer.close();
  });

  it('a call submitted after close is not dispatched', async () => {
    const { deps, recorder } = pipeline();
    const sequencer = createCallSequencer(deps);
    await sequencer.close();
    expect(sequencer.closed).toBe(true);
    const late = sequencer.submit(work({ id: 'late', mode: 'safe' }));
    await expect(late).rejects.toThrow(SchedulerError);
    await expect(late).rejects.toMatchObject({
      code: 'NOT_DISPATCHED',
      message: 'call "late" was not dispatched: the sequence is closed',
    });
    expect(recorder.events).toEqual([]);
  });

  it('refuses a malformed or duplicate request without blocking the others', async () => {
    const { deps } = pipeline();
    const sequencer = createCallSequencer(deps);
    const a = sequencer.submit(work({ id: 'a', mode: 'safe' }));
    await expect(sequencer.submit(work({ id: 'a', mode: 'safe' }))).rejects.toThrow(/duplicate callId/);
    await expect(sequencer.submit({ callId: 'b', name: 7, arguments: {} } as never)).rejects.toThrow(
      /name must be a string/,
    );
    await expect(sequencer.submit({ ...work({ id: 'c', mode: 'safe' }), signal: 'no' as never })).rejects.toThrow(
      /signal must be an AbortSignal/,
    );
    expect((await a).value).toEqual({ id: 'a' });
    await sequencer.close();
  });

  it('a request’s own aborted signal cancels only that call', async () => {
    const { deps, recorder } = pipeline();
    const sequencer = createCallSequencer(deps);
    const own = new AbortController();
    own.abort();
    const results = await Promise.all([
      sequencer.submit(work({ id: 'a', mode: 'safe' })),
      sequencer.submit({ ...work({ id: 'b', mode: 'safe' }), signal: own.signal }),
      sequencer.submit(work({ id: 'c', mode: 'safe' })),
    ]);
    expect(results.map((r) => r.error?.code ?? 'ok')).toEqual(['ok', 'ABORTED_BEFORE_DISPATCH', 'ok']);
    expect(recorder.events.filter((e) => e.startsWith('start'))).toEqual(['start:a', 'start:c']);
  });

  it('a call with its own signal sees whichever of its own and the sequence’s aborts first, with that reason', async () => {
    const started = { a: deferred(), b: deferred() };
    const reasons: Record<string, unknown> = {};
    const { deps } = pipeline({
      during: async (args, exec) => {
        started[args.id as 'a' | 'b'].resolve();
        await new Promise<void>((resolve) => exec.signal.addEventListener('abort', () => resolve(), { once: true }));
        reasons[args.id] = exec.signal.reason;
      },
    });
    const sequence = new AbortController();
    const sequencer = createCallSequencer(deps, { signal: sequence.signal });
    const ownA = new AbortController();
    const ownB = new AbortController();
    const a = sequencer.submit({ ...work({ id: 'a', mode: 'safe' }), signal: ownA.signal });
    const b = sequencer.submit({ ...work({ id: 'b', mode: 'safe' }), signal: ownB.signal });
    await started.a.promise;
    await started.b.promise;
    ownA.abort('own-a');
    expect((await a).error?.code).toBe('ABORTED');
    sequence.abort('sequence');
    expect((await b).error?.code).toBe('ABORTED');
    expect(reasons).toEqual({ a: 'own-a', b: 'sequence' });
    // An own signal aborted after its call committed changes nothing.
    ownB.abort('late');
    await sequencer.close();
    expect(reasons).toEqual({ a: 'own-a', b: 'sequence' });
  });

  it('a call submitted with its own signal after the sequence aborted is not dispatched', async () => {
    const { deps, recorder } = pipeline();
    const sequence = new AbortController();
    const sequencer = createCallSequencer(deps, { signal: sequence.signal });
    sequence.abort('gone');
    const own = new AbortController();
    const result = await sequencer.submit({ ...work({ id: 'a', mode: 'safe' }), signal: own.signal });
    expect(result.error?.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(recorder.events).toEqual([]);
    await sequencer.close();
  });

  it('the tool sees a frozen copy of the arguments taken at submit, whatever the caller does later', async () => {
    const seen: unknown[] = [];
    const { deps } = pipeline({ during: (_args, exec) => void seen.push(exec.arguments) });
    const sequencer = createCallSequencer(deps);
    const args = { id: 'a', mode: 'safe' as const, hops: 1 };
    const pending = sequencer.submit({ callId: 'a', name: 'work', arguments: args });
    args.id = 'changed';
    expect((await pending).value).toEqual({ id: 'a' });
    expect(seen).toEqual([{ id: 'a', mode: 'safe', hops: 1 }]);
    expect(seen[0]).not.toBe(args);
    expect(Object.isFrozen(seen[0])).toBe(true);
    await sequencer.close();
  });

  it('write-ahead records follow submission order, even when the pipeline yields before recording and starts do not wait (abort)', async () => {
    const { deps } = pipeline();
    // A tracer that holds the first call back a few event-loop turns before it runs.
    const slowFirst: PipelineDeps = {
      ...deps,
      tracer: {
        trace: async (request, execute) => (request.callId === 'a' ? hops(5).then(() => execute()) : execute()),
      },
    };
    const journal = createMemoryJournal();
    const sequencer = createCallSequencer(slowFirst, { journal, signal: AbortSignal.abort() });
    const results = await Promise.all(['a', 'b', 'c'].map((id) => sequencer.submit(work({ id, mode: 'safe' }))));
    expect(results.map((r) => r.error?.code)).toEqual([
      'ABORTED_BEFORE_DISPATCH',
      'ABORTED_BEFORE_DISPATCH',
      'ABORTED_BEFORE_DISPATCH',
    ]);
    const { events } = await journal.read();
    expectJournalWhole(events, ['a', 'b', 'c']);
    await sequencer.close();
  });

  it('checks its options', () => {
    const { deps } = pipeline();
    expect(() => createCallSequencer(deps, { concurrency: -1 })).toThrow(
      'createCallSequencer: expected `concurrency` to be an integer >= 1 (or Infinity), got -1',
    );
    expect(() => createCallSequencer(deps, { agent: 'ghost' })).toThrow(/unknown agent "ghost"/);
    expect(() => createCallSequencer(deps, { signal: {} as AbortSignal })).toThrow(/signal must be an AbortSignal/);
  });
});
