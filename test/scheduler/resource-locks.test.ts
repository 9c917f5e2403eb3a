// Resource locks within one process, for every store (here: none, and the JSONL
// file): calls whose `resourceKey` is equal never overlap (10 concurrent
// read-modify-write deposits give the exact balance), other keys still overlap, the
// wait ends with the call's abort signal (ABORTED_BEFORE_DISPATCH, body not run) or its
// timeout (TOOL_TIMEOUT), and the wait is visible as `run/lock-wait` events and as an
// event on the call's span. The cross-host half is test/durability/postgres-resource-locks.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createToolRuntime, defineTool, type RunLockWaitEvent, type ToolRuntime } from '../../src/index.ts';
import { gate } from '../support/gate.ts';

const exporter = new InMemorySpanExporter();
const contextManager = new AsyncLocalStorageContextManager();
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-locks-'));
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
});
afterAll(async () => {
  trace.disable();
  context.disable();
  await rm(dir, { recursive: true, force: true });
});

/** A bank whose deposit is a read, a wait (`hold` ms, or until `hold` settles) and a write: overlapping deposits lose updates. */
function bank(journal: string | undefined, keyed: boolean, hold: number | Promise<void> = 10) {
  const balances = new Map<string, number>();
  let running = 0;
  let maxRunning = 0;
  let bodies = 0;
  const rt: ToolRuntime = createToolRuntime({ sandbox: false, ...(journal === undefined ? {} : { journal }) });
  rt.register(
    defineTool({
      name: 'deposit',
      description: 'Adds amount to an account.',
      parameters: { account: { type: 'string', required: true }, amount: { type: 'integer', required: true } },
      output: { schema: { type: 'integer' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
      isConcurrencySafe: () => true,
      ...(keyed ? { resourceKey: (a: { account: string }) => `account:${a.account}` } : {}),
      execute: async ({ account, amount }) => {
        bodies += 1;
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        const before = balances.get(account) ?? 0;
        // Unkeyed, a body waits (up to 5 s) for another to be running with it, so the
        // lost update shows however the machine's load spaces the starts; keyed, another
        // never runs with it, so it only holds the key a while (or until `hold` settles).
        if (keyed) await (typeof hold === 'number' ? sleep(hold) : hold);
        else for (const end = Date.now() + 5_000; running < 2 && Date.now() < end; ) await sleep(2);
        balances.set(account, before + amount);
        running -= 1;
        return before + amount;
      },
    }),
  );
  rt.register(
    defineTool({
      name: 'slow_deposit',
      description: 'A deposit with a 50 ms timeout.',
      parameters: { account: { type: 'string', required: true } },
      output: { schema: { type: 'integer' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
      timeoutMs: 50,
      resourceKey: (a) => `account:${a.account}`,
      execute: async () => 0,
    }),
  );
  rt.register(
    defineTool({
      name: 'bad_key',
      description: 'Its resourceKey throws.',
      parameters: {},
      output: { schema: { type: 'integer' }, render: () => [] },
      resourceKey: () => {
        throw new Error('no key');
      },
      execute: async () => 0,
    }),
  );
  const deposits = (n: number, account: (i: number) => string) =>
    rt.executeTurn(
      Array.from({ length: n }, (_, i) => ({
        callId: `d${i}`,
        name: 'deposit',
        arguments: { account: account(i), amount: 1 },
      })),
    );
  return { rt, balances, deposits, stats: () => ({ maxRunning, bodies }) };
}

/** Resolves once `done()` holds (checked every 5 ms); fails after 20 s naming `what`. */
async function waitFor(done: () => boolean, what: string): Promise<void> {
  for (const until = Date.now() + 20_000; !done(); await sleep(5)) {
    if (Date.now() > until) throw new Error(`waited 20 s for ${what}`);
  }
}

let journals = 0;
const STORES: readonly (readonly [string, () => string | undefined])[] = [
  ['no journal', () => undefined],
  ['JSONL journal', () => join(dir, `j${(journals += 1)}.jsonl`)],
];

describe.each(STORES)('resource locks in one process (%s)', (_name, journal) => {
  it('10 concurrent deposits on one key give the exact balance; without the key they lose updates', async () => {
    const keyed = bank(journal(), true);
    const turn = await keyed.deposits(10, () => 'acme');
    expect(turn.results.every((r) => !r.isError)).toBe(true);
    expect(keyed.balances.get('acme')).toBe(10);
    expect(keyed.stats().maxRunning).toBe(1);
    await keyed.rt.close();

    const unkeyed = bank(journal(), false);
    await unkeyed.deposits(10, () => 'acme');
    expect(unkeyed.balances.get('acme')).toBeLessThan(10);
    await unkeyed.rt.close();
  });

  it('calls on different keys still overlap', async () => {
    // The bodies hold their keys until two run at once (an event, not a guessed time: a
    // 30 ms hold did not overlap once under load, each call being journaled, an fsync, first).
    const held = gate();
    const b = bank(journal(), true, held.passed);
    const deposits = b.deposits(4, (i) => `acct${i}`);
    try {
      await waitFor(() => b.stats().maxRunning >= 2, 'two deposits on different keys running at once');
    } finally {
      held.open();
    }
    await deposits;
    expect(b.stats().maxRunning).toBeGreaterThan(1);
    expect([...b.balances.values()]).toEqual([1, 1, 1, 1]);
    await b.rt.close();
  });

  it('a wait ends with the abort signal (body not run) or the timeout, and is seen as run/lock-wait events', async () => {
    // Each step waits for the previous one's lock-wait event, not for a time: the wait of
    // a call begins once it is journaled (an fsync first), which takes long under load.
    const held = gate();
    const b = bank(journal(), true, held.passed);
    const events: RunLockWaitEvent[] = [];
    const seenEvent = (callId: string, state: RunLockWaitEvent['state']): Promise<void> =>
      waitFor(() => events.some((e) => e.callId === callId && e.state === state), `${callId}:${state}`);
    b.rt.on('run/lock-wait', (e) => void events.push(e));
    const holder = b.rt.execute({ callId: 'h', name: 'deposit', arguments: { account: 'acme', amount: 1 } });
    await seenEvent('h', 'acquired');
    const stop = new AbortController();
    const waiter = b.rt.execute({
      callId: 'w',
      name: 'deposit',
      arguments: { account: 'acme', amount: 1 },
      signal: stop.signal,
    });
    await seenEvent('w', 'waiting');
    const timed = b.rt.execute({ callId: 't', name: 'slow_deposit', arguments: { account: 'acme' } });
    await seenEvent('t', 'waiting');
    stop.abort();
    // The holder keeps the key until both waits have ended.
    const [aborted, timedOut] = await Promise.all([waiter, timed]);
    held.open();
    expect((await holder).isError).toBe(false);
    expect(aborted.error?.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(timedOut.error?.code).toBe('TOOL_TIMEOUT');
    expect(b.stats().bodies).toBe(1);
    expect(b.balances.get('acme')).toBe(1);
    const seen = events.map((e) => `${e.callId}:${e.state}`);
    expect(seen.slice(0, 4)).toEqual(['h:waiting', 'h:acquired', 'w:waiting', 't:waiting']);
    expect(seen.slice(4).sort()).toEqual(['t:aborted', 'w:aborted']);
    expect(events[0]).toMatchObject({
      runCallId: 'h',
      rootCallId: 'h',
      name: 'deposit',
      key: 'account:acme',
      shared: false,
    });
    // The abort came once the wait had begun.
    const waited = events.find((e) => e.callId === 'w' && e.state === 'aborted')!.waitedMs;
    expect(waited).toBeGreaterThan(0);
    expect(waited).toBeLessThan(10_000);
    // The key is free again once the holder's body settled.
    const after = await b.rt.execute({ callId: 'a', name: 'deposit', arguments: { account: 'acme', amount: 1 } });
    expect(after.value).toBe(2);
    await b.rt.close();
  });

  it('a resourceKey that throws fails the call (PIPELINE_ERROR) without running the body', async () => {
    const b = bank(journal(), true);
    const result = await b.rt.execute({ callId: 'x', name: 'bad_key', arguments: {} });
    expect(result.error?.code).toBe('PIPELINE_ERROR');
    expect(result.error?.message).toContain('no key');
    await b.rt.close();
  });
});

describe('the wait on the span', () => {
  it('a waiting call carries ptc.resource_lock events on its execute_tool span', async () => {
    exporter.reset();
    // The key is held until the other call has begun to wait, then 30 ms more (an event,
    // not a guessed time: with a plain 30 ms hold, under load the first call was done
    // before the second reached the lock, which then waited 0.5 ms).
    const otherWaits = gate();
    const b = bank(
      undefined,
      true,
      otherWaits.passed.then(() => sleep(30)),
    );
    const waiting = new Set<string>();
    b.rt.on('run/lock-wait', (e) => {
      if (e.state === 'waiting') waiting.add(e.callId);
    });
    const turn = b.deposits(2, () => 'acme');
    try {
      await waitFor(() => waiting.size === 2, 'both deposits waiting for the key');
    } finally {
      otherWaits.open();
    }
    await turn;
    await b.rt.close();
    const spans = exporter.getFinishedSpans().filter((s) => s.name === 'execute_tool deposit');
    expect(spans).toHaveLength(2);
    const states = spans.map((s) =>
      s.events.filter((e) => e.name === 'ptc.resource_lock').map((e) => e.attributes?.['ptc.resource_lock.state']),
    );
    expect(states).toEqual([
      ['waiting', 'acquired'],
      ['waiting', 'acquired'],
    ]);
    const waited = spans.map((s) => Number(s.events[1]!.attributes?.['ptc.resource_lock.wait_ms']));
    expect(Math.max(...waited)).toBeGreaterThanOrEqual(20);
    expect(spans[0]!.events[0]!.attributes?.['ptc.resource_lock.key']).toBe('account:acme');
  });
});
