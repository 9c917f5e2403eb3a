// Sessions of the JSONL store, in files beside the journal: `<journal>.sessions/<id>/`
// holds numbered records, `<n>.session`, the highest being the session as it is now (a
// whole SessionRecord, or a deletion). Every change writes record n+1 whole to a
// temporary file, fsyncs it, and links it to its number, which fails if the number
// exists (the same scheme as the run claims, file-run-claims.ts): of two processes
// changing a session at once exactly one wins, a reader never sees half a record, and a
// crash leaves the previous record in force. Records below the top are then removed, so
// a session is one file at rest. So sessions survive a restart and are shared by every
// process of one machine's journal.
import { randomUUID } from 'node:crypto';
import { link, mkdir, open, readdir, readFile, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { LeaseOutcome, SessionRecord, SessionStore, SessionSummary } from '../../sessions/session-store.ts';

/** Session ids are directory names here: the runtime's ids (base64url) always pass; others are unknown. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/u;
const RECORD_NAME = /^(\d{1,15})\.session$/u;
const TEMPORARY_NAME = /^\.(\d{1,15})\.[0-9a-f-]{36}\.tmp$/u;
/** Rounds of "look, write n+1" before giving up: each lost round means another writer won one. */
const MAX_ROUNDS = 64;
/**
 * Largest record file read (a session's state is bounded by `sessions.maxBytes`, 8 MiB by
 * default, when it is written; a bigger or unreadable file is a damaged session, read as none).
 */
export const MAX_SESSION_FILE_BYTES = 64 * 1_048_576;

type Entry = { readonly record: SessionRecord } | { readonly deleted: true };

function parseEntry(text: string): Entry | undefined {
  try {
    const parsed = JSON.parse(text) as { record?: SessionRecord; deleted?: unknown } | null;
    if (parsed === null || typeof parsed !== 'object') return undefined;
    if (parsed.deleted === true) return { deleted: true };
    const r = parsed.record;
    const ok =
      typeof r === 'object' &&
      r !== null &&
      typeof r.id === 'string' &&
      typeof r.state === 'string' &&
      Number.isSafeInteger(r.version) &&
      Number.isFinite(r.expiresAt) &&
      (r.agent === null || typeof r.agent === 'string') &&
      (r.principal === null || typeof r.principal === 'string');
    return ok ? { record: Object.freeze({ ...r }) } : undefined;
  } catch {
    return undefined;
  }
}

interface Top {
  readonly n: number;
  readonly entry: Entry | undefined;
}

/** A session store in files beside a JSONL journal (see the file comment). */
export function createFileSessionStore(journalPath: string): SessionStore {
  const root = `${journalPath}.sessions`;
  const dirOf = (id: string): string | undefined => (SAFE_ID.test(id) ? join(root, id) : undefined);

  const names = async (dir: string): Promise<string[]> => {
    try {
      return await readdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  };

  const top = async (dir: string): Promise<Top | undefined> => {
    const found = (await names(dir)).flatMap((name) => {
      const match = RECORD_NAME.exec(name);
      return match === null ? [] : [Number(match[1])];
    });
    if (found.length === 0) return undefined;
    const n = Math.max(...found);
    const file = join(dir, `${n}.session`);
    try {
      if ((await stat(file)).size > MAX_SESSION_FILE_BYTES) return { n, entry: undefined };
      return { n, entry: parseEntry(await readFile(file, 'utf8')) };
    } catch (error) {
      // Removed between the listing and the read: only records below a higher one are, so look again.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return top(dir);
      throw error;
    }
  };

  /** The session at the top of `dir` when it is live at `now`. */
  const liveOf = (current: Top | undefined, now: number): SessionRecord | undefined => {
    const entry = current?.entry;
    return entry !== undefined && 'record' in entry && entry.record.expiresAt > now ? entry.record : undefined;
  };

  /** Writes record number `n` unless it exists; true when this call wrote it. */
  const place = async (dir: string, n: number, entry: Entry): Promise<boolean> => {
    const temporary = join(dir, `.${n}.${randomUUID()}.tmp`);
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(temporary, 'wx');
    } catch (error) {
      // The session's directory was removed (deleted, expired): nothing to write into.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    try {
      await handle.writeFile(JSON.stringify(entry));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temporary, join(dir, `${n}.session`));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' || code === 'ENOENT') return false;
      throw error;
    } finally {
      await unlink(temporary).catch(() => {});
    }
    // The new name is durable only once its directory is.
    const directory = await open(dir, 'r');
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
    return true;
  };

  /** Drops records below the top `n` and temporary files up to it (crashed writers' leftovers). */
  const removeBelow = async (dir: string, n: number): Promise<void> => {
    for (const name of await names(dir)) {
      const record = RECORD_NAME.exec(name);
      const temporary = TEMPORARY_NAME.exec(name);
      const stale = record !== null ? Number(record[1]) < n : temporary !== null && Number(temporary[1]) <= n;
      if (stale) await unlink(join(dir, name)).catch(() => {});
    }
  };

  /**
   * Compare-and-set: `decide` looks at the top and returns the entry to write next (or a
   * final answer); the write wins only if no other writer took the number first.
   */
  const change = async <T>(
    dir: string,
    decide: (current: Top | undefined) => { readonly write: Entry; readonly onWritten: T } | { readonly answer: T },
  ): Promise<T> => {
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const current = await top(dir);
      const step = decide(current);
      if ('answer' in step) return step.answer;
      const n = (current?.n ?? 0) + 1;
      if (!(await place(dir, n, step.write))) continue;
      const after = await top(dir);
      if (after !== undefined && after.n > n) continue;
      await removeBelow(dir, n);
      return step.onWritten;
    }
    throw new Error(
      `session store ${root}: a session changed ${MAX_ROUNDS} times while this change was made; try again`,
    );
  };

  /** A deleted or expired session's directory goes (its top record said so first). */
  const remove = async (dir: string): Promise<void> => {
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  };

  const withoutLease = (record: SessionRecord): SessionRecord => {
    const { lease: _dropped, ...rest } = record;
    return rest;
  };

  return {
    async getSession(id, now) {
      const dir = dirOf(id);
      return dir === undefined ? undefined : liveOf(await top(dir), now);
    },

    async leaseSession(id, lease, expiresAt, now): Promise<LeaseOutcome> {
      const dir = dirOf(id);
      if (dir === undefined) return { kind: 'missing' };
      return change<LeaseOutcome>(dir, (current) => {
        const record = liveOf(current, now);
        if (record === undefined) return { answer: { kind: 'missing' } };
        const held = record.lease;
        if (held !== undefined && held.owner !== lease.owner && held.until > now)
          return { answer: { kind: 'busy', lease: held } };
        const leased: SessionRecord = { ...record, expiresAt, lease: { ...lease } };
        return { write: { record: leased }, onWritten: { kind: 'leased', record: leased } };
      });
    },

    async saveSession(record, owner, now) {
      const dir = dirOf(record.id);
      if (dir === undefined) return false;
      if (record.version === 1) await mkdir(dir, { recursive: true });
      return change(dir, (current) => {
        const stored = liveOf(current, now);
        // Version 1 creates: refused when the id was ever used (its directory has a record).
        if (record.version === 1 ? current !== undefined : stored?.version !== record.version - 1)
          return { answer: false };
        const held = stored?.lease;
        if (held !== undefined && held.owner !== owner && held.until > now) return { answer: false };
        return { write: { record: withoutLease(record) }, onWritten: true };
      });
    },

    async releaseSession(id, owner) {
      const dir = dirOf(id);
      if (dir === undefined) return;
      await change(dir, (current) => {
        const entry = current?.entry;
        if (entry === undefined || !('record' in entry) || entry.record.lease?.owner !== owner)
          return { answer: undefined };
        return { write: { record: withoutLease(entry.record) }, onWritten: undefined };
      });
    },

    async deleteSession(id) {
      const dir = dirOf(id);
      if (dir === undefined) return false;
      const deleted = await change(dir, (current) =>
        current?.entry !== undefined && 'record' in current.entry
          ? { write: { deleted: true }, onWritten: true }
          : { answer: false },
      );
      if (deleted) await remove(dir);
      return deleted;
    },

    async listSessions(now): Promise<SessionSummary[]> {
      const out: SessionSummary[] = [];
      for (const id of await names(root)) {
        const dir = dirOf(id);
        if (dir === undefined) continue;
        const current = await top(dir);
        const record = liveOf(current, now);
        if (record !== undefined) {
          const { state: _state, ...summary } = record;
          out.push(summary);
          continue;
        }
        // Expired (or deleted): marked deleted first, so a racing save cannot bring it back, then removed.
        const entry = current?.entry;
        if (entry !== undefined && 'record' in entry && entry.record.expiresAt <= now) {
          const gone = await change(dir, (again) =>
            again?.n === current?.n ? { write: { deleted: true }, onWritten: true } : { answer: false },
          );
          if (gone) await remove(dir);
        }
      }
      return out.sort((a, b) => a.createdAt - b.createdAt);
    },
  };
}
