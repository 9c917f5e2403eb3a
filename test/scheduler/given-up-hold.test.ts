// A call given up on while its body still runs (TOOL_TIMEOUT, or ABORTED after its
// caller's abort) keeps its slot: exclusive calls are barriers, so no later exclusive
// body — and no body after an exclusive call — starts before the stubborn body settles.
// The wait is bounded by holdAfterGiveUpMs: then the rest of the sequence fails with
// SCHEDULER_FAILURE (not run), it never hangs and never overlaps.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import { createToolRuntime, defineTool, type Tool, type ToolResult, type UnsettledBody } from '../../src/index.ts';
import type { PipelineDeps } from '../../src/pipeline/execute-tool.ts';
import { Hooks } from '../../src/pipeline/hooks.ts';
import { ToolRegistry } from '../../src/registry/tool-registry.ts';
import type { ToolRuntimeOptions } from '../../src/runtime/create-tool-runtime.ts';
import { createCallSequencer } from '../../src/scheduler/call-sequencer.ts';
import { deferred, OverlapRecorder } from './helpers.ts';

interface Harness {
  readonly rt: ReturnType<typeof createToolRuntime>;
  readonly tools: readonly Tool[];
  readonly recorder: OverlapRecorder;
  /** Lets the stubborn body (which ignores its signal) finish. */
  readonly release: () => void;
  /** Resolves when the stubborn call's result has committed. */
  readonly stubbornCommitted: Promise<ToolResult>;
  readonly reports: UnsettledBody[];
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `stubborn` ignores its signal until released; `quick` records its body; modes come from the arguments. */
function harness(options: ToolRuntimeOptions = {}, stubbornParallel = false): Harness {
  const recorder = new OverlapRecorder();
  const gate = deferred<void>();
  const committed = deferred<ToolResult>();
  const reports: UnsettledBody[] = [];
  const rt = createToolRuntime({
    sandbox: false,
    timeoutPolicy: { graceMs: 10, onUnsettled: (r) => void reports.push(r) },
    onUnsettled: (r) => void reports.push(r),
    ...options,
  });
  const tools: Tool[] = [];
  tools.push(
    defineTool({
      name: 'stubborn',
      description: 'ignores its abort signal',
      parameters: {},
      timeoutMs: 20,
      output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'late' }] },
      isConcurrencySafe: () => stubbornParallel,
      execute: async () => {
        recorder.enter('stubborn', stubbornParallel);
        await gate.promise;
        recorder.exit('stubborn');
        return 'late';
      },
    }),
  );
  tools.push(
    defineTool({
      name: 'quick',
      description: 'records its body',
      parameters: { id: { type: 'string', required: true }, parallel: { type: 'boolean' } },
      output: { schema: { type: 'string' }, render: (_args, id) => [{ type: 'text', text: id }] },
      isConcurrencySafe: (args) => args.parallel === true,
      execute: async (args) => {
        recorder.enter(args.id, args.parallel === true);
        await delay(1);
        recorder.exit(args.id);
        return args.id;
      },
    }),
  );
  for (const tool of tools) rt.register(tool);
  rt.on('tools/result', (result) => {
    if (result.name === 'stubborn') committed.resolve(result);
  });
  return { rt, tools, recorder, release: () => gate.resolve(), stubbornCommitted: committed.promise, reports };
}

describe('a call given up on keeps its slot until its body settles', () => {
  it('after a TOOL_TIMEOUT give-up, the next exclusive call waits for the stubborn body', async () => {
    const h = harness();
    const turn = h.rt.executeTurn([
      { callId: 's', name: 'stubborn', arguments: {} },
      { callId: 'q', name: 'quick', arguments: { id: 'next' } },
    ]);
    const given = await h.stubbornCommitted;
    expect(given.error).toMatchObject({ code: 'TOOL_TIMEOUT', info: { bodySettled: false } });
    // The give-up is reported at once, the slot is still held.
    expect(h.reports.map((r) => [r.callId, r.reason])).toEqual([['s', 'timeout']]);
    await delay(100);
    expect(h.recorder.events).toEqual(['start:stubborn']);
    h.release();
    const { results } = await turn;
    expect(results.map((r) => r.isError)).toEqual([true, false]);
    expect(h.recorder.events).toEqual(['start:stubborn', 'end:stubborn', 'start:next', 'end:next']);
    expect(h.recorder.violations).toEqual([]);
  });

  it('parallel calls after the stubborn exclusive call wait too; the commit order is kept', async () => {
    const h = harness();
    const turn = h.rt.executeTurn([
      { callId: 's', name: 'stubborn', arguments: {} },
      { callId: 'p1', name: 'quick', arguments: { id: 'p1', parallel: true } },
      { callId: 'p2', name: 'quick', arguments: { id: 'p2', parallel: true } },
    ]);
    await h.stubbornCommitted;
    await delay(50);
    expect(h.recorder.events).toEqual(['start:stubborn']);
    h.release();
    const { results } = await turn;
    expect(results.map((r) => r.callId)).toEqual(['s', 'p1', 'p2']);
    expect(h.recorder.violations).toEqual([]);
  });

  it('a stubborn parallel body holds the next exclusive call (a barrier waits for every earlier body)', async () => {
    const h = harness({}, true);
    const turn = h.rt.executeTurn([
      { callId: 'p', name: 'quick', arguments: { id: 'p', parallel: true } },
      { callId: 's', name: 'stubborn', arguments: {} },
      { callId: 'x', name: 'quick', arguments: { id: 'x' } },
    ]);
    await h.stubbornCommitted;
    await delay(50);
    expect(h.recorder.events).not.toContain('start:x');
    h.release();
    const { results } = await turn;
    expect(results.map((r) => r.error?.code)).toEqual([undefined, 'TOOL_TIMEOUT', undefined]);
    expect(h.recorder.violations).toEqual([]);
    expect(h.recorder.events.indexOf('end:stubborn')).toBeLessThan(h.recorder.events.indexOf('start:x'));
  });

  it('the same holds after an abort give-up (reason aborted) of a call with its own signal', async () => {
    const h = harness();
    // A bare pipeline (what run_code and composite tools get), no timeout policy.
    const registry = new ToolRegistry();
    for (const tool of h.tools) registry.register(tool);
    const deps: PipelineDeps = {
      registry,
      hooks: new Hooks(),
      approval: undefined,
      resolveTool: (name, agent) => registry.resolve(name, agent),
      directCallRefusal: () => undefined,
      abortGraceMs: 10,
      onUnsettled: (r) => void h.reports.push(r),
    };
    const own = new AbortController();
    const sequencer = createCallSequencer(deps);
    const first = sequencer.submit({ callId: 's', name: 'stubborn', arguments: {}, signal: own.signal });
    const second = sequencer.submit({ callId: 'q', name: 'quick', arguments: { id: 'next' } });
    await delay(20);
    own.abort();
    expect((await first).error).toMatchObject({ code: 'ABORTED', info: { bodySettled: false } });
    expect(h.reports.map((r) => [r.callId, r.reason])).toEqual([['s', 'aborted']]);
    await delay(50);
    expect(h.recorder.events).toEqual(['start:stubborn']);
    h.release();
    expect((await second).isError).toBe(false);
    await sequencer.close();
    expect(h.recorder.violations).toEqual([]);
  });
});

describe("inside a run_code program (the run's own sequence)", () => {
  const sandbox = createSandbox({ isolation: 'in-process' });
  afterAll(() => sandbox.close());

  it('the next call of the program waits for the stubborn body, after the program got its TOOL_TIMEOUT', async () => {
    const h = harness({ mode: 'ptc', sandbox });
    const code = `
      let first;
      try { await tools.stubborn({}); } catch (e) { first = e.code; }
      const second = await tools.quick({ id: 'next' });
      return { first, second };`;
    const run = h.rt.execute({ callId: 'r1', name: 'run_code', arguments: { description: 'two calls', code } });
    await h.stubbornCommitted;
    await delay(100);
    expect(h.recorder.events).toEqual(['start:stubborn']);
    h.release();
    const result = await run;
    expect(result.isError).toBe(false);
    expect((result.value as { result: unknown }).result).toEqual({ first: 'TOOL_TIMEOUT', second: 'next' });
    expect(h.recorder.events).toEqual(['start:stubborn', 'end:stubborn', 'start:next', 'end:next']);
    expect(h.recorder.violations).toEqual([]);
  });

  it('past holdAfterGiveUpMs the program sees SCHEDULER_FAILURE for its next call, which does not run', async () => {
    const h = harness({ mode: 'ptc', sandbox, holdAfterGiveUpMs: 100 });
    const code = `
      try { await tools.stubborn({}); } catch {}
      try { await tools.quick({ id: 'next' }); return 'ran'; } catch (e) { return e.code; }`;
    const result = await h.rt.execute({ callId: 'r2', name: 'run_code', arguments: { description: 'x', code } });
    expect((result.value as { result: unknown }).result).toBe('SCHEDULER_FAILURE');
    expect(h.recorder.events).toEqual(['start:stubborn']);
    h.release();
  });
});

describe('the hold is bounded and observable', () => {
  it('a body that never settles: after holdAfterGiveUpMs the rest of the turn fails with SCHEDULER_FAILURE, not run', async () => {
    const h = harness({ holdAfterGiveUpMs: 150 });
    const started = performance.now();
    const { results } = await h.rt.executeTurn([
      { callId: 's', name: 'stubborn', arguments: {} },
      { callId: 'q1', name: 'quick', arguments: { id: 'q1' } },
      { callId: 'q2', name: 'quick', arguments: { id: 'q2', parallel: true } },
    ]);
    const waited = performance.now() - started;
    expect(results[0]!.error).toMatchObject({ code: 'TOOL_TIMEOUT', info: { bodySettled: false } });
    for (const r of results.slice(1)) {
      expect(r.error?.code).toBe('SCHEDULER_FAILURE');
      expect(r.error?.info).toEqual({ dispatched: false });
      expect(r.error?.message).toContain('was given up on, but its body was still running 150 ms later');
      expect(r.error?.message).toContain('holdAfterGiveUpMs');
    }
    // Neither later body ever ran beside the stubborn one.
    expect(h.recorder.events).toEqual(['start:stubborn']);
    // Bounded: the 20 ms deadline + 10 ms grace + the 150 ms hold, generously.
    expect(waited).toBeGreaterThanOrEqual(150);
    expect(waited).toBeLessThan(10_000);
    h.release();
  });

  it("the turn's abort cuts the wait: the waiting calls get ABORTED_BEFORE_DISPATCH at once", async () => {
    const h = harness();
    const controller = new AbortController();
    const turn = h.rt.executeTurn(
      [
        { callId: 's', name: 'stubborn', arguments: {} },
        { callId: 'q', name: 'quick', arguments: { id: 'q' } },
      ],
      { signal: controller.signal },
    );
    await h.stubbornCommitted;
    controller.abort();
    const { results } = await turn;
    expect(results.map((r) => r.error?.code)).toEqual(['TOOL_TIMEOUT', 'ABORTED_BEFORE_DISPATCH']);
    expect(h.recorder.events).toEqual(['start:stubborn']);
    h.release();
  });

  it('the turn itself does not wait for a given-up body: its result is final when the turn returns', async () => {
    const h = harness({ holdAfterGiveUpMs: 60_000 });
    const turn = h.rt.executeTurn([{ callId: 's', name: 'stubborn', arguments: {} }]);
    // The turn does not wait for the body: its result is final.
    const { results } = await turn;
    expect(results[0]!.error?.code).toBe('TOOL_TIMEOUT');
    h.release();
  });

  it('refuses a malformed holdAfterGiveUpMs', () => {
    expect(() => createToolRuntime({ sandbox: false, holdAfterGiveUpMs: -1 })).toThrow(
      'createToolRuntime: holdAfterGiveUpMs must be a finite number of milliseconds >= 0, got -1',
    );
    expect(() => createToolRuntime({ sandbox: false, holdAfterGiveUpMs: Number.NaN })).toThrow(/holdAfterGiveUpMs/);
  });
});
