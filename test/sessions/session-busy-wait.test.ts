// `sessions.busyWaitMs`: a program naming a session another program is running on waits
// for it (bounded), then runs on what the first saved — or, past the bound, is refused
// SESSION_BUSY and does not run. The store is the memory one, watched: the test lets the
// first program finish only once the second has found the session busy.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import { createToolRuntime, defineTool, type RunSessionValue, type ToolResult } from '../../src/index.ts';
import { createMemorySessionStore } from '../../src/sessions/memory-session-store.ts';
import type { SessionStore } from '../../src/sessions/session-store.ts';
import type { ToolRuntime } from '../../src/runtime/create-tool-runtime.ts';
import { gate, type Gate } from '../support/gate.ts';

let sandbox: Sandbox;
let counter = 0;
const open: ToolRuntime[] = [];
beforeAll(() => {
  sandbox = createSandbox({ poolSize: 2 });
});
afterAll(async () => {
  await Promise.all(open.map((rt) => rt.close()));
  await sandbox.close();
});

/** A runtime whose store opens `busySeen` the first time a lease finds the session busy; `slow` holds until `held` opens. */
function host(busyWaitMs: number, held: Gate, entered: Gate, busySeen: Gate): ToolRuntime {
  const memory = createMemorySessionStore();
  const store: SessionStore = {
    ...memory,
    leaseSession: async (...args) => {
      const outcome = await memory.leaseSession(...args);
      if (outcome.kind === 'busy') busySeen.open();
      return outcome;
    },
  };
  const rt = createToolRuntime({ mode: 'ptc', sandbox, sessions: { store, busyWaitMs } });
  open.push(rt);
  rt.register(
    defineTool({
      name: 'slow',
      description: 'Waits.',
      parameters: {},
      output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'ok' }] },
      isConcurrencySafe: () => true,
      execute: async () => {
        entered.open();
        await held.passed;
        return 'ok';
      },
    }),
  );
  return rt;
}

const run = (rt: ToolRuntime, code: string, session?: string): Promise<ToolResult> =>
  rt.execute({
    callId: `rc${(counter += 1)}`,
    name: 'run_code',
    arguments: { description: 'Use the session', code, ...(session === undefined ? {} : { session }) },
  });
const sessionOf = (result: ToolResult): RunSessionValue =>
  (result.value as unknown as { session: RunSessionValue }).session;

describe('sessions.busyWaitMs', () => {
  it('the second program waits for the first, then runs on its save', async () => {
    const held = gate();
    const entered = gate();
    const busySeen = gate();
    const rt = host(60_000, held, entered, busySeen);
    const { id } = sessionOf(await run(rt, 'state.n = 0;'));
    const first = run(rt, 'await tools.slow({}); state.n += 1;', id);
    await entered.passed;
    const second = run(rt, 'state.n += 100; return state.n;', id);
    await busySeen.passed;
    held.open();
    expect(sessionOf(await first).notSaved).toBeUndefined();
    const after = await second;
    expect(after.isError).toBe(false);
    expect((after.value as { result: unknown }).result).toBe(101);
  });

  it('past the bound, SESSION_BUSY: the program did not run', async () => {
    const held = gate();
    const entered = gate();
    const busySeen = gate();
    const rt = host(300, held, entered, busySeen);
    const { id } = sessionOf(await run(rt, 'state.n = 0;'));
    const first = run(rt, 'await tools.slow({}); state.n += 1;', id);
    await entered.passed;
    const second = await run(rt, 'state.n += 100;', id);
    expect(second.error?.code).toBe('SESSION_BUSY');
    expect(second.error?.message).toMatch(/still after waiting 300 ms \(busyWaitMs\)/u);
    held.open();
    await first;
    expect((await run(rt, 'return state.n;', id)).value).toMatchObject({ result: 1 });
  });

  it('refuses a bound that is not a non-negative integer, or over 10 minutes', () => {
    expect(() => createToolRuntime({ sessions: { busyWaitMs: -1 } })).toThrow(
      /busyWaitMs must be an integer from 0 to 600000/u,
    );
    expect(() => createToolRuntime({ sessions: { busyWaitMs: 600_001 } })).toThrow(/busyWaitMs/u);
  });
});
