// The JSONL file journal: whole lines, in order; a torn last line is skipped with a
// warning and never corrupts earlier entries; the next append starts on a fresh line.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JournalEvent, JournalWarning } from '../../src/journal/journal.ts';
import { openFileJournal } from '../../src/journal/file/file-journal.ts';
import { replayJournal } from '../../src/journal/replay-journal.ts';
import { spawnWatched } from '../support/watched-child.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/journal-appender.ts', import.meta.url));

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-journal-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let counter = 0;
const freshPath = (): string => join(dir, `j${(counter += 1)}.jsonl`);

const pair = (callId: string, value: number): JournalEvent[] => [
  { type: 'tool/call', callId, name: 'w', agent: null, arguments: { n: value } },
  {
    type: 'tool/result',
    callId,
    name: 'w',
    result: { callId, name: 'w', isError: false, value, content: [{ type: 'text', text: `v${value}` }] },
  },
];
const ids = (events: readonly JournalEvent[]): string[] => events.map((e) => `${e.type}:${e.callId}`);

describe('openFileJournal', () => {
  it('appends whole lines in call order and reads them back', async () => {
    const path = freshPath();
    const journal = openFileJournal(path);
    expect(await journal.read()).toEqual({ events: [], warnings: [] });
    // Concurrent appends are serialized in call order.
    await Promise.all(Array.from({ length: 10 }, (_, i) => journal.append(pair(`c${i}`, i))));
    const text = await readFile(path, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(
      text
        .split('\n')
        .slice(0, -1)
        .map((l) => JSON.parse(l) as JournalEvent),
    ).toEqual(Array.from({ length: 10 }, (_, i) => pair(`c${i}`, i)).flat());
    const { events, warnings } = await journal.read();
    expect(events).toEqual(Array.from({ length: 10 }, (_, i) => pair(`c${i}`, i)).flat());
    expect(warnings).toEqual([]);
  });

  it('skips a torn last line with a warning; the next append starts on a fresh line', async () => {
    const path = freshPath();
    await openFileJournal(path).append([...pair('a', 1), ...pair('b', 2)]);
    await appendFile(path, '{"type":"tool/call","callId":"c","na');
    const warned: JournalWarning[] = [];
    const reopened = openFileJournal(path, { onWarning: (w) => void warned.push(w) });
    const before = await reopened.read();
    expect(ids(before.events)).toEqual(['tool/call:a', 'tool/result:a', 'tool/call:b', 'tool/result:b']);
    expect(before.warnings).toEqual([
      {
        kind: 'torn-tail',
        line: 5,
        message: `${path}: line 5 is incomplete (a write was cut short, e.g. the process was killed while appending); skipped`,
      },
    ]);
    expect(warned).toEqual(before.warnings);

    await reopened.append(pair('d', 4));
    expect(warned.at(-1)?.kind).toBe('torn-tail');
    const text = await readFile(path, 'utf8');
    expect(text.split('\n').slice(4)).toEqual([
      '{"type":"tool/call","callId":"c","na',
      JSON.stringify(pair('d', 4)[0]),
      JSON.stringify(pair('d', 4)[1]),
      '',
    ]);
    const after = await openFileJournal(path, { onWarning: () => {} }).read();
    expect(ids(after.events)).toEqual([...ids(before.events), 'tool/call:d', 'tool/result:d']);
    expect(after.warnings.map((w) => [w.kind, w.line])).toEqual([['unreadable-line', 5]]);
  });

  it('keeps a last line that lost only its newline, and still starts the next one fresh', async () => {
    const path = freshPath();
    await writeFile(path, JSON.stringify(pair('a', 1)[0]));
    const journal = openFileJournal(path, { onWarning: () => {} });
    expect(ids((await journal.read()).events)).toEqual(['tool/call:a']);
    await journal.append([pair('a', 1)[1]!]);
    const { events, warnings } = await journal.read();
    expect(events).toEqual(pair('a', 1));
    expect(warnings).toEqual([]);
  });

  it('skips unreadable lines anywhere without touching the others', async () => {
    const path = freshPath();
    const lines = [...pair('a', 1), ...pair('b', 2)].map((e) => JSON.stringify(e));
    await writeFile(
      path,
      [lines[0], lines[1], 'garbage', '{"type":"other","callId":"x","name":"y"}', lines[2], lines[3], ''].join('\n'),
    );
    const { events, warnings } = await openFileJournal(path, { onWarning: () => {} }).read();
    expect(events).toEqual([...pair('a', 1), ...pair('b', 2)]);
    expect(warnings.map((w) => [w.kind, w.line])).toEqual([
      ['unreadable-line', 3],
      ['unreadable-line', 4],
    ]);
  });

  it('refuses events that are not journal events, writing nothing', async () => {
    const path = freshPath();
    const journal = openFileJournal(path);
    await expect(journal.append([{ type: 'tool/nope' } as unknown as JournalEvent])).rejects.toThrow(
      /events\[0\] is not a tool\/call or tool\/result event/,
    );
    expect(await journal.read()).toEqual({ events: [], warnings: [] });
    expect(() => openFileJournal('')).toThrow(/path must be a non-empty file path/);
  });

  /** Runs the appender until `ready(lines)` (bounded: a failure names the step), then SIGKILLs it. */
  async function killAppender(
    path: string,
    mode: 'loop' | 'tear',
    ready: (lines: readonly string[]) => boolean,
  ): Promise<number> {
    const child = spawnWatched(dir, [FIXTURE, path, String(256 * 1024), mode]);
    // Whole lines only: the last one may still be coming.
    const seen = (): string[] => child.stdout().split('\n').slice(0, -1);
    await child.until(`the appender (${mode}) to print what the test waits for`, () => ready(seen()));
    child.child.kill('SIGKILL');
    expect(await child.exited).toBe('SIGKILL');
    return Math.max(
      -1,
      ...seen()
        .filter((l) => /^\d+$/.test(l))
        .map(Number),
    );
  }

  /** Reopens after the crash: every acknowledged pair is there, in order; at most the torn line is lost. */
  async function checkAfterCrash(path: string, acked: number) {
    const reopened = openFileJournal(path, { onWarning: () => {} });
    const { events, warnings } = await reopened.read();
    const lineCount = (await readFile(path, 'utf8')).split('\n').filter((l) => l.length > 0).length;
    expect(events.length).toBeGreaterThanOrEqual(2 * (acked + 1));
    events.forEach((e, k) => {
      expect(e.callId).toBe(`c${Math.floor(k / 2)}`);
      expect(e.type).toBe(k % 2 === 0 ? 'tool/call' : 'tool/result');
    });
    expect(lineCount - events.length).toBeLessThanOrEqual(1);
    expect(warnings.length).toBe(lineCount - events.length);
    expect(warnings.every((w) => w.kind === 'torn-tail')).toBe(true);
    // Appending after the crash leaves every earlier entry readable.
    await reopened.append(pair('after', 99));
    const again = await openFileJournal(path, { onWarning: () => {} }).read();
    expect(again.events).toEqual([...events, ...pair('after', 99)]);
    expect(again.warnings.map((w) => w.kind)).toEqual(warnings.map(() => 'unreadable-line'));
    return { events, warnings };
  }

  it('survives SIGKILL while appending: the reopened journal loses at most the torn line', async () => {
    const path = freshPath();
    // Killed right after an acknowledged commit, most likely while writing the next pair.
    const acked = await killAppender(path, 'loop', (lines) => lines.length >= 4);
    expect(acked).toBeGreaterThanOrEqual(3);
    await checkAfterCrash(path, acked);
  });

  it('survives SIGKILL in the middle of a write: exactly the torn line is skipped', async () => {
    const path = freshPath();
    const acked = await killAppender(path, 'tear', (lines) => lines.includes('torn'));
    expect(acked).toBe(2);
    const { events, warnings } = await checkAfterCrash(path, acked);
    // Half of the pair's bytes: c3's call line is whole, its result line is torn.
    expect(ids(events).slice(-2)).toEqual(['tool/result:c2', 'tool/call:c3']);
    expect(warnings.map((w) => [w.kind, w.line])).toEqual([['torn-tail', 8]]);
    // Replay shows that call as interrupted, and every earlier one whole.
    const replay = await replayJournal(openFileJournal(path, { onWarning: () => {} }), { tool: () => undefined });
    expect(replay.executions.map((e) => e.callId)).toEqual(['c0', 'c1', 'c2', 'after']);
    expect(replay.interrupted.map((c) => c.callId)).toEqual(['c3']);
  });
});
