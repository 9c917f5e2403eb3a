// `ptc sessions list|show|delete --journal <file|url>`: an operator's view of the sessions
// kept in a journal's store (every agent's and principal's). list shows them without
// their state, show one with its state, delete removes one at once (its next program
// fails with SESSION_EXPIRED).
import type { Command } from 'commander';
import { openJournalPath } from '../journal/resolve-journal.ts';
import type { SessionStore, SessionSummary } from '../sessions/session-store.ts';
import { UsageError } from './usage-error.ts';

interface SessionsIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

interface SessionsFlags {
  readonly journal: string;
  readonly json?: boolean;
}

const iso = (ms: number): string => new Date(ms).toISOString();

function line(s: SessionSummary): string {
  const owner = `${s.agent ?? '(global)'}${s.principal === null ? '' : ` for ${s.principal}`}`;
  const held = s.lease !== undefined && s.lease.until > Date.now() ? ', in use' : '';
  return `${s.id}  ${owner}  ${s.bytes} bytes  saved ${iso(s.updatedAt)}  expires ${iso(s.expiresAt)}${held}`;
}

export function addSessionsCommand(program: Command, io: SessionsIo, setExit: (code: number) => void): void {
  const sessions = program
    .command('sessions')
    .description("Sessions in a journal's store (programs' saved `state`): list them, show one, delete one");

  const common = (command: Command): Command =>
    command
      .requiredOption(
        '--journal <file|url>',
        'the journal of the servers that ran the programs (a JSONL file; .db/.sqlite: SQLite; postgres://…: PostgreSQL, any host of it)',
      )
      .option('--json', 'print JSON');

  const withStore = async <T>(o: SessionsFlags, body: (store: SessionStore) => Promise<T>): Promise<T> => {
    let journal: ReturnType<typeof openJournalPath>;
    try {
      journal = openJournalPath(o.journal, '--journal');
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    try {
      try {
        await journal.ready();
      } catch (error) {
        throw new UsageError(`--journal: ${(error as Error).message}`);
      }
      if (journal.sessions === undefined) throw new UsageError(`--journal ${o.journal}: this store keeps no sessions`);
      return await body(journal.sessions);
    } finally {
      await journal.close();
    }
  };

  common(sessions.command('list').description('Live sessions, oldest first, without their state')).action(
    async (o: SessionsFlags) => {
      await withStore(o, async (store) => {
        const list = await store.listSessions(Date.now());
        if (o.json === true) io.out(`${JSON.stringify(list, null, 2)}\n`);
        else if (list.length === 0) io.out('no sessions\n');
        else for (const s of list) io.out(`${line(s)}\n`);
      });
      setExit(0);
    },
  );

  common(sessions.command('show').argument('<id>', 'the session id').description('One session with its state')).action(
    async (id: string, o: SessionsFlags) => {
      await withStore(o, async (store) => {
        const found = await store.getSession(id, Date.now());
        if (found === undefined) {
          io.err(`ptc: no live session ${id} in this journal (ptc sessions list shows them)\n`);
          setExit(1);
          return;
        }
        if (o.json === true) io.out(`${JSON.stringify(found, null, 2)}\n`);
        else
          io.out(
            `${line(found)}\nstate (as saved; {"$":[…]} marks a Map, Set, Date, … or a repeated object):\n${found.state}\n`,
          );
        setExit(0);
      });
    },
  );

  common(sessions.command('delete').argument('<id>', 'the session id').description('Removes a session at once')).action(
    async (id: string, o: SessionsFlags) => {
      await withStore(o, async (store) => {
        const deleted = await store.deleteSession(id);
        if (o.json === true) io.out(`${JSON.stringify({ id, deleted })}\n`);
        else if (deleted) io.out(`deleted session ${id}\n`);
        else io.err(`ptc: no session ${id} in this journal\n`);
        setExit(deleted ? 0 : 1);
      });
    },
  );
}
