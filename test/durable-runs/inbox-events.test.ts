// Durable runs keep working with the user/message events of a conversation's inbox in
// the journal, on every store: a run paused in a turn whose other call deferred a
// context (ferried from a program), the context admitted (journaled) before the next request, and the run listed
// and resumed by a fresh runtime on the same store (as another process would).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PausedRun } from '../../src/index.ts';
import { replayJournal } from '../../src/journal/replay-journal.ts';
import { registerInboxTools } from '../durability/fixtures/inbox-tools.ts';
import {
  freshStore,
  openStore,
  STORE_KINDS,
  startStoreServers,
  stopStoreServers,
  type StoreKind,
} from '../durability/fixtures/stores.ts';
import { gatedRuntime, runCall } from './fixtures/gated-tools.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-inbox-runs-'));
  await startStoreServers();
}, 120_000);
afterAll(async () => {
  await stopStoreServers();
  await rm(dir, { recursive: true, force: true });
});

describe.each(STORE_KINDS)('a paused run beside admitted user messages (%s store)', (kind: StoreKind) => {
  it('is listed and resumed by another runtime; replay shows the user message and the run', async () => {
    const path = await freshStore(dir, kind, `runs_inbox_${kind}`);
    const log = join(dir, `bodies-${kind}.log`);
    const first = openStore(kind, path);
    const rt = gatedRuntime(first.journal, log);
    registerInboxTools(rt);
    const inbox = rt.contextInbox({ id: 'conv' });
    const code = 'const base = await tools.read({ n: 1 }); return (await tools.write({ v: base + 1 })).wrote;';
    // ptc mode: the note is called from a program; its context is ferried onto that run_code's result.
    const turn = await rt.executeTurn(
      [runCall('call-1', code), runCall('call-2', 'return await tools.note({ text: "x" });')],
      { inbox },
    );
    const paused = (turn.results[0]!.value as { paused?: PausedRun }).paused;
    expect(paused?.pending.map((p) => p.callId)).toEqual(['call-1:ptc:2']);
    expect((await inbox.admit()).length).toBe(1);
    await rt.close();
    await first.close();

    const second = openStore(kind, path);
    const other = gatedRuntime(second.journal, log);
    registerInboxTools(other);
    try {
      const listed = await other.runs();
      expect(listed.map((r) => [r.runId, r.status])).toEqual([[paused!.runId, 'paused']]);
      const final = await other.resume(paused!.runId, { 'call-1:ptc:2': 'approve' });
      expect(final.isError).toBe(false);
      expect((final.value as { result: unknown }).result).toBe(11);
      const replay = await replayJournal(second.journal, other);
      expect(replay.userMessages.map((m) => [m.callId, m.inbox, m.message.content])).toEqual([
        ['call-2', 'conv', [{ type: 'text', text: 'remember x' }]],
      ]);
      expect(replay.warnings).toEqual([]);
      expect(replay.interrupted).toEqual([]);
      expect(await other.contextInbox({ id: 'conv' }).recover(['call-1', 'call-2'])).toBe(0);
    } finally {
      await other.close();
      await second.close();
    }
  }, 120_000);
});
