// Sessions on a JSONL journal, in files beside it (no mock: the real file system): they
// survive a restart of the runtime, two runtimes of one file share them (a busy session is
// refused from the other, and its save lands), a change is all or nothing (a crashed
// writer's leftover never counts), two saves over one version have exactly one winner,
// and a record file over the size bound reads as no session.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import {
  createToolRuntime,
  defineTool,
  type JsonValue,
  type RunSessionValue,
  type ToolResult,
} from '../../src/index.ts';
import { createFileSessionStore, MAX_SESSION_FILE_BYTES } from '../../src/journal/file/file-session-store.ts';
import type { ToolRuntime } from '../../src/runtime/create-tool-runtime.ts';
import type { SessionRecord } from '../../src/sessions/session-store.ts';
import { gate } from '../support/gate.ts';

let sandbox: Sandbox;
let dir = '';
let counter = 0;
const open: ToolRuntime[] = [];
beforeAll(() => {
  sandbox = createSandbox({ poolSize: 1 });
  dir = mkdtempSync(join(tmpdir(), 'ptc-file-sessions-'));
});
afterAll(async () => {
  await Promise.all(open.map((rt) => rt.close()));
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

function host(journal: string): ToolRuntime {
  const rt = createToolRuntime({ mode: 'ptc', sandbox, journal, sessions: true });
  open.push(rt);
  return rt;
}

const run = (rt: ToolRuntime, code: string, session?: string): Promise<ToolResult> =>
  rt.execute({
    callId: `rc${(counter += 1)}`,
    name: 'run_code',
    arguments: { description: 'Use the session', code, ...(session === undefined ? {} : { session }) },
  });

function sessionOf(result: ToolResult): RunSessionValue {
  if (result.isError) throw new Error(`run_code failed: ${result.error?.code} ${result.error?.message}`);
  return (result.value as unknown as { session: RunSessionValue }).session;
}
const resultOf = (result: ToolResult): JsonValue | undefined => (result.value as { result?: JsonValue }).result;

const record = (id: string, version: number, state = '{}'): SessionRecord => ({
  id,
  agent: null,
  principal: null,
  state,
  bytes: state.length,
  version,
  createdAt: 1,
  updatedAt: 1,
  expiresAt: Date.now() + 60_000,
});

describe('sessions on a JSONL journal', () => {
  it('outlive the runtime: a restarted host continues the session, and an operator deletes it', async () => {
    const journal = join(dir, 'restart.jsonl');
    const first = host(journal);
    const { id } = sessionOf(await run(first, 'state.when = new Date(0); state.tags = new Set(["a"]); state.n = 1;'));
    await first.close();
    const second = host(journal);
    expect(resultOf(await run(second, 'state.n += 1; return [state.when.getTime(), [...state.tags]];', id))).toEqual([
      0,
      ['a'],
    ]);
    expect(resultOf(await run(second, 'return state.n;', id))).toBe(2);
    // One file at rest per session.
    expect(readdirSync(join(`${journal}.sessions`, id))).toHaveLength(1);
    expect((await second.sessions.list()).map((s) => s.id)).toEqual([id]);
    expect(await second.sessions.delete(id)).toBe(true);
    expect(existsSync(join(`${journal}.sessions`, id))).toBe(false);
    expect((await run(second, 'return 1;', id)).error?.code).toBe('SESSION_EXPIRED');
  });

  it('two runtimes of one file share sessions: a busy one is refused from the other, then its save lands', async () => {
    const journal = join(dir, 'shared.jsonl');
    const a = host(journal);
    const b = host(journal);
    const held = gate();
    const entered = gate();
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
    expect((await run(b, 'state.n += 100;', id)).error?.code).toBe('SESSION_BUSY');
    held.open();
    expect(sessionOf(await first).notSaved).toBeUndefined();
    expect(resultOf(await run(b, 'return state.n;', id))).toBe(1);
  });

  it('a change is all or nothing: a crashed writer leftover and a damaged higher record never count as the session', async () => {
    const journal = join(dir, 'atomic.jsonl');
    const store = createFileSessionStore(journal);
    expect(await store.saveSession(record('s1', 1, '{"n":1}'), 'o', Date.now())).toBe(true);
    const sessionDir = join(`${journal}.sessions`, 's1');
    // A writer that died before linking its record leaves only a temporary file.
    writeFileSync(
      join(sessionDir, `.2.${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.tmp`),
      '{"record":{"id":"s1","sta',
    );
    expect((await store.getSession('s1', Date.now()))?.state).toBe('{"n":1}');
    // The next save takes number 2 and clears the leftover.
    expect(await store.saveSession(record('s1', 2, '{"n":2}'), 'o', Date.now())).toBe(true);
    expect(readdirSync(sessionDir)).toEqual(['2.session']);
    // A record that is not one (a damaged disk, a hand edit) is no session: loudly expired, never another's data.
    writeFileSync(join(sessionDir, '3.session'), 'not json');
    expect(await store.getSession('s1', Date.now())).toBeUndefined();
    // Ids that are not file names never reach the file system.
    expect(await store.getSession('../../etc', Date.now())).toBeUndefined();
    expect(await store.saveSession(record('../x', 1), 'o', Date.now())).toBe(false);
  });

  it('two saves over one version, from two stores of one file: exactly one wins', async () => {
    const journal = join(dir, 'race.jsonl');
    const one = createFileSessionStore(journal);
    const two = createFileSessionStore(journal);
    expect(await one.saveSession(record('s2', 1), 'o', Date.now())).toBe(true);
    for (let version = 2; version < 12; version += 1) {
      const outcomes = await Promise.all([
        one.saveSession(record('s2', version, `{"by":"one","v":${version}}`), 'o', Date.now()),
        two.saveSession(record('s2', version, `{"by":"two","v":${version}}`), 'o', Date.now()),
      ]);
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      expect((await two.getSession('s2', Date.now()))?.version).toBe(version);
    }
    // A lease held by one owner refuses the other's lease and save.
    const now = Date.now();
    expect((await one.leaseSession('s2', { owner: 'a', until: now + 60_000 }, now + 60_000, now)).kind).toBe('leased');
    expect((await two.leaseSession('s2', { owner: 'b', until: now + 60_000 }, now + 60_000, now)).kind).toBe('busy');
    expect(await two.saveSession(record('s2', 12), 'b', now)).toBe(false);
  });

  it(`a record file over ${MAX_SESSION_FILE_BYTES} bytes is not read: the session is unknown`, async () => {
    const journal = join(dir, 'bound.jsonl');
    const store = createFileSessionStore(journal);
    expect(await store.saveSession(record('s3', 1), 'o', Date.now())).toBe(true);
    const file = join(`${journal}.sessions`, 's3', '1.session');
    truncateSync(file, MAX_SESSION_FILE_BYTES + 1);
    expect(await store.getSession('s3', Date.now())).toBeUndefined();
    expect(
      (await store.leaseSession('s3', { owner: 'x', until: Date.now() + 1000 }, Date.now() + 1000, Date.now())).kind,
    ).toBe('missing');
  });

  it('expired sessions are unknown, and listing removes their files', async () => {
    const journal = join(dir, 'expiry.jsonl');
    const store = createFileSessionStore(journal);
    expect(await store.saveSession({ ...record('old', 1), expiresAt: Date.now() - 1 }, 'o', Date.now() - 10)).toBe(
      true,
    );
    expect(await store.saveSession(record('new', 1), 'o', Date.now())).toBe(true);
    expect(await store.getSession('old', Date.now())).toBeUndefined();
    expect((await store.listSessions(Date.now())).map((s) => s.id)).toEqual(['new']);
    expect(readdirSync(`${journal}.sessions`)).toEqual(['new']);
  });
});
