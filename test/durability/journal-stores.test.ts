// The durability suite, run against every journal store (the JSONL file, SQLite and
// PostgreSQL on a throwaway cluster):
// order and persistence, write-ahead across SIGKILL during a tool body (a turn, a
// direct call, a run_code nested call, a composite tool's inner call), SIGKILL while
// appending, and step recovery when the store fails on its n-th append.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createToolRuntime } from '../../src/index.ts';
import type { Journal, JournalEvent } from '../../src/journal/journal.ts';
import { replayJournal } from '../../src/journal/replay-journal.ts';
import { registerPaymentTools } from './fixtures/payment-tools.ts';
import { spawnWatched } from '../support/watched-child.ts';
import {
  freshStore,
  openStore,
  STORE_KINDS,
  startStoreServers,
  stopStoreServers,
  type StoreKind,
} from './fixtures/stores.ts';

const HOST = fileURLToPath(new URL('./fixtures/write-ahead-host.ts', import.meta.url));
const APPENDER = fileURLToPath(new URL('../scheduler/fixtures/journal-appender.ts', import.meta.url));

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-durability-'));
  await startStoreServers();
}, 120_000);
afterAll(async () => {
  await stopStoreServers();
  await rm(dir, { recursive: true, force: true });
});
let counter = 0;
const fresh = (kind: StoreKind): Promise<string> => freshStore(dir, kind, `j${(counter += 1)}`);

const pair = (callId: string, value: number): JournalEvent[] => [
  { type: 'tool/call', callId, name: 'w', agent: null, arguments: { n: value } },
  {
    type: 'tool/result',
    callId,
    name: 'w',
    result: { callId, name: 'w', isError: false, value, content: [{ type: 'text', text: `v${value}` }] },
  },
];

/** Spawns a child, waits until `ready()` holds (bounded: a failure names `step`), then SIGKILLs it; its stdout. */
async function killWhen(step: string, args: readonly string[], ready: (stdout: string) => boolean): Promise<string> {
  const child = spawnWatched(dir, ['--no-node-snapshot', ...args]);
  await child.until(step, () => ready(child.stdout()));
  child.child.kill('SIGKILL');
  expect(await child.exited).toBe('SIGKILL');
  return child.stdout();
}

describe.each(STORE_KINDS)('journal store: %s', (kind) => {
  it('appends in call order and reads back, also after reopening', async () => {
    const path = await fresh(kind);
    const first = openStore(kind, path);
    expect(await first.journal.read()).toEqual({ events: [], warnings: [] });
    await Promise.all(Array.from({ length: 10 }, (_, i) => first.journal.append(pair(`c${i}`, i))));
    const expected = Array.from({ length: 10 }, (_, i) => pair(`c${i}`, i)).flat();
    expect((await first.journal.read()).events).toEqual(expected);
    await first.close();
    const again = openStore(kind, path);
    expect(await again.journal.read()).toEqual({ events: expected, warnings: [] });
    await again.close();
  });

  it('refuses events that are not journal events, writing nothing', async () => {
    const store = openStore(kind, await fresh(kind));
    await expect(
      store.journal.append([...pair('a', 1), { type: 'tool/nope' } as unknown as JournalEvent]),
    ).rejects.toThrow(/events\[2\] is not a tool\/call or tool\/result event/);
    expect((await store.journal.read()).events).toEqual([]);
    await store.close();
  });

  it.each(['turn', 'execute', 'nested', 'composite'] as const)(
    'write-ahead: SIGKILL inside a tool body (%s) leaves the call, with its arguments, interrupted',
    async (mode) => {
      const path = await fresh(kind);
      const marker = join(dir, `marker-${counter}`);
      await killWhen(
        `the ${kind} host's ${mode} call to reach its transfer body`,
        [HOST, kind, path, marker, mode],
        () => existsSync(marker),
      );
      const store = openStore(kind, path);
      const rt = createToolRuntime({ sandbox: false });
      registerPaymentTools(rt);
      const replay = await replayJournal(store.journal, rt);
      const interrupted = replay.interrupted.map((c) => ({
        callId: c.callId,
        name: c.name,
        arguments: c.arguments,
        parentCallId: c.parentCallId,
      }));
      const transfer = { name: 'transfer', arguments: { to: 'bob', amount: 42 } };
      switch (mode) {
        case 'turn':
          expect(replay.executions.map((e) => [e.callId, e.call])).toEqual([['look-1', { title: 'Look up bob' }]]);
          expect(interrupted).toEqual([{ callId: 'pay-1', ...transfer, parentCallId: undefined }]);
          break;
        case 'execute':
          expect(replay.executions).toEqual([]);
          expect(interrupted).toEqual([{ callId: 'pay-1', ...transfer, parentCallId: undefined }]);
          break;
        case 'nested':
          expect(replay.executions.map((e) => [e.callId, e.parentCallId])).toEqual([['run-1:ptc:1', 'run-1']]);
          expect(interrupted).toEqual([
            {
              callId: 'run-1',
              name: 'run_code',
              arguments: { description: 'Pay bob', code: expect.stringContaining('tools.transfer') },
              parentCallId: undefined,
            },
            { callId: 'run-1:ptc:2', ...transfer, parentCallId: 'run-1' },
          ]);
          expect(replay.interrupted[1]!.rootCallId).toBe('run-1');
          break;
        case 'composite':
          expect(replay.executions.map((e) => [e.callId, e.parentCallId])).toEqual([['pay-1:call:1', 'pay-1']]);
          expect(interrupted).toEqual([
            { callId: 'pay-1', name: 'pay_invoice', arguments: { to: 'bob', amount: 42 }, parentCallId: undefined },
            { callId: 'pay-1:call:2', ...transfer, parentCallId: 'pay-1' },
          ]);
          break;
      }
      expect(replay.warnings).toEqual([]);
      await store.close();
    },
  );

  it('SIGKILL while appending: every acknowledged append is there, whole and in order', async () => {
    const path = await fresh(kind);
    const stdout = await killWhen(
      `the ${kind} appender to acknowledge 5 appends`,
      [APPENDER, path, String(64 * 1024), 'loop', kind],
      (out) => out.split('\n').length > 5,
    );
    const acked = Math.max(
      ...stdout
        .split('\n')
        .filter((l) => /^\d+$/.test(l))
        .map(Number),
    );
    expect(acked).toBeGreaterThanOrEqual(3);
    const store = openStore(kind, path);
    const { events, warnings } = await store.journal.read();
    expect(events.length).toBeGreaterThanOrEqual(2 * (acked + 1));
    events.forEach((e, k) => {
      expect(e.callId).toBe(`c${Math.floor(k / 2)}`);
      expect(e.type).toBe(k % 2 === 0 ? 'tool/call' : 'tool/result');
    });
    // The file may lose the one torn line; the databases' transactions lose nothing partial.
    if (kind !== 'file') {
      expect(events.length % 2).toBe(0);
      expect(warnings).toEqual([]);
    } else {
      expect(warnings.every((w) => w.kind === 'torn-tail')).toBe(true);
      expect(warnings.length).toBeLessThanOrEqual(1);
    }
    // The store keeps working after the crash.
    await store.journal.append(pair('after', 1));
    expect((await store.journal.read()).events.slice(-2)).toEqual(pair('after', 1));
    await store.close();
  });

  it('a store that fails on its n-th append: every call of the turn gets a result; the store agrees with them', async () => {
    for (let n = 1; n <= 6; n += 1) {
      const store = openStore(kind, await fresh(kind));
      let count = 0;
      const failing: Journal = {
        append: (events) =>
          (count += 1) === n ? Promise.reject(new Error('I/O error')) : store.journal.append(events),
        read: () => store.journal.read(),
      };
      const rt = createToolRuntime({ sandbox: false, journal: failing });
      registerPaymentTools(rt);
      const turn = await rt.executeTurn([
        { callId: 'a', name: 'lookup', arguments: { who: 'ann' } },
        { callId: 'b', name: 'transfer', arguments: { to: 'ann', amount: 1 } },
        { callId: 'c', name: 'lookup', arguments: { who: 'cy' } },
      ]);
      expect(turn.results.map((r) => r.callId)).toEqual(['a', 'b', 'c']);
      const committed = turn.results.filter((r) => r.error?.code !== 'SCHEDULER_FAILURE').map((r) => r.callId);
      expect(committed.length).toBeLessThan(3);
      const replay = await replayJournal(store.journal, rt);
      expect(replay.executions.map((e) => e.callId)).toEqual(committed);
      const written = (await store.journal.read()).events.filter((e) => e.type === 'tool/call').map((e) => e.callId);
      expect(replay.interrupted.map((c) => c.callId)).toEqual(written.filter((id) => !committed.includes(id)));
      await store.close();
    }
  });
});
