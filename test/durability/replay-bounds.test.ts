// Replay of what a crash or a stranger leaves behind: one store rule for every entry
// point (a .db path is SQLite in replayJournal too), a journal in a missing folder refused
// at start, junk lines counted rather than listed, a well-formed line of the wrong shape
// skipped with a warning, a long parent chain without recursion, and an interrupted
// parent kept in the tree with its finished children.
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.ts';
import { createToolRuntime, defineTool, replayJournal } from '../../src/index.ts';
import { MAX_PARSE_WARNINGS } from '../../src/journal/parse-journal.ts';
import type { PresentationNode } from '../../src/journal/presentation-tree.ts';

const dir = mkdtempSync(join(tmpdir(), 'ptc-replay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const TOOLS = fileURLToPath(new URL('../mcp/fixtures/tools.ts', import.meta.url));

const echo = defineTool({
  name: 'echo',
  description: 'Echoes.',
  parameters: { n: { type: 'number', required: true } },
  output: { schema: { type: 'number' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
  execute: (args) => args.n,
});
const presenter = createToolRuntime({ mode: 'native', sandbox: false });
presenter.register(echo);

const call = (callId: string, parentCallId?: string): string =>
  JSON.stringify({
    type: 'tool/call',
    callId,
    name: 'echo',
    agent: null,
    arguments: { n: 1 },
    ...(parentCallId === undefined ? {} : { parentCallId, rootCallId: 'c0' }),
  });
const result = (callId: string): string =>
  JSON.stringify({
    type: 'tool/result',
    callId,
    name: 'echo',
    result: { callId, name: 'echo', isError: false, value: 1, content: [{ type: 'text', text: '1' }] },
  });

describe('replay and the journal rule', () => {
  it('replayJournal of a .db path reads the SQLite store the runtime wrote', async () => {
    const path = join(dir, 'calls.db');
    const rt = createToolRuntime({ mode: 'native', sandbox: false, journal: path });
    rt.register(echo);
    expect((await rt.execute({ callId: 'a', name: 'echo', arguments: { n: 5 } })).value).toBe(5);
    await rt.close();
    const replay = await replayJournal(path, presenter);
    expect(replay.warnings).toEqual([]);
    expect(replay.executions.map((e) => e.callId)).toEqual(['a']);
  });

  it('a journal in a missing folder fails at start: a TypeError, and `ptc serve` exits 2 with one line', async () => {
    const missing = join(dir, 'no-such-folder', 'j.jsonl');
    expect(() => createToolRuntime({ journal: missing })).toThrow(/the folder .*no-such-folder does not exist/);
    await expect(replayJournal(missing, presenter)).rejects.toThrow(/does not exist/);
    let err = '';
    const code = await main(['serve', '--tools', TOOLS, '--journal', missing], {
      out: () => {},
      err: (t) => (err += t),
    });
    expect(code).toBe(2);
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(err).toContain('--journal');
    expect(err).toContain('does not exist');
  });

  it(`lists at most ${MAX_PARSE_WARNINGS} junk lines and counts the rest; a wrong-shape line is skipped, not fatal`, async () => {
    const path = join(dir, 'junk.jsonl');
    const wrongShape = JSON.stringify({
      type: 'tool/result',
      callId: 'w',
      name: 'echo',
      result: { callId: 'w', isError: false, content: [null] },
    });
    const lines = [call('w'), wrongShape, call('ok'), result('ok'), ...Array.from({ length: 200_000 }, () => 'x')];
    writeFileSync(path, `${lines.join('\n')}\n`);
    const replay = await replayJournal(path, presenter);
    expect(replay.executions.map((e) => e.callId)).toEqual(['ok']);
    expect(replay.interrupted.map((c) => c.callId)).toEqual(['w']);
    expect(replay.warnings.length).toBeLessThanOrEqual(MAX_PARSE_WARNINGS + 1);
    expect(replay.warnings.at(-1)?.message).toMatch(/\d+ more lines are not journal events/);
  });

  it('a parent chain 20,000 calls long replays without recursion', async () => {
    const depth = 20_000;
    const lines: string[] = [];
    for (let i = 0; i < depth; i++) lines.push(call(`c${i}`, i === 0 ? undefined : `c${i - 1}`));
    for (let i = depth - 1; i >= 0; i--) lines.push(result(`c${i}`));
    const path = join(dir, 'chain.jsonl');
    writeFileSync(path, `${lines.join('\n')}\n`);
    const replay = await replayJournal(path, presenter);
    expect(replay.tree).toHaveLength(1);
    let node: PresentationNode | undefined = replay.tree[0];
    let levels = 0;
    while (node !== undefined) {
      levels += 1;
      node = node.children[0];
    }
    expect(levels).toBe(depth);
    expect(Object.isFrozen(replay.tree[0]!.children)).toBe(true);
  });

  it('keeps an interrupted parent in the tree, with its finished children under it', async () => {
    const path = join(dir, 'interrupted.jsonl');
    writeFileSync(path, `${[call('c0'), call('c1', 'c0'), result('c1'), call('c2', 'c0'), result('c2')].join('\n')}\n`);
    const replay = await replayJournal(path, presenter);
    expect(replay.interrupted.map((c) => c.callId)).toEqual(['c0']);
    expect(replay.tree.map((n) => n.presentation.callId)).toEqual(['c0']);
    expect(replay.tree[0]!.children.map((n) => n.presentation.callId)).toEqual(['c1', 'c2']);
    expect(replay.tree[0]!.presentation.result).toMatchObject({ isError: true, error: { code: 'INTERRUPTED' } });
  });
});
