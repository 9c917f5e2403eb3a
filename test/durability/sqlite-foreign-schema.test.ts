// A SQLite journal file someone else prepared: a trigger on the journal table (run by
// every append on the host's event loop — one with a recursive query never ends), a view
// standing in for the journal table (every read would run it), an index redefined, a
// stranger's table. The store refuses the file at open with one line naming what it
// found and how to fix it; removing it as told opens the file with nothing lost.
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.ts';
import { createToolRuntime, openSqliteJournal, replayJournal } from '../../src/index.ts';
import { registerPaymentTools } from './fixtures/payment-tools.ts';

const dir = mkdtempSync(join(tmpdir(), 'ptc-sqlite-foreign-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const TOOLS = fileURLToPath(new URL('../mcp/fixtures/tools.ts', import.meta.url));

/** A recursive query that never ends. */
const SPIN = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';

/** A journal file with one call journaled by the store itself, then `sql` run on it by someone else. */
async function preparedJournal(name: string, sql: string): Promise<string> {
  const path = join(dir, name);
  const journal = openSqliteJournal(path);
  const rt = createToolRuntime({ sandbox: false, journal });
  registerPaymentTools(rt);
  await rt.execute({ callId: 'before', name: 'lookup', arguments: { who: 'dee' } });
  await rt.close();
  journal.close();
  const db = new DatabaseSync(path);
  db.exec(sql);
  db.close();
  return path;
}

describe('a SQLite journal whose schema holds what the store did not create', () => {
  it('refuses a trigger on the journal table at open, names it and says how to drop it', async () => {
    const path = await preparedJournal(
      'trigger.db',
      `CREATE TRIGGER spin AFTER INSERT ON ptc_journal BEGIN SELECT (${SPIN}); END;`,
    );
    let message = '';
    try {
      openSqliteJournal(path);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('trigger "spin" on ptc_journal');
    expect(message).toContain('which the journal did not create');
    expect(message).toContain(`sqlite3 ${path} 'DROP TRIGGER "spin";'`);
    expect(message.split('\n')).toHaveLength(1);
    // Every entry point refuses it, before any append could fire the trigger.
    expect(() => createToolRuntime({ journal: path })).toThrow(/trigger "spin"/);
    const presenter = createToolRuntime({ sandbox: false });
    registerPaymentTools(presenter);
    await expect(replayJournal(path, presenter)).rejects.toThrow(/trigger "spin"/);
    let err = '';
    const code = await main(['serve', '--tools', TOOLS, '--journal', path], { out: () => {}, err: (t) => (err += t) });
    expect(code).toBe(2);
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(err).toContain('--journal');
    expect(err).toContain('trigger "spin"');

    // Dropped as told: the file opens, the journaled call is still there, appends work.
    const db = new DatabaseSync(path);
    db.exec('DROP TRIGGER "spin";');
    db.close();
    const journal = openSqliteJournal(path);
    const rt = createToolRuntime({ sandbox: false, journal });
    registerPaymentTools(rt);
    await rt.execute({ callId: 'after', name: 'lookup', arguments: { who: 'cy' } });
    await rt.close();
    const { events } = await journal.read();
    expect(events.filter((e) => e.type === 'tool/call').map((e) => e.callId)).toEqual(['before', 'after']);
    journal.close();
  });

  it('refuses a view standing in for the journal table, a redefined index and a stranger table', async () => {
    const view = join(dir, 'view.db');
    const db = new DatabaseSync(view);
    db.exec(`CREATE VIEW ptc_journal AS ${SPIN.replace('count(*)', "x AS seq, 0 AS at, '' AS event")}`);
    db.close();
    expect(() => openSqliteJournal(view)).toThrow(
      /view "ptc_journal" \(not as the journal defines it\).*use a new file for the journal$/,
    );

    const index = await preparedJournal(
      'index.db',
      'DROP INDEX ptc_journal_at; CREATE INDEX ptc_journal_at ON ptc_journal (length(event) * length(event));',
    );
    expect(() => openSqliteJournal(index)).toThrow(
      /index "ptc_journal_at" on ptc_journal \(not as the journal defines it\)/,
    );

    const stranger = await preparedJournal('stranger.db', 'CREATE TABLE notes (x TEXT); CREATE VIEW v AS SELECT 1;');
    expect(() => openSqliteJournal(stranger)).toThrow(
      /table "notes", view "v", which the journal did not create.*DROP TABLE "notes"; DROP VIEW "v";/,
    );
  });

  it("opens the store's own files as before: fresh, reopened, and after ANALYZE", async () => {
    const path = await preparedJournal('analyzed.db', 'ANALYZE;');
    const journal = openSqliteJournal(path);
    expect((await journal.read()).events.length).toBeGreaterThan(0);
    journal.close();
    const fresh = openSqliteJournal(join(dir, 'fresh.sqlite'));
    fresh.close();
    openSqliteJournal(join(dir, 'fresh.sqlite')).close();
  });
});
