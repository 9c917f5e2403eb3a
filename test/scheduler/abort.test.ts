// Abort at every stage of a turn: nothing new starts, started calls drain, commits
// stay in order, and every call gets a result (unstarted ones ABORTED_BEFORE_DISPATCH,
// through the pipeline, observers included).
import { describe, expect, it } from '@jest/globals';
import { ask, createToolRuntime, type ApprovalService, type ToolResult } from '../../src/index.ts';
import { createMemoryJournal } from '../../src/journal/memory/memory-journal.ts';
import { deferred, expectJournalWhole, OverlapRecorder, work, workTool, type WorkToolOptions } from './helpers.ts';

function setup(options: WorkToolOptions & { readonly approval?: ApprovalService; readonly concurrency?: number } = {}) {
  const controller = new AbortController();
  const recorder = new OverlapRecorder();
  const journal = createMemoryJournal();
  const rt = createToolRuntime({
    sandbox: false,
    journal,
    ...(options.approval === undefined ? {} : { approval: options.approval }),
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
  });
  rt.register(workTool({ ...options, recorder }));
  const preSeen: string[] = [];
  const observed: string[] = [];
  rt.on('tools/pre-execute', (exec, next) => {
    preSeen.push(exec.callId);
    return next();
  });
  rt.on('tools/result', (result) => {
    observed.push(result.callId);
  });
  return { rt, controller, recorder, journal, preSeen, observed };
}

const codes = (results: readonly ToolResult[]): string[] => results.map((r) => r.error?.code ?? 'ok');
const abortedSignal = (signal: AbortSignal): Promise<void> =>
  signal.aborted
    ? Promise.resolve()
    : new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

/** Every call has exactly one result, committed in model order (results, observers, journal results). */
async function expectWhole(
  s: ReturnType<typeof setup>,
  ids: readonly string[],
  results: readonly ToolResult[],
): Promise<void> {
  expect(results.map((r) => r.callId)).toEqual(ids);
  expect(s.observed).toEqual(ids);
  const { events } = await s.journal.read();
  expectJournalWhole(events, ids);
  expect(s.recorder.violations).toEqual([]);
}

describe('abort', () => {
  it('before the turn: no policy, no body, every call ABORTED_BEFORE_DISPATCH', async () => {
    const s = setup();
    s.controller.abort();
    const ids = ['a', 'b', 'c'];
    const turn = await s.rt.executeTurn(
      ids.map((id, i) => work({ id, mode: i === 1 ? 'exclusive' : 'safe' })),
      { signal: s.controller.signal },
    );
    expect(codes(turn.results)).toEqual([
      'ABORTED_BEFORE_DISPATCH',
      'ABORTED_BEFORE_DISPATCH',
      'ABORTED_BEFORE_DISPATCH',
    ]);
    expect(turn.results[0]!.content).toEqual([{ type: 'text', text: 'Error: tool call aborted before dispatch' }]);
    expect(s.preSeen).toEqual([]);
    expect(s.recorder.events).toEqual([]);
    await expectWhole(s, ids, turn.results);
  });

  it('during pre-policy: that call is rechecked before dispatch, later calls never start', async () => {
    const s = setup();
    s.rt.on('tools/pre-execute', (exec, next) => {
      if (exec.callId === 'b') s.controller.abort();
      return next();
    });
    const ids = ['a', 'b', 'c', 'd'];
    const turn = await s.rt.executeTurn(
      [
        work({ id: 'a', mode: 'exclusive' }),
        work({ id: 'b', mode: 'safe' }),
        work({ id: 'c', mode: 'safe' }),
        work({ id: 'd', mode: 'exclusive' }),
      ],
      {
        signal: s.controller.signal,
      },
    );
    expect(codes(turn.results)).toEqual([
      'ok',
      'ABORTED_BEFORE_DISPATCH',
      'ABORTED_BEFORE_DISPATCH',
      'ABORTED_BEFORE_DISPATCH',
    ]);
    expect(s.preSeen).toEqual(['a', 'b']);
    expect(s.recorder.events).toEqual(['start:a', 'end:a']);
    await expectWhole(s, ids, turn.results);
  });

  it('while waiting for approval: the abort is rechecked after the answer', async () => {
    const approval: ApprovalService = {
      async request(request) {
        await abortedSignal(request.signal);
        return 'allowed-once';
      },
    };
    const s = setup({ approval });
    s.rt.on('tools/pre-execute', (exec, next) => (exec.callId === 'a' ? ask() : next()));
    const turn = s.rt.executeTurn([work({ id: 'a', mode: 'safe' }), work({ id: 'b', mode: 'safe' })], {
      signal: s.controller.signal,
    });
    await new Promise<void>((resolve) => setImmediate(resolve));
    s.controller.abort();
    const { results } = await turn;
    expect(codes(results)).toEqual(['ABORTED_BEFORE_DISPATCH', 'ABORTED_BEFORE_DISPATCH']);
    expect(s.recorder.events).toEqual([]);
    expect(s.preSeen).toEqual(['a']);
    await expectWhole(s, ['a', 'b'], results);
  });

  it('during an exclusive body: it drains (ABORTED), later calls never start', async () => {
    const s = setup({
      during: (args) => {
        if (args.id === 'b') s.controller.abort();
      },
    });
    const ids = ['a', 'b', 'c', 'd'];
    const turn = await s.rt.executeTurn(
      [
        work({ id: 'a', mode: 'safe' }),
        work({ id: 'b', mode: 'exclusive' }),
        work({ id: 'c', mode: 'safe' }),
        work({ id: 'd', mode: 'exclusive' }),
      ],
      {
        signal: s.controller.signal,
      },
    );
    expect(codes(turn.results)).toEqual(['ok', 'ABORTED', 'ABORTED_BEFORE_DISPATCH', 'ABORTED_BEFORE_DISPATCH']);
    expect(turn.results[1]!.content).toEqual([{ type: 'text', text: 'Error: tool call aborted' }]);
    expect(s.recorder.events).toEqual(['start:a', 'end:a', 'start:b', 'end:b']);
    expect(s.preSeen).toEqual(['a', 'b']);
    await expectWhole(s, ids, turn.results);
  });

  it('while parallel bodies run: running ones drain, calls queued in the pool never run their body', async () => {
    const bStarted = deferred();
    const s = setup({
      concurrency: 2,
      during: async (args, exec) => {
        if (args.id === 'a') {
          await bStarted.promise;
          s.controller.abort();
        }
        if (args.id === 'b') {
          bStarted.resolve();
          await abortedSignal(exec.signal);
        }
      },
    });
    const ids = ['a', 'b', 'c', 'd', 'e'];
    const turn = await s.rt.executeTurn(
      [
        work({ id: 'a', mode: 'safe' }),
        work({ id: 'b', mode: 'safe' }),
        work({ id: 'c', mode: 'safe' }),
        work({ id: 'd', mode: 'safe' }),
        work({ id: 'e', mode: 'exclusive' }),
      ],
      { signal: s.controller.signal },
    );
    expect(codes(turn.results)).toEqual([
      'ABORTED',
      'ABORTED',
      'ABORTED_BEFORE_DISPATCH',
      'ABORTED_BEFORE_DISPATCH',
      'ABORTED_BEFORE_DISPATCH',
    ]);
    expect(new Set(s.recorder.events)).toEqual(new Set(['start:a', 'start:b', 'end:a', 'end:b']));
    expect(s.recorder.running.size).toBe(0);
    await expectWhole(s, ids, turn.results);
  });

  it('while an exclusive call waits at its barrier: it never runs its body', async () => {
    const s = setup({
      during: async (args) => {
        if (args.id === 'a') {
          // By now `b` has passed its policy and waits for `a` to commit.
          await new Promise<void>((resolve) => setImmediate(resolve));
          s.controller.abort();
        }
      },
    });
    const turn = await s.rt.executeTurn(
      [work({ id: 'a', mode: 'safe' }), work({ id: 'b', mode: 'exclusive' }), work({ id: 'c', mode: 'safe' })],
      { signal: s.controller.signal },
    );
    expect(codes(turn.results)).toEqual(['ABORTED', 'ABORTED_BEFORE_DISPATCH', 'ABORTED_BEFORE_DISPATCH']);
    expect(s.preSeen).toEqual(['a', 'b']);
    expect(s.recorder.events).toEqual(['start:a', 'end:a']);
    await expectWhole(s, ['a', 'b', 'c'], turn.results);
  });

  it('during post-policy: the finished call keeps its outcome, later calls never start', async () => {
    const s = setup();
    s.rt.on('tools/post-execute', (exec, _outcome, next) => {
      if (exec.callId === 'a') s.controller.abort();
      return next();
    });
    const turn = await s.rt.executeTurn(
      [work({ id: 'a', mode: 'exclusive' }), work({ id: 'b', mode: 'safe' }), work({ id: 'c', mode: 'exclusive' })],
      { signal: s.controller.signal },
    );
    expect(codes(turn.results)).toEqual(['ok', 'ABORTED_BEFORE_DISPATCH', 'ABORTED_BEFORE_DISPATCH']);
    expect(s.preSeen).toEqual(['a']);
    expect(s.recorder.events).toEqual(['start:a', 'end:a']);
    await expectWhole(s, ['a', 'b', 'c'], turn.results);
  });

  it('after the turn: a later abort changes nothing', async () => {
    const s = setup();
    const turn = await s.rt.executeTurn([work({ id: 'a', mode: 'safe' })], { signal: s.controller.signal });
    s.controller.abort();
    expect(codes(turn.results)).toEqual(['ok']);
  });
});
