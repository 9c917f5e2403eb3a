// The SQLite store's own surface: queries by root call, agent and time (nested calls
// and results included), its checks, and a quiet start (no warning on stderr).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { openSqliteJournal } from '../../src/index.ts';
import { entryIds, expectTwoAgentQueries, journalTwoAgents } from './fixtures/journal-queries.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-sqlite-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('openSqliteJournal', () => {
  it('is queryable by root call, agent and time, nested calls and results included', async () => {
    let clock = 1_000;
    const journal = openSqliteJournal(join(dir, 'query.sqlite'), { now: () => (clock += 10) });
    const { start, middle } = await journalTwoAgents(journal, () => clock);
    await expectTwoAgentQueries(journal, middle);
    // Beyond the shared answers: a time window, each entry's time, paging within a root call.
    expect(entryIds(await journal.query({ since: new Date(start), until: middle + 1 }))).toHaveLength(6);
    const all = await journal.query();
    expect(all.map((e) => e.at)).toEqual(Array.from({ length: 8 }, (_, i) => start + 10 * (i + 1)));
    expect((await journal.query({ rootCallId: 'p1', afterSeq: 5 })).map((e) => e.seq)).toEqual([6]);
    journal.close();
  });

  it('checks its input and refuses appends once closed', async () => {
    expect(() => openSqliteJournal('')).toThrow(
      'openSqliteJournal: path must be a non-empty file path (or ":memory:")',
    );
    const journal = openSqliteJournal(':memory:');
    await expect(journal.query({ since: 'yesterday' as never })).rejects.toThrow(
      'journal query: since must be a Date or milliseconds since the epoch',
    );
    await expect(journal.query({ type: 'tool/other' as never })).rejects.toThrow(
      'journal query: type must be "tool/call" or "tool/result", got "tool/other"',
    );
    await expect(journal.query({ limit: 0 })).rejects.toThrow('journal query: limit must be an integer >= 1, got 0');
    await expect(journal.query({ afterSeq: 1.5 })).rejects.toThrow(
      'journal query: afterSeq must be an integer >= 0, got 1.5',
    );
    journal.close();
    await expect(
      journal.append([{ type: 'tool/call', callId: 'a', name: 'x', agent: null, arguments: null }]),
    ).rejects.toThrow(':memory:: closed');
  });

  it('opens without printing anything (no ExperimentalWarning on stderr)', async () => {
    const entry = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
    const script = `const { openSqliteJournal } = await import(${JSON.stringify(entry)}); const j = openSqliteJournal(':memory:'); await j.append([]); j.close(); console.log('ok');`;
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
    expect(stdout).toBe('ok\n');
    expect(stderr).toBe('');
  });
});
