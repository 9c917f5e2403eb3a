// Sessions in the journal's stores, on a throwaway PostgreSQL cluster and a SQLite file
// (no mock): a session started on one host continues on another host of the same
// database, and survives a restart; a second program on a busy session is refused from
// another host too; a paused run reads the state it started with, and its resume saves
// into the session once (or, when another program saved in between, not at all).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import {
  createToolRuntime,
  defineTool,
  type JsonValue,
  type PausedRun,
  type RunSessionValue,
  type ToolResult,
} from '../../src/index.ts';
import type { ToolRuntime } from '../../src/runtime/create-tool-runtime.ts';
import { gate } from '../support/gate.ts';
import { startPostgres, type PostgresCluster } from '../support/postgres-cluster.ts';
import { registerGatedTools, pausingApproval } from '../durable-runs/fixtures/gated-tools.ts';

let cluster: PostgresCluster;
let sandbox: Sandbox;
let dir = '';
let counter = 0;
const open: ToolRuntime[] = [];
beforeAll(async () => {
  cluster = await startPostgres();
  sandbox = createSandbox({ poolSize: 1 });
  dir = await mkdtemp(join(tmpdir(), 'ptc-sessions-'));
}, 120_000);
afterAll(async () => {
  await Promise.all(open.map((rt) => rt.close()));
  await sandbox?.close();
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** A "host": its own runtime (and journal connection) on the shared store. */
function host(journal: string, extra: Parameters<typeof createToolRuntime>[0] = {}): ToolRuntime {
  const rt = createToolRuntime({ mode: 'ptc', sandbox, journal, sessions: true, ...extra });
  open.push(rt);
  return rt;
}

function run(rt: ToolRuntime, code: string, session?: string, callId = `rc${(counter += 1)}`): Promise<ToolResult> {
  return rt.execute({
    callId,
    name: 'run_code',
    arguments: { description: 'Use the session', code, ...(session === undefined ? {} : { session }) },
  });
}

function sessionOf(result: ToolResult): RunSessionValue {
  if (result.isError) throw new Error(`run_code failed: ${result.error?.code} ${result.error?.message}`);
  return (result.value as unknown as { session: RunSessionValue }).session;
}

const resultOf = (result: ToolResult): JsonValue | undefined => (result.value as { result?: JsonValue }).result;

function registerOrders(rt: ToolRuntime, counted: { calls: number }): void {
  rt.register(
    defineTool({
      name: 'listOrders',
      description: 'All orders.',
      parameters: {},
      output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'orders' }] },
      execute: () => {
        counted.calls += 1;
        return Array.from({ length: 500 }, (_, i) => ({ id: `o${i}`, total: i, status: i % 5 === 0 ? 'late' : 'ok' }));
      },
    }),
  );
}

describe('sessions on PostgreSQL', () => {
  it('a session started on host A continues on host B, and after a restart', async () => {
    const url = await cluster.createDatabase(`sess${(counter += 1)}`);
    const counted = { calls: 0 };
    const a = host(url);
    const b = host(url);
    registerOrders(a, counted);
    registerOrders(b, counted);
    const first = await run(a, 'state.orders = await tools.listOrders({}); return state.orders.length;');
    const { id } = sessionOf(first);
    const onB = await run(b, 'return state.orders.filter((o) => o.status === "late").length;', id);
    expect(resultOf(onB)).toBe(100);
    expect(counted.calls).toBe(1);
    await a.close();
    await b.close();
    const restarted = host(url);
    expect(resultOf(await run(restarted, 'return state.orders.length;', id))).toBe(500);
    const other = await run(restarted, 'return 1;', 'not-a-session');
    expect(other.error?.code).toBe('SESSION_EXPIRED');
    expect((await restarted.sessions.list()).map((s) => s.id)).toEqual([id]);
  });

  it('refuses a second program of a session from another host while the first runs, then takes its save', async () => {
    const url = await cluster.createDatabase(`sess${(counter += 1)}`);
    const held = gate();
    const entered = gate();
    const a = host(url);
    const b = host(url);
    a.register(
      defineTool({
        name: 'slow',
        description: 'Waits.',
        parameters: {},
        output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'ok' }] },
        execute: async () => {
          entered.open();
          await held.passed;
          return 'ok';
        },
      }),
    );
    const { id } = sessionOf(await run(a, 'state.n = 0;'));
    const first = run(a, 'await tools.slow({}); state.n += 1;', id);
    await entered.passed;
    const second = await run(b, 'state.n += 100;', id);
    expect(second.error?.code).toBe('SESSION_BUSY');
    held.open();
    expect(sessionOf(await first).notSaved).toBeUndefined();
    expect(resultOf(await run(b, 'return state.n;', id))).toBe(1);
  });

  it('a paused run reads the state it started with; its resume saves into the session once', async () => {
    const url = await cluster.createDatabase(`sess${(counter += 1)}`);
    const bodyLog = join(dir, `body${counter}.log`);
    const rt = host(url, { approval: pausingApproval });
    registerGatedTools(rt, bodyLog);
    const { id } = sessionOf(await run(rt, 'state.n = 1;'));
    const program = 'const before = state.n; await tools.write({ v: before }); state.n = before + 10; return before;';
    const paused = (await run(rt, program, id)).value as unknown as { paused: PausedRun };
    const pending = paused.paused.pending[0]!;
    // While it waits, another program may use the session: the pause holds nothing.
    expect(sessionOf(await run(rt, 'state.seen = true;', id)).notSaved).toBeUndefined();
    const resumed = await rt.resume(paused.paused.runId, { [pending.callId]: 'approve' });
    // It read n = 1 (its start), and its save lost to the program that saved in between.
    expect(resultOf(resumed)).toBe(1);
    expect(sessionOf(resumed).notSaved).toMatch(/changed.*not saved/);
    expect(resultOf(await run(rt, 'return [state.n, state.seen];', id))).toEqual([1, true]);

    // Without one in between, the resume saves, once.
    const again = (await run(rt, program, id)).value as unknown as { paused: PausedRun };
    const ok = await rt.resume(again.paused.runId, { [again.paused.pending[0]!.callId]: 'approve' });
    expect(sessionOf(ok).notSaved).toBeUndefined();
    await expect(rt.resume(again.paused.runId, {})).rejects.toThrow(/already ended/);
    expect(resultOf(await run(rt, 'return state.n;', id))).toBe(11);
  });
});

describe('sessions on SQLite', () => {
  it('outlive the runtime: a restarted host continues the session', async () => {
    const path = join(dir, 'sessions.db');
    const first = host(path);
    const { id } = sessionOf(await run(first, 'state.when = new Date(0); state.tags = new Set(["a"]);'));
    await first.close();
    const second = host(path);
    expect(resultOf(await run(second, 'return [state.when.getTime(), [...state.tags]];', id))).toEqual([0, ['a']]);
  });
});
