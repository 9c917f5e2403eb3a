// Composite tools: `exec.callTool(name, args)` inside a body runs `name` as a nested
// call of that execution — parent token, same root and agent, the caller's signal, the
// whole pipeline (policy applies to the inner call), results and contexts ferried as
// run_code ferries them — in every mode, and refused beyond the depth limit.
import { describe, expect, it } from '@jest/globals';
import {
  createMemoryJournal,
  defineTool,
  deny,
  DEFAULT_MAX_CALL_DEPTH,
  type JsonValue,
  type ToolExecution,
  type ToolResult,
} from '../../src/index.ts';
import type { ToolRuntime, ToolRuntimeOptions } from '../../src/runtime/create-tool-runtime.ts';
import { contextTexts, ptcRuntimes, runCode, runValue, untilAborted, userText } from './helpers.ts';

const runtime = ptcRuntimes();

interface Seen {
  readonly callId: string;
  readonly name: string;
  readonly parent: symbol | undefined;
  readonly parentCallId: string | undefined;
  readonly rootCallId: string;
  readonly agent: string | undefined;
  readonly token: symbol;
}

/** `trip` looks up the weather, then books; `book` is denied by policy for every caller. */
function tripRuntime(options: ToolRuntimeOptions = {}) {
  const rt = runtime({ journal: createMemoryJournal(), ...options });
  rt.createAgent('alice');
  const seen: Seen[] = [];
  const keep = (exec: ToolExecution): void =>
    void seen.push({
      callId: exec.callId,
      name: exec.name,
      parent: exec.parent,
      parentCallId: exec.parentCallId,
      rootCallId: exec.rootCallId,
      agent: exec.agent,
      token: exec.token,
    });
  rt.register(
    defineTool({
      name: 'weather',
      description: 'Weather of a city.',
      parameters: { city: { type: 'string', required: true } },
      output: {
        schema: { type: 'json' },
        render: (_a, v) => [
          { type: 'text', text: JSON.stringify(v) },
          { type: 'image', mimeType: 'image/png', data: 'iVBOR' },
        ],
      },
      isConcurrencySafe: () => true,
      presentationMeta: () => ({ meta: true }),
      execute: (args, exec) => {
        exec.deferContext(userText(`forecast for ${args.city}`));
        return { city: args.city, sunny: true };
      },
    }),
    { agent: 'alice' },
  );
  rt.register(
    defineTool({
      name: 'book',
      description: 'Books a trip.',
      parameters: { city: { type: 'string', required: true } },
      output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'booked' }] },
      execute: () => ({ booked: true }),
    }),
    { agent: 'alice' },
  );
  rt.register(
    defineTool({
      name: 'trip',
      description: 'Plans a trip: weather, then booking.',
      parameters: { city: { type: 'string', required: true } },
      output: { schema: { type: 'json' }, render: (_a, v) => [{ type: 'text', text: JSON.stringify(v) }] },
      execute: async (args, exec) => {
        keep(exec);
        const weather = await exec.callTool('weather', { city: args.city });
        const booking = await exec.callTool('book', { city: args.city });
        if (weather.value !== undefined && (weather.value as { sunny: boolean }).sunny) exec.concludeTurn();
        return {
          weather: weather.value ?? null,
          booking: booking.isError ? booking.error!.code : booking.value!,
        } as JsonValue;
      },
    }),
    { agent: 'alice' },
  );
  const pre: string[] = [];
  rt.on('tools/pre-execute', (exec, next) => {
    keep(exec);
    pre.push(exec.callId);
    return exec.name === 'book' ? deny('bookings are frozen') : next();
  });
  const observed: ToolResult[] = [];
  rt.on('tools/result', (result) => void observed.push(result));
  return { rt, seen, pre, observed };
}

/** A `wait` tool that tells `onStart` its signal and settles once that signal aborts. */
function waitForAbort(onStart: (signal: AbortSignal) => void) {
  return defineTool({
    name: 'wait',
    description: 'Waits for its signal.',
    parameters: {},
    output: { schema: { type: 'json' }, render: () => [] },
    execute: async (_a, exec) => {
      onStart(exec.signal);
      await untilAborted(exec.signal);
      return null;
    },
  });
}

/** What every mode must show for one `trip` call with the given callId. */
function expectComposite(
  s: ReturnType<typeof tripRuntime>,
  outerId: string,
  rootCallId: string,
  trip: ToolResult,
): void {
  expect(trip.value).toEqual({ weather: { city: 'Oslo', sunny: true }, booking: 'DENIED' });
  // The inner calls went through policy, as nested calls of the trip execution.
  expect(s.pre.filter((id) => id.startsWith(`${outerId}:call:`))).toEqual([`${outerId}:call:1`, `${outerId}:call:2`]);
  const outer = s.seen.find((e) => e.callId === outerId && e.name === 'trip')!;
  for (const inner of s.seen.filter((e) => e.callId.startsWith(`${outerId}:call:`))) {
    expect(inner).toMatchObject({ parent: outer.token, parentCallId: outerId, rootCallId, agent: 'alice' });
  }
  const innerResults = s.observed.filter((r) => r.callId.startsWith(`${outerId}:call:`));
  expect(innerResults.map((r) => [r.callId, r.error?.code ?? 'ok'])).toEqual([
    [`${outerId}:call:1`, 'ok'],
    [`${outerId}:call:2`, 'DENIED'],
  ]);
  // Nested calls get no presentationMeta; their contexts and images are ferried.
  expect(innerResults[0]!.presentationMeta).toBeUndefined();
  expect(contextTexts(trip.additionalContexts)).toEqual(['forecast for Oslo', '[image image/png]']);
  expect(trip.concludesTurn).toBe(true);
}

describe('composite tools: exec.callTool', () => {
  it('native mode: the inner calls are nested calls of the composite, and policy applies to them', async () => {
    const s = tripRuntime({ mode: 'native' });
    const trip = await s.rt.execute({ callId: 'trip-1', name: 'trip', arguments: { city: 'Oslo' }, agent: 'alice' });
    expectComposite(s, 'trip-1', 'trip-1', trip);
  });

  it('ptc mode: a composite called from run_code makes inner calls that are not refused as model-direct ones', async () => {
    const s = tripRuntime({ mode: 'ptc' });
    // The model itself may not call the composite directly in ptc mode…
    const direct = await s.rt.execute({ callId: 'trip-0', name: 'trip', arguments: { city: 'Oslo' }, agent: 'alice' });
    expect(direct.error?.code).toBe('UNKNOWN_TOOL');
    // …but from a program it runs, and its own inner calls pass the pipeline like any nested call.
    const run = await runCode(s.rt, 'return await tools.trip({ city: "Oslo" });', { callId: 'rc', agent: 'alice' });
    expect(runValue(run).result).toEqual({ weather: { city: 'Oslo', sunny: true }, booking: 'DENIED' });
    const trip = s.observed.find((r) => r.callId === 'rc:ptc:1')!;
    expectComposite(s, 'rc:ptc:1', 'rc', trip);
    const tripSeen = s.seen.find((e) => e.callId === 'rc:ptc:1')!;
    expect(tripSeen.parentCallId).toBe('rc');
    // Ferried twice: from the inner calls to trip, from trip to run_code.
    expect(contextTexts(run.additionalContexts)).toEqual(['forecast for Oslo', '[image image/png]']);
    expect(run.concludesTurn).toBe(true);
  });

  it('both mode: the model may call the composite directly or from a program; the rules are the same', async () => {
    const s = tripRuntime({ mode: 'both' });
    const direct = await s.rt.execute({ callId: 'trip-1', name: 'trip', arguments: { city: 'Oslo' }, agent: 'alice' });
    expectComposite(s, 'trip-1', 'trip-1', direct);
    await runCode(s.rt, 'return await tools.trip({ city: "Oslo" });', { callId: 'rc', agent: 'alice' });
    expectComposite(s, 'rc:ptc:1', 'rc', s.observed.find((r) => r.callId === 'rc:ptc:1')!);
  });

  it('inner calls are journaled under their parent, write-ahead', async () => {
    const journal = createMemoryJournal();
    const s = tripRuntime({ mode: 'native', journal });
    await s.rt.execute({ callId: 'trip-1', name: 'trip', arguments: { city: 'Oslo' }, agent: 'alice' });
    const { events } = await journal.read();
    expect(
      events.map(
        (e) =>
          `${e.type}:${e.callId}${e.type === 'tool/call' && e.parentCallId !== undefined ? `<${e.parentCallId}` : ''}`,
      ),
    ).toEqual([
      'tool/call:trip-1',
      'tool/call:trip-1:call:1<trip-1',
      'tool/result:trip-1:call:1',
      'tool/call:trip-1:call:2<trip-1',
      'tool/result:trip-1:call:2',
      'tool/result:trip-1',
    ]);
    expect(events[1]).toEqual({
      type: 'tool/call',
      callId: 'trip-1:call:1',
      name: 'weather',
      agent: 'alice',
      arguments: { city: 'Oslo' },
      rootCallId: 'trip-1',
      parentCallId: 'trip-1',
    });
  });

  it("the inner call gets the caller's signal; calls left running when the body ends are aborted, later ones refused", async () => {
    const rt = runtime({ mode: 'native' });
    let inner: AbortSignal | undefined;
    rt.register(
      waitForAbort((signal) => {
        inner = signal;
      }),
    );
    let late: Promise<ToolResult> | undefined;
    let leftRunning: Promise<ToolResult> | undefined;
    rt.register(
      defineTool({
        name: 'outer',
        description: 'Composite.',
        parameters: { mode: { type: 'string', required: true } },
        output: { schema: { type: 'json' }, render: () => [] },
        execute: async (args, exec) => {
          if (args.mode === 'await') return (await exec.callTool('wait', {})).error?.code ?? 'ok';
          inner = undefined;
          leftRunning = exec.callTool('wait', {});
          // Return while `wait` is in its body; try another call once the body has ended.
          while (inner === undefined) await new Promise((resolve) => setImmediate(resolve));
          setImmediate(() => {
            late = exec.callTool('wait', {});
            late.catch(() => {});
          });
          return 'returned';
        },
      }),
    );
    const controller = new AbortController();
    const pending = rt.execute({
      callId: 'o1',
      name: 'outer',
      arguments: { mode: 'await' },
      signal: controller.signal,
    });
    while (inner === undefined) await new Promise((resolve) => setImmediate(resolve));
    controller.abort('user stop');
    const cancelled = await pending;
    expect(inner.aborted).toBe(true);
    expect(cancelled.error?.code).toBe('ABORTED');

    const ended = await rt.execute({ callId: 'o2', name: 'outer', arguments: { mode: 'leave' } });
    expect(ended.value).toBe('returned');
    // Drained before the composite's result: the left-running call was aborted and has its result.
    expect((await leftRunning!).error?.code).toBe('ABORTED');
    while (late === undefined) await new Promise((resolve) => setImmediate(resolve));
    await expect(late).rejects.toMatchObject({ code: 'NOT_DISPATCHED' });
  });

  it('a body that returns synchronously with an inner call still pending: the call is aborted and drained before the result', async () => {
    const rt = runtime({ mode: 'native' });
    let started = 0;
    rt.register(
      waitForAbort(() => {
        started += 1;
      }),
    );
    let leftRunning: Promise<ToolResult> | undefined;
    let settledFirst: 'inner' | 'outer' | undefined;
    rt.register(
      defineTool({
        name: 'outer',
        description: 'Composite whose body is not async.',
        parameters: {},
        output: { schema: { type: 'json' }, render: () => [] },
        execute: (_args, exec) => {
          leftRunning = exec.callTool('wait', {});
          void leftRunning.then(() => {
            settledFirst ??= 'inner';
          });
          return 'returned';
        },
      }),
    );
    const result = await rt.execute({ callId: 'o1', name: 'outer', arguments: {} });
    settledFirst ??= 'outer';
    expect(result.value).toBe('returned');
    expect(settledFirst).toBe('inner');
    expect({ started, code: (await leftRunning!).error?.code }).toEqual({
      started: 0,
      code: 'ABORTED_BEFORE_DISPATCH',
    });
  });

  it(`recursion is refused beyond maxCallDepth (default ${DEFAULT_MAX_CALL_DEPTH}), through the pipeline`, async () => {
    for (const maxCallDepth of [undefined, 3]) {
      const rt = runtime({ mode: 'native', ...(maxCallDepth === undefined ? {} : { maxCallDepth }) });
      const depths: string[] = [];
      rt.register(
        defineTool({
          name: 'deeper',
          description: 'Calls itself.',
          parameters: {},
          output: { schema: { type: 'json' }, render: () => [] },
          execute: async (_a, exec) => {
            depths.push(exec.callId);
            const next = await exec.callTool('deeper', {});
            return next.isError ? { refused: next.error!.code, info: next.error!.info ?? null } : next.value!;
          },
        }),
      );
      const refusedIds: string[] = [];
      rt.on('tools/result', (r) => void (r.error?.code === 'NESTING_TOO_DEEP' && refusedIds.push(r.callId)));
      const result = await rt.execute({ callId: 'd', name: 'deeper', arguments: {} });
      const limit = maxCallDepth ?? DEFAULT_MAX_CALL_DEPTH;
      // Depths 0..limit ran their bodies; the call at depth limit+1 was refused before policy.
      expect(depths).toHaveLength(limit + 1);
      expect(depths.at(-1)).toBe(`d${':call:1'.repeat(limit)}`);
      expect(result.value).toEqual({ refused: 'NESTING_TOO_DEEP', info: { depth: limit + 1, maxCallDepth: limit } });
      expect(refusedIds).toEqual([`d${':call:1'.repeat(limit + 1)}`]);
    }
  });

  it('recursion through run_code (a composite runs a program that calls the composite) ends at the limit too', async () => {
    const rt = runtime({ mode: 'both', maxCallDepth: 4 });
    const ids: string[] = [];
    rt.register(
      defineTool({
        name: 'loop',
        description: 'Runs a program that calls loop again.',
        parameters: {},
        output: { schema: { type: 'json' }, render: () => [] },
        execute: async (_a, exec) => {
          ids.push(exec.callId);
          const run = await exec.callTool('run_code', {
            description: 'Go deeper',
            code: 'try { return await tools.loop({}); } catch (e) { return e.code; }',
          });
          return run.isError ? run.error!.code : ((run.value as { result?: JsonValue }).result ?? null);
        },
      }),
    );
    const result = await rt.execute({ callId: 'x', name: 'loop', arguments: {} });
    // loop (0) → run_code (1) → loop (2) → run_code (3) → loop (4) → run_code (5): refused.
    expect(ids).toEqual(['x', 'x:call:1:ptc:1', 'x:call:1:ptc:1:call:1:ptc:1']);
    expect(result.value).toBe('NESTING_TOO_DEEP');
  });

  it('refuses a bad name and a bad maxCallDepth clearly', async () => {
    expect(() => runtime({ maxCallDepth: 0 })).toThrow(
      'createToolRuntime: expected `maxCallDepth` to be an integer >= 1, got 0',
    );
    const rt: ToolRuntime = runtime({ mode: 'native' });
    rt.register(
      defineTool({
        name: 'bad',
        description: 'Calls with a bad name.',
        parameters: {},
        output: { schema: { type: 'json' }, render: () => [] },
        execute: async (_a, exec) => {
          await exec.callTool(42 as unknown as string, {});
          return null;
        },
      }),
    );
    const result = await rt.execute({ callId: 'b', name: 'bad', arguments: {} });
    expect(result.error).toMatchObject({
      code: 'TOOL_ERROR',
      message: 'exec.callTool: name must be a non-empty tool name, got number',
    });
  });
});
