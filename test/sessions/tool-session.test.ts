// `exec.session`: tools called natively (rt.execute({ session })) read and write the same
// session run_code programs keep in `state` — on a JSONL journal, so after a restart too.
// Another agent's or principal's id is SESSION_EXPIRED; a write over a save made since the
// call's read is SESSION_BUSY (never a lost update); what is not JSON data, a "$" key, or
// more than maxBytes is refused, naming the path or the size; a call without a session
// has none, and naming one on a runtime without sessions is a TypeError.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import { createToolRuntime, defineTool, type JsonValue, type ToolResult } from '../../src/index.ts';
import type { ToolRuntime } from '../../src/runtime/create-tool-runtime.ts';

let sandbox: Sandbox;
let dir = '';
let counter = 0;
const open: ToolRuntime[] = [];
beforeAll(() => {
  sandbox = createSandbox({ poolSize: 1 });
  dir = mkdtempSync(join(tmpdir(), 'ptc-tool-session-'));
});
afterAll(async () => {
  await Promise.all(open.map((rt) => rt.close()));
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A runtime in both modes with two session tools: `remember` adds a note, `recall` reads the notes. */
function host(journal: string, maxBytes?: number): ToolRuntime {
  const rt = createToolRuntime({
    mode: 'both',
    sandbox,
    journal,
    sessions: maxBytes === undefined ? true : { maxBytes },
  });
  open.push(rt);
  rt.register(
    defineTool({
      name: 'remember',
      description: 'Adds a note to the session.',
      parameters: { note: { type: 'json', required: true } },
      output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'noted' }] },
      execute: async ({ note }, exec) => {
        if (exec.session === undefined) return 'no session';
        const state = await exec.session.read();
        const notes = Array.isArray(state.notes) ? state.notes : [];
        await exec.session.write({ ...state, notes: [...notes, note as JsonValue] });
        return notes.length + 1;
      },
    }),
  );
  rt.register(
    defineTool({
      name: 'recall',
      description: 'The notes of the session.',
      parameters: {},
      output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'notes' }] },
      execute: async (_args, exec) => (exec.session === undefined ? 'no session' : await exec.session.read()),
    }),
  );
  return rt;
}

const call = (
  rt: ToolRuntime,
  name: string,
  args: object,
  extra: { session?: string; agent?: string; principal?: string } = {},
): Promise<ToolResult> => rt.execute({ callId: `c${(counter += 1)}`, name, arguments: args, ...extra });

describe('exec.session (tools called natively)', () => {
  it('tools keep notes in a session that run_code programs see as `state`, after a restart too', async () => {
    const journal = join(dir, 'native.jsonl');
    const rt = host(journal);
    const { id } = await rt.sessions.create();
    expect((await call(rt, 'remember', { note: 'likes tea' }, { session: id })).value).toBe(1);
    expect((await call(rt, 'remember', { note: { order: 7 } }, { session: id })).value).toBe(2);
    expect((await call(rt, 'recall', {}, { session: id })).value).toEqual({ notes: ['likes tea', { order: 7 }] });
    // A program of the same session reads and extends what the tools saved.
    const program = await call(
      rt,
      'run_code',
      { description: 'notes', code: 'state.notes.push("from a program"); return state.notes.length;', session: id },
      {},
    );
    expect((program.value as { result: unknown }).result).toBe(3);
    await rt.close();
    const restarted = host(journal);
    expect((await call(restarted, 'recall', {}, { session: id })).value).toEqual({
      notes: ['likes tea', { order: 7 }, 'from a program'],
    });
    // Without a session, a tool has none.
    expect((await call(restarted, 'recall', {})).value).toBe('no session');
  });

  it("another agent's or principal's session is SESSION_EXPIRED, never its data", async () => {
    const rt = host(join(dir, 'scope.jsonl'));
    rt.createAgent('support');
    const { id } = await rt.sessions.create({ principal: 'alice' });
    expect((await call(rt, 'remember', { note: 'secret' }, { session: id, principal: 'alice' })).isError).toBe(false);
    const asBob = await call(rt, 'recall', {}, { session: id, principal: 'bob' });
    expect(asBob.error?.code).toBe('SESSION_EXPIRED');
    expect(JSON.stringify(asBob)).not.toContain('secret');
    expect((await call(rt, 'recall', {}, { session: id, agent: 'support', principal: 'alice' })).error?.code).toBe(
      'SESSION_EXPIRED',
    );
    expect((await call(rt, 'recall', {}, { session: 'no-such-session' })).error?.code).toBe('SESSION_EXPIRED');
  });

  it('a write over a save made since the read is SESSION_BUSY, and nothing is lost', async () => {
    const rt = host(join(dir, 'race.jsonl'));
    const { id } = await rt.sessions.create();
    rt.register(
      defineTool({
        name: 'slowWrite',
        description: 'Reads, lets another call save, then writes.',
        parameters: {},
        output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'written' }] },
        execute: async (_args, exec) => {
          const state = await exec.session!.read();
          await call(rt, 'remember', { note: 'in between' }, { session: id });
          await exec.session!.write({ ...state, overwritten: true });
          return 'written';
        },
      }),
    );
    const result = await call(rt, 'slowWrite', {}, { session: id });
    expect(result.error?.code).toBe('SESSION_BUSY');
    expect(result.error?.message).toMatch(
      /saved by another program or call since this call read it: nothing was saved/u,
    );
    expect((await call(rt, 'recall', {}, { session: id })).value).toEqual({ notes: ['in between'] });
  });

  it('refuses what is not JSON data, a "$" key, and state over maxBytes, naming where', async () => {
    const rt = host(join(dir, 'limits.jsonl'), 64);
    const { id } = await rt.sessions.create();
    const writes: Record<string, unknown> = {
      fn: { cache: { fn: () => 1 } },
      date: { when: new Date(0) },
      dollar: { tagged: { $: ['x'] } },
      big: { text: 'x'.repeat(100) },
    };
    rt.register(
      defineTool({
        name: 'writeRaw',
        description: 'Writes one of the test values.',
        parameters: { which: { type: 'string', required: true } },
        output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'written' }] },
        execute: async ({ which }, exec) => {
          await exec.session!.write(writes[which] as { [key: string]: JsonValue });
          return 'written';
        },
      }),
    );
    const message = async (which: string): Promise<string | undefined> =>
      (await call(rt, 'writeRaw', { which }, { session: id })).error?.message;
    expect(await message('fn')).toMatch(/state\.cache\.fn is a function: only JSON data can be saved/u);
    expect(await message('date')).toMatch(/state\.when is an instance of a class/u);
    expect(await message('dollar')).toMatch(/state\.tagged has a key "\$"/u);
    expect(await message('big')).toMatch(/state is 111 bytes serialized, over the session limit of 64 bytes/u);
    expect((await call(rt, 'recall', {}, { session: id })).value).toEqual({});
  });

  it('naming a session on a runtime without sessions is a TypeError', async () => {
    const rt = createToolRuntime({ sandbox });
    open.push(rt);
    await expect(rt.execute({ callId: 'x', name: 'none', arguments: {}, session: 'abc' })).rejects.toThrow(
      /sessions are off on this runtime/u,
    );
    expect(() => rt.sessions.create()).toThrow(/sessions are off/u);
  });
});
