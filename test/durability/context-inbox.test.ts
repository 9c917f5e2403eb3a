// Contexts become durable user messages when the next request is admitted (chapter
// 8.10): a turn commits its results, its contexts wait in the conversation's inbox, and
// `inbox.admit()` journals them as `user/message` events before the app sends them. On
// every store (JSONL, SQLite, PostgreSQL on a throwaway cluster), with the host killed
// before and after the admission: replay shows exactly the messages admitted, in their
// place between the turns, and a restarted process recovers the ones never admitted —
// nothing lost, nothing admitted twice.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createMemoryJournal,
  createToolRuntime,
  type ContextMessage,
  type Journal,
  type JournalEvent,
  type ToolResult,
} from '../../src/index.ts';
import { replayJournal } from '../../src/journal/replay-journal.ts';
import { openSqliteJournal } from '../../src/journal/sqlite/sqlite-journal.ts';
import { spawnWatched } from '../support/watched-child.ts';
import { registerInboxTools } from './fixtures/inbox-tools.ts';
import {
  freshStore,
  openStore,
  STORE_KINDS,
  startStoreServers,
  stopStoreServers,
  type StoreKind,
} from './fixtures/stores.ts';

const HOST = fileURLToPath(new URL('./fixtures/inbox-host.ts', import.meta.url));

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-inbox-'));
  await startStoreServers();
}, 120_000);
afterAll(async () => {
  await stopStoreServers();
  await rm(dir, { recursive: true, force: true });
});
let counter = 0;
const fresh = (kind: StoreKind): Promise<string> => freshStore(dir, kind, `inbox${(counter += 1)}`);

const texts = (messages: readonly ContextMessage[]): string[] =>
  messages.map((m) => m.content.map((b) => (b.type === 'text' ? b.text : '')).join(''));
const userText = (text: string): ContextMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const kinds = (events: readonly JournalEvent[]): string[] => events.map((e) => `${e.type} ${e.callId}`);

/** Runs the host until it says `ready` (bounded: a failure names the step), then SIGKILLs it; returns its stdout. */
async function killAtReady(kind: StoreKind, path: string, mode: 'commit' | 'admit'): Promise<string> {
  const host = spawnWatched(dir, ['--no-node-snapshot', HOST, kind, path, mode]);
  await host.until(`the ${kind} inbox host (${mode}) to say ready`, () => host.stdout().includes('ready\n'));
  host.child.kill('SIGKILL');
  expect(await host.exited).toBe('SIGKILL');
  return host.stdout();
}

/** A runtime of this process on the same store (a restarted host). */
function restarted(kind: StoreKind, path: string) {
  const store = openStore(kind, path);
  const rt = createToolRuntime({ journal: store.journal });
  registerInboxTools(rt);
  return {
    rt,
    journal: store.journal,
    close: async () => {
      await rt.close();
      await store.close();
    },
  };
}

describe.each(STORE_KINDS)('contexts admitted as user messages, killed hosts: %s', (kind) => {
  it('killed after the admission: replay shows the user messages between the turns; recovery admits nothing twice', async () => {
    const path = await fresh(kind);
    expect(await killAtReady(kind, path, 'admit')).toContain('admitted 2\n');
    const host = restarted(kind, path);
    try {
      const { events } = await host.journal.read();
      expect(kinds(events)).toEqual([
        'tool/call n1',
        'tool/result n1',
        'tool/call n2',
        'tool/result n2',
        'user/message n1',
        'user/message n2',
        'tool/call h1',
      ]);
      const replay = await replayJournal(host.journal, host.rt);
      expect(replay.userMessages.map((m) => [m.callId, m.index, m.inbox, texts([m.message])[0]])).toEqual([
        ['n1', 0, 'conv-1', 'remember a'],
        ['n2', 0, 'conv-1', 'remember b'],
      ]);
      expect(replay.executions.map((e) => e.callId)).toEqual(['n1', 'n2']);
      expect(replay.interrupted.map((c) => c.callId)).toEqual(['h1']);
      expect(replay.warnings).toEqual([]);
      // The restarted conversation: turn 1's contexts were admitted already.
      const inbox = host.rt.contextInbox({ id: 'conv-1' });
      expect(await inbox.recover(['n1', 'n2'])).toBe(0);
      expect(await inbox.admit()).toEqual([]);
      expect((await replayJournal(host.journal, host.rt)).userMessages).toHaveLength(2);
    } finally {
      await host.close();
    }
  }, 90_000);

  it('killed before the admission: nothing was admitted, recovery queues the contexts once and admits them', async () => {
    const path = await fresh(kind);
    await killAtReady(kind, path, 'commit');
    const host = restarted(kind, path);
    try {
      const before = await replayJournal(host.journal, host.rt);
      expect(before.userMessages).toEqual([]);
      // The contexts are in the committed results, not lost.
      expect(before.executions.map((e) => e.callId)).toEqual(['n1', 'n2']);
      const inbox = host.rt.contextInbox({ id: 'conv-1' });
      expect(await inbox.recover(['n1', 'n2'])).toBe(2);
      // Recovering twice does not queue them twice.
      expect(await inbox.recover(['n1', 'n2'])).toBe(0);
      expect(texts(inbox.pending())).toEqual(['remember a', 'remember b']);
      expect(texts(await inbox.admit())).toEqual(['remember a', 'remember b']);
      expect(inbox.pending()).toEqual([]);
      const after = await replayJournal(host.journal, host.rt);
      expect(after.userMessages.map((m) => m.callId)).toEqual(['n1', 'n2']);
      // Another restart finds them admitted.
      expect(await host.rt.contextInbox({ id: 'conv-1' }).recover(['n1', 'n2'])).toBe(0);
    } finally {
      await host.close();
    }
  }, 90_000);
});

describe('the inbox in one process', () => {
  const note = (callId: string, text: string) => ({ callId, name: 'note', arguments: { text } });

  it('a turn queues its contexts after its results, in model order; admit journals them once', async () => {
    const journal = createMemoryJournal();
    const rt = createToolRuntime({ journal });
    registerInboxTools(rt);
    const inbox = rt.contextInbox();
    expect(inbox.id).toMatch(/^[0-9a-f-]{36}$/);
    const turn = await rt.executeTurn([note('a1', 'x'), note('a2', 'y')], { inbox });
    expect(texts(turn.additionalContexts)).toEqual(['remember x', 'remember y']);
    expect(texts(inbox.pending())).toEqual(['remember x', 'remember y']);
    // Queued, not yet journaled: only calls and results so far.
    expect(kinds((await journal.read()).events)).toEqual([
      'tool/call a1',
      'tool/result a1',
      'tool/call a2',
      'tool/result a2',
    ]);
    // The same results queued again are not queued twice.
    expect(inbox.enqueue(turn.results)).toBe(0);
    expect(texts(await inbox.admit())).toEqual(['remember x', 'remember y']);
    const admitted = (await journal.read()).events.filter((e) => e.type === 'user/message');
    expect(admitted).toEqual([
      expect.objectContaining({ type: 'user/message', callId: 'a1', name: 'note', inbox: inbox.id, index: 0 }),
      expect.objectContaining({ type: 'user/message', callId: 'a2', name: 'note', inbox: inbox.id, index: 0 }),
    ]);
    expect(inbox.enqueue(turn.results)).toBe(0);
    expect(await inbox.admit()).toEqual([]);
    await rt.close();
  });

  it('a journal that cannot be written: admit rejects and the contexts stay queued, then go in once', async () => {
    const store = createMemoryJournal();
    let failNext = false;
    const journal: Journal = {
      append: (events) => {
        if (failNext && events.some((e) => e.type === 'user/message')) {
          failNext = false;
          return Promise.reject(new Error('EIO: disk gone'));
        }
        return store.append(events);
      },
      read: () => store.read(),
    };
    const rt = createToolRuntime({ journal });
    registerInboxTools(rt);
    const inbox = rt.contextInbox({ id: 'c' });
    await rt.executeTurn([note('b1', 'x')], { inbox });
    failNext = true;
    await expect(inbox.admit()).rejects.toMatchObject({
      code: 'SCHEDULER_FAILURE',
      message: 'tool scheduler failed: EIO: disk gone',
    });
    expect(texts(inbox.pending())).toEqual(['remember x']);
    // A later turn's contexts queue behind the ones still waiting.
    await rt.executeTurn([note('b2', 'y')], { inbox });
    expect(texts(await inbox.admit())).toEqual(['remember x', 'remember y']);
    expect(kinds((await store.read()).events).filter((k) => k.startsWith('user/message'))).toEqual([
      'user/message b1',
      'user/message b2',
    ]);
    await rt.close();
  });

  it('without a journal the inbox still orders the contexts; recover says it needs a journal', async () => {
    const rt = createToolRuntime({});
    registerInboxTools(rt);
    const inbox = rt.contextInbox({ id: 'plain' });
    await rt.executeTurn([note('c1', 'x')], { inbox });
    expect(texts(await inbox.admit())).toEqual(['remember x']);
    await expect(inbox.recover(['c1'])).rejects.toThrow(
      'contextInbox.recover: needs a runtime with a journal (createToolRuntime({ journal }))',
    );
    await rt.close();
  });

  it('refuses an inbox that rt.contextInbox did not make, and a bad id', async () => {
    const rt = createToolRuntime({});
    registerInboxTools(rt);
    const forged = { id: 'x', pending: () => [], enqueue: () => 0, admit: async () => [], recover: async () => 0 };
    await expect(rt.executeTurn([note('d1', 'x')], { inbox: forged })).rejects.toThrow(
      'executeTurn: inbox must come from rt.contextInbox()',
    );
    expect(() => rt.contextInbox({ id: '' })).toThrow(/id must be a non-empty string of at most 256 characters/);
    await rt.close();
  });

  it('refuses a malformed context before queuing anything (it would fail every later admission)', async () => {
    const rt = createToolRuntime({ journal: createMemoryJournal() });
    const inbox = rt.contextInbox({ id: 'm' });
    const good = { callId: 'g1', name: 't', isError: false, content: [], additionalContexts: [userText('ok')] };
    const bad = {
      callId: 'g2',
      name: 't',
      isError: false,
      content: [],
      additionalContexts: [{ role: 'assistant', content: [] }],
    } as unknown as ToolResult;
    expect(() => inbox.enqueue([good, bad])).toThrow(
      "contextInbox.enqueue: results[1].additionalContexts[0] is not a user message ({ role: 'user', content: text or image blocks }) of a result with a callId and name",
    );
    expect(inbox.pending()).toEqual([]);
    expect(inbox.enqueue([good])).toBe(1);
    expect(texts(await inbox.admit())).toEqual(['ok']);
    await rt.close();
  });

  it('SQLite: user messages are filed under their call and selectable by type', async () => {
    const path = join(dir, 'query.sqlite');
    const journal = openSqliteJournal(path);
    const rt = createToolRuntime({ journal });
    registerInboxTools(rt);
    const inbox = rt.contextInbox({ id: 'q' });
    await rt.executeTurn([note('e1', 'x')], { inbox });
    await inbox.admit();
    const rows = await journal.query({ type: 'user/message' });
    expect(rows.map((r) => [r.event.type, r.event.callId])).toEqual([['user/message', 'e1']]);
    expect((await journal.query({ rootCallId: 'e1' })).map((r) => r.event.type)).toEqual([
      'tool/call',
      'tool/result',
      'user/message',
    ]);
    await rt.close();
    journal.close();
  });
});
