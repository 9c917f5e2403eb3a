// executeTurn: classification at start (barrier re-classification), the conclude
// reduction, the agent's view, and refusal of malformed input.
import { describe, expect, it } from '@jest/globals';
import { block, createToolRuntime, defineTool } from '../../src/index.ts';
import { contextTexts, OverlapRecorder, work, workRuntime, workTool } from './helpers.ts';

describe('barrier re-classification', () => {
  /** `b` is declared concurrency-safe; the exclusive `upgrade` call may replace it by an exclusive definition. */
  async function run(replace: boolean) {
    const recorder = new OverlapRecorder();
    const rt = createToolRuntime({ sandbox: false });
    let disposeB = rt.register(workTool({ name: 'b', recorder }));
    rt.register(
      workTool({
        name: 'upgrade',
        recorder,
        during: () => {
          if (!replace) return;
          disposeB();
          disposeB = rt.register(
            defineTool({
              name: 'b',
              description: 'b, now exclusive',
              parameters: { id: { type: 'string', required: true } },
              output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'b2' }] },
              isConcurrencySafe: () => false,
              execute: async (args) => {
                recorder.enter(args.id, false);
                await new Promise<void>((resolve) => setImmediate(resolve));
                recorder.exit(args.id);
                return { id: args.id, version: 2 };
              },
            }),
          );
        },
      }),
    );
    // b1 and b2 are submitted (same message) before `upgrade` runs.
    const turn = await rt.executeTurn([
      work({ id: 'u', mode: 'exclusive' }, 'upgrade'),
      work({ id: 'b1', mode: 'safe', hops: 3 }, 'b'),
      work({ id: 'b2', mode: 'safe', hops: 3 }, 'b'),
    ]);
    return { turn, recorder };
  }

  it('without a registry change, the two safe calls overlap', async () => {
    const { turn, recorder } = await run(false);
    expect(turn.results.map((r) => r.isError)).toEqual([false, false, false]);
    expect(recorder.maxParallel).toBe(2);
    expect(recorder.violations).toEqual([]);
  });

  it('a definition swapped by an earlier call makes the later calls barriers', async () => {
    const { turn, recorder } = await run(true);
    expect(turn.results.map((r) => r.value)).toEqual([{ id: 'u' }, { id: 'b1', version: 2 }, { id: 'b2', version: 2 }]);
    expect(recorder.events).toEqual(['start:u', 'end:u', 'start:b1', 'end:b1', 'start:b2', 'end:b2']);
    expect(recorder.violations).toEqual([]);
  });

  it('classifies with the calling agent’s view', async () => {
    const recorder = new OverlapRecorder();
    const rt = createToolRuntime({ sandbox: false });
    rt.register(workTool({ recorder }));
    rt.createAgent('careful');
    // The agent's own `work` declares nothing: every call is exclusive for it.
    rt.register(
      defineTool({
        name: 'work',
        description: 'careful work',
        parameters: { id: { type: 'string', required: true } },
        output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'ok' }] },
        execute: async (args) => {
          recorder.enter(args.id, false);
          await new Promise<void>((resolve) => setImmediate(resolve));
          recorder.exit(args.id);
          return args.id;
        },
      }),
      { agent: 'careful' },
    );
    const turn = await rt.executeTurn([work({ id: 'a', mode: 'safe' }), work({ id: 'b', mode: 'safe' })], {
      agent: 'careful',
    });
    expect(turn.results.map((r) => r.value)).toEqual(['a', 'b']);
    expect(recorder.events).toEqual(['start:a', 'end:a', 'start:b', 'end:b']);
  });
});

describe('concludesTurn reduction', () => {
  it('is true iff a committed result concludes the turn', async () => {
    const { rt } = workRuntime();
    const none = await rt.executeTurn([work({ id: 'a', mode: 'safe' }), work({ id: 'b', mode: 'exclusive' })]);
    expect(none.concludesTurn).toBe(false);

    const one = await rt.executeTurn([
      work({ id: 'a2', mode: 'safe' }),
      work({ id: 'b2', mode: 'safe', conclude: true }),
      work({ id: 'c2', mode: 'exclusive' }),
    ]);
    expect(one.concludesTurn).toBe(true);
    expect(one.results.map((r) => r.concludesTurn)).toEqual([undefined, true, undefined]);

    const empty = await rt.executeTurn([]);
    expect(empty).toEqual({ results: [], additionalContexts: [], concludesTurn: false });
  });

  it('a failed or blocked call that asked to conclude does not end the turn', async () => {
    const { rt } = workRuntime();
    rt.on('tools/post-execute', (exec, _outcome, next) => (exec.callId === 'blocked' ? block('not allowed') : next()));
    const turn = await rt.executeTurn([
      work({ id: 'failing', mode: 'safe', conclude: true, fail: true }),
      work({ id: 'blocked', mode: 'safe', conclude: true }),
    ]);
    expect(turn.results.map((r) => r.error?.code)).toEqual(['TOOL_ERROR', 'BLOCKED']);
    expect(turn.results.map((r) => r.concludesTurn)).toEqual([undefined, undefined]);
    expect(turn.concludesTurn).toBe(false);
  });
});

describe('contexts', () => {
  it('are every result’s additionalContexts, in model order, after all results', async () => {
    const { rt } = workRuntime();
    // The first call finishes last, but its contexts still come first.
    const turn = await rt.executeTurn([
      work({ id: 'slow', mode: 'safe', hops: 8, contexts: 2 }),
      work({ id: 'fast', mode: 'safe', hops: 0, contexts: 1 }),
      work({ id: 'none', mode: 'exclusive' }),
    ]);
    expect(contextTexts(turn.additionalContexts)).toEqual(['body:slow:0', 'body:slow:1', 'body:fast:0']);
    expect(turn.results.map((r) => contextTexts(r.additionalContexts ?? []))).toEqual([
      ['body:slow:0', 'body:slow:1'],
      ['body:fast:0'],
      [],
    ]);
    expect(Object.isFrozen(turn) && Object.isFrozen(turn.results) && Object.isFrozen(turn.additionalContexts)).toBe(
      true,
    );
  });
});

describe('input', () => {
  it('refuses a malformed message whole, before any call starts', async () => {
    const { rt, recorder } = workRuntime();
    const ok = work({ id: 'ok', mode: 'safe' });
    await expect(rt.executeTurn('nope' as never)).rejects.toThrow(/calls must be an array/);
    await expect(rt.executeTurn([ok, { callId: '', name: 'work', arguments: {} }])).rejects.toThrow(
      /calls\[1\]\.callId must be a non-empty string/,
    );
    await expect(rt.executeTurn([ok, { callId: 'x', arguments: {} } as never])).rejects.toThrow(
      /calls\[1\]\.name must be a string/,
    );
    await expect(rt.executeTurn([ok, ok])).rejects.toThrow(/"ok" is used twice/);
    await expect(rt.executeTurn([ok], { agent: 'ghost' })).rejects.toThrow(/unknown agent "ghost"/);
    expect(recorder.events).toEqual([]);
  });

  it('checks the pool size and the journal when the runtime is created', () => {
    expect(() => createToolRuntime({ sandbox: false, concurrency: 0 })).toThrow(
      'expected `concurrency` to be an integer >= 1 (or Infinity), got 0',
    );
    expect(() => createToolRuntime({ sandbox: false, concurrency: 1.5 })).toThrow(/got 1\.5/);
    expect(() => createToolRuntime({ sandbox: false, concurrency: Infinity })).not.toThrow();
    expect(() => createToolRuntime({ sandbox: false, journal: {} as never })).toThrow(
      'createToolRuntime: journal must be a file path or an object with append(events) and read()',
    );
  });

  it('arguments that are not JSON give INVALID_ARGS, and the turn goes on', async () => {
    const { rt, recorder } = workRuntime();
    const turn = await rt.executeTurn([
      { callId: 'bad', name: 'work', arguments: { id: 'bad', mode: 'safe', when: new Date(0) } },
      work({ id: 'good', mode: 'safe' }),
    ]);
    expect(turn.results.map((r) => r.error?.code ?? 'ok')).toEqual(['INVALID_ARGS', 'ok']);
    expect(recorder.events).toEqual(['start:good', 'end:good']);
  });
});
