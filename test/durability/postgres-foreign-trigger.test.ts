// A trigger someone put on the journal table of a shared PostgreSQL database runs
// inside every append. It runs on the server, not on the host's event loop; the store
// names it in a warning at start and bounds each statement with the session's
// statement_timeout, so a trigger that never ends fails the append instead of holding
// it (and a pooled connection) forever. On a throwaway cluster, no mock.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { openPostgresJournal } from '../../src/index.ts';
import type { JournalEvent } from '../../src/journal/journal.ts';
import { startPostgres, type PostgresCluster } from '../support/postgres-cluster.ts';

let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

const call = (callId: string): JournalEvent => ({ type: 'tool/call', callId, name: 'w', agent: null, arguments: {} });

describe('a trigger on the PostgreSQL journal table', () => {
  it('is named in a warning at start, and a never-ending one fails the append at statementTimeoutMs', async () => {
    const url = await cluster.createDatabase('foreign_trigger');
    const first = openPostgresJournal(url);
    await first.append([call('before')]);
    await first.close();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE FUNCTION spin() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(3600); RETURN NEW; END $$;
      CREATE TRIGGER spin AFTER INSERT ON ptc_journal FOR EACH ROW EXECUTE FUNCTION spin();`);

    const warnings: string[] = [];
    const emitWarning = process.emitWarning;
    process.emitWarning = ((warning: string | Error) => {
      warnings.push(typeof warning === 'string' ? warning : warning.message);
    }) as typeof process.emitWarning;
    const journal = openPostgresJournal(url, { statementTimeoutMs: 500 });
    try {
      await journal.ready();
      expect(warnings.join('\n')).toMatch(
        /the database has trigger "spin" on ptc_journal, which ptc-runtime did not create; it runs inside every append \(each statement ended by the server after 500 ms/,
      );
      // The host's event loop keeps turning while the trigger runs on the server.
      let ticks = 0;
      const ticker = setInterval(() => (ticks += 1), 20);
      const started = Date.now();
      const error = await journal.append([call('during')]).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      clearInterval(ticker);
      expect(error?.message).toMatch(/statement timeout/);
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(ticks).toBeGreaterThan(0);
      // Nothing of it still runs on the server, and nothing was half-written.
      const active = await admin.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'INSERT INTO ptc_journal%' AND state = 'active'",
      );
      expect(active.rows[0].n).toBe(0);
      const stored = await admin.query('SELECT call_id FROM ptc_journal ORDER BY seq');
      expect(stored.rows.map((r: { call_id: string }) => r.call_id)).toEqual(['before']);
    } finally {
      process.emitWarning = emitWarning;
      await journal.close();
      await admin.end();
    }
  });
});
