// Step recovery: an internal failure (here a journal that fails on its n-th append)
// stops dispatch and waits for started work, and every call still gets a result —
// committed ones as they were, the rest structured SCHEDULER_FAILURE results saying
// whether the call was dispatched. Nothing is retried; nothing else is invented.
import { describe, expect, it } from '@jest/globals';
import { createToolRuntime, type ToolResult } from '../../src/index.ts';
import { createCallSequencer } from '../../src/scheduler/call-sequencer.ts';
import type { Journal, JournalEvent } from '../../src/journal/journal.ts';
import { replayJournal } from '../../src/journal/replay-journal.ts';
import { SchedulerError } from '../../src/scheduler/scheduler-error.ts';
import { OverlapRecorder, work, workTool, type WorkArgs } from './helpers.ts';
import type { PipelineDeps } from '../../src/pipeline/execute-tool.ts';
import { Hooks } from '../../src/pipeline/hooks.ts';
import { ToolRegistry } from '../../src/registry/tool-registry.ts';

/** A store that fails on its n-th append (1-based), and keeps what it accepted. */
function failingJournal(n: number): Journal & { readonly appended: JournalEvent[]; readonly attempts: () => number } {
  const appended: JournalEvent[] = [];
  let count = 0;
  return {
    appended,
    attempts: () => count,
    async append(events) {
      count += 1;
      if (count === n) throw Object.assign(new Error('disk full'), { code: 'ENOSPC' });
      appended.push(...structuredClone(events));
    },
    async read() {
      return { events: appended, warnings: [] };
    },
  };
}

const TURN: WorkArgs[] = [
  { id: 'a', mode: 'exclusive' },
  { id: 'b', mode: 'safe', hops: 3 },
  { id: 'c', mode: 'safe', hops: 1 },
  { id: 'd', mode: 'exclusive' },
  { id: 'e', mode: 'safe', contexts: 1, conclude: true },
];
const IDS = TURN.map((c) => c.id);

async function runTurn(failAt: number) {
  const journal = failingJournal(failAt);
  const recorder = new OverlapRecorder();
  const rt = createToolRuntime({ sandbox: false, journal });
  rt.register(workTool({ recorder }));
  const observed: string[] = [];
  rt.on('tools/result', (r) => void observed.push(r.callId));
  const turn = await rt.executeTurn(TURN.map((c) => work(c)));
  return { journal, recorder, observed, turn, rt };
}

const failed = (r: ToolResult): boolean => r.error?.code === 'SCHEDULER_FAILURE';

describe('step recovery', () => {
  it('a journal that fails on its 6th append (b’s result): a committed, b and c dispatched, d and e not', async () => {
    // Appends: call a, result a, call b, call c, call d, result b ← fails.
    const { journal, recorder, observed, turn } = await runTurn(6);
    expect(turn.results.map((r) => r.callId)).toEqual(IDS);
    expect(turn.results[0]).toMatchObject({ isError: false, value: { id: 'a' } });
    expect(turn.results.slice(1).map((r) => [r.callId, r.error?.code, r.error?.info?.dispatched])).toEqual([
      ['b', 'SCHEDULER_FAILURE', true],
      ['c', 'SCHEDULER_FAILURE', true],
      ['d', 'SCHEDULER_FAILURE', false],
      ['e', 'SCHEDULER_FAILURE', false],
    ]);
    expect(turn.results[1]!.content).toEqual([
      {
        type: 'text',
        text: 'Error: tool scheduler failed: disk full; the call was dispatched and may have run, but its result was not committed',
      },
    ]);
    expect(turn.results[3]!.error?.message).toBe('tool scheduler failed: disk full; the call was not run');
    expect(Object.isFrozen(turn.results[3]!.error)).toBe(true);
    // Only committed results conclude or carry contexts.
    expect(turn.concludesTurn).toBe(false);
    expect(turn.additionalContexts).toEqual([]);
    // Started work had settled before the turn returned; nothing started after the failure.
    expect(recorder.running.size).toBe(0);
    expect(recorder.events).toEqual(['start:a', 'end:a', 'start:b', 'start:c', 'end:c', 'end:b']);
    // Observers saw only what the journal holds.
    expect(observed).toEqual(['a']);
    // Nothing was appended after the failure: replay shows a, and b, c, d as interrupted.
    expect(journal.attempts()).toBe(6);
    const replay = await replayJournal(journal, { tool: () => undefined });
    expect(replay.executions.map((e) => e.callId)).toEqual(['a']);
    expect(replay.interrupted.map((c) => [c.callId, c.arguments])).toEqual([
      ['b', { id: 'b', mode: 'safe', hops: 3 }],
      ['c', { id: 'c', mode: 'safe', hops: 1 }],
      ['d', { id: 'd', mode: 'exclusive' }],
    ]);
  });

  it('for a failure at any append: a result for every call, a committed prefix, the rest SCHEDULER_FAILURE', async () => {
    const clean = await runTurn(Number.POSITIVE_INFINITY);
    expect(clean.turn.results.every((r) => !r.isError)).toBe(true);
    const appends = clean.journal.attempts();
    expect(appends).toBe(2 * TURN.length);
    for (let n = 1; n <= appends; n += 1) {
      const { journal, recorder, observed, turn } = await runTurn(n);
      expect(turn.results.map((r) => r.callId)).toEqual(IDS);
      const committed = turn.results.findIndex(failed);
      expect(committed).toBeGreaterThanOrEqual(0);
      // Committed results are exactly what a run without failure gives.
      expect(turn.results.slice(0, committed)).toEqual(clean.turn.results.slice(0, committed));
      expect(turn.results.slice(committed).every(failed)).toBe(true);
      expect(observed).toEqual(IDS.slice(0, committed));
      // `dispatched` is true exactly for the bodies that started.
      const started = new Set(
        recorder.events.filter((e) => e.startsWith('start:')).map((e) => e.slice('start:'.length)),
      );
      for (const r of turn.results.slice(committed)) expect(r.error?.info?.dispatched).toBe(started.has(r.callId));
      expect(recorder.running.size).toBe(0);
      // (Work started before the failure may still commit if it is earlier in model order.)
      expect(journal.attempts()).toBeGreaterThanOrEqual(n);
      const replay = await replayJournal(journal, { tool: () => undefined });
      expect(replay.executions.map((e) => e.callId)).toEqual(IDS.slice(0, committed));
      // A call whose write-ahead record was accepted and has no result is interrupted.
      const written = journal.appended.filter((e) => e.type === 'tool/call').map((e) => e.callId);
      expect(replay.interrupted.map((c) => c.callId)).toEqual(
        written.filter((id) => !IDS.slice(0, committed).includes(id)),
      );
    }
  });

  it('the sequencer resolves pending and later submissions with the failure; drain and close reject with it', async () => {
    const deps = pipelineDeps();
    const sequencer = createCallSequencer(deps, { journal: failingJournal(1) });
    const a = await sequencer.submit(work({ id: 'a', mode: 'exclusive' }));
    const b = await sequencer.submit(work({ id: 'b', mode: 'safe' }));
    expect([a, b].map((r) => [r.error?.code, r.error?.info?.dispatched])).toEqual([
      ['SCHEDULER_FAILURE', false],
      ['SCHEDULER_FAILURE', false],
    ]);
    const failure = await sequencer.drain().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SchedulerError);
    expect((failure as SchedulerError).cause).toMatchObject({ code: 'ENOSPC' });
    await expect(sequencer.close()).rejects.toBe(failure);
  });

  it('rt.execute: a failed write-ahead record runs nothing; a failed commit is reported, not observed', async () => {
    for (const [failAt, dispatched, bodies] of [
      [1, false, 0],
      [2, true, 1],
    ] as const) {
      const recorder = new OverlapRecorder();
      const journal = failingJournal(failAt);
      const rt = createToolRuntime({ sandbox: false, journal });
      rt.register(workTool({ recorder }));
      const observed: string[] = [];
      rt.on('tools/result', (r) => void observed.push(r.callId));
      const result = await rt.execute(work({ id: 'x', mode: 'safe' }));
      expect(result).toMatchObject({
        callId: 'x',
        name: 'work',
        isError: true,
        error: { code: 'SCHEDULER_FAILURE', info: { dispatched } },
      });
      expect(recorder.events.filter((e) => e.startsWith('start'))).toHaveLength(bodies);
      expect(observed).toEqual([]);
      // A malformed request is still the caller's error, not a result.
      await expect(rt.execute({ callId: '', name: 'work', arguments: {} })).rejects.toThrow(TypeError);
    }
  });
});

/** A bare pipeline with the `work` tool (what the runtime gives its sequencers). */
function pipelineDeps(): PipelineDeps {
  const registry = new ToolRegistry();
  registry.register(workTool());
  return {
    registry,
    hooks: new Hooks(),
    approval: undefined,
    resolveTool: (name, agent) => registry.resolve(name, agent),
    directCallRefusal: () => undefined,
  };
}
