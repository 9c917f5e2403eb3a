// Run claims of the JSONL store, on nothing but a local file system's atomic link(2).
// Each run has a directory beside the journal (`<journal>.runs/<runId>/`) of numbered
// records, `<n>.claim`; the highest number is the run's state: a claim (who holds it)
// or a release. A record is written whole to a temporary file and then linked to its
// number, which fails if the number exists: of two processes writing number n+1, exactly
// one succeeds, and a reader never sees a half-written claim.
//
// Why numbered records, not one lock file: a single file must be removed to take over a
// dead holder's claim, and "read, judge stale, remove" races — two processes judge the
// same stale claim and the second removes the first's fresh one, so both hold the run.
// Here a takeover adds n+1 instead of removing n, and a writer checks after writing that
// no higher record exists (else it lost to a later writer). The highest record is never
// removed (records below it are), so numbers never go back and that check is sound.
import { randomUUID } from 'node:crypto';
import { link, mkdir, open, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isClaimLive, isRunClaim, type RunClaim, type RunClaims } from '../run-claims.ts';

/** Run ids are directory names here: the runtime's own ids (UUIDs) always pass. */
const SAFE_RUN_ID = /^[A-Za-z0-9_-]{1,128}$/;
const RECORD_NAME = /^(\d{1,15})\.claim$/;
/** A record being written: `.<n>.<uuid>.tmp`, linked to `<n>.claim` once whole. */
const TEMPORARY_NAME = /^\.(\d{1,15})\.[0-9a-f-]{36}\.tmp$/;
/** Rounds of "look, write n+1" before giving up: each lost round means another writer won one. */
const MAX_CLAIM_ROUNDS = 64;

/** What a record holds: the holder's claim, or that `owner` released the run. */
type ClaimRecord = { readonly claim: RunClaim } | { readonly released: string };

interface TopRecord {
  readonly n: number;
  /** Undefined when the record cannot be read (a damaged file): it holds nothing. */
  readonly record: ClaimRecord | undefined;
}

function parseRecord(text: string): ClaimRecord | undefined {
  try {
    const parsed = JSON.parse(text) as { claim?: unknown; released?: unknown } | null;
    if (parsed === null || typeof parsed !== 'object') return undefined;
    if (isRunClaim(parsed.claim)) return { claim: parsed.claim };
    if (typeof parsed.released === 'string') return { released: parsed.released };
    return undefined;
  } catch {
    return undefined;
  }
}

export function createFileRunClaims(journalPath: string): RunClaims {
  const root = `${journalPath}.runs`;
  const dirOf = (runId: string): string => {
    if (!SAFE_RUN_ID.test(runId))
      throw new TypeError(`run id ${JSON.stringify(runId)} is not a valid run id (letters, digits, - and _)`);
    return join(root, runId);
  };

  const names = async (dir: string): Promise<string[]> => {
    try {
      return await readdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  };

  const numbers = async (dir: string): Promise<number[]> => {
    const found: number[] = [];
    for (const name of await names(dir)) {
      const match = RECORD_NAME.exec(name);
      if (match !== null) found.push(Number(match[1]));
    }
    return found;
  };

  const top = async (dir: string): Promise<TopRecord | undefined> => {
    const found = await numbers(dir);
    if (found.length === 0) return undefined;
    const n = Math.max(...found);
    try {
      return { n, record: parseRecord(await readFile(join(dir, `${n}.claim`), 'utf8')) };
    } catch (error) {
      // Removed between the listing and the read: only records below a higher one are, so look again.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return top(dir);
      throw error;
    }
  };

  /** Writes record number `n` unless it exists; true when this call wrote it. */
  const place = async (dir: string, n: number, record: ClaimRecord): Promise<boolean> => {
    const temporary = join(dir, `.${n}.${randomUUID()}.tmp`);
    const handle = await open(temporary, 'wx');
    try {
      await handle.writeFile(JSON.stringify(record));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temporary, join(dir, `${n}.claim`));
      return true;
    } catch (error) {
      // ENOENT: a writer of a higher record removed our temporary file as a crashed
      // writer's leftover; number n is decided already, so we lost it either way.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' || code === 'ENOENT') return false;
      throw error;
    } finally {
      await unlink(temporary).catch(() => {});
    }
  };

  /**
   * Drops records below `n`, the top (best effort): they no longer decide anything. Also
   * temporary files up to `n`, left by writers that crashed before linking them (a live
   * writer of one would lose its number anyway), so crashes leave no growing garbage.
   */
  const removeBelow = async (dir: string, n: number): Promise<void> => {
    for (const name of await names(dir)) {
      const record = RECORD_NAME.exec(name);
      const temporary = TEMPORARY_NAME.exec(name);
      const stale = record !== null ? Number(record[1]) < n : temporary !== null && Number(temporary[1]) <= n;
      if (stale) await unlink(join(dir, name)).catch(() => {});
    }
  };

  return {
    async claimRun(claim) {
      const dir = dirOf(claim.runId);
      await mkdir(dir, { recursive: true });
      for (let round = 0; round < MAX_CLAIM_ROUNDS; round++) {
        const current = await top(dir);
        const held = current?.record !== undefined && 'claim' in current.record ? current.record.claim : undefined;
        if (held !== undefined) {
          if (held.owner === claim.owner) return undefined; // already ours
          if (isClaimLive(held)) return held;
        }
        // Free, released, damaged or stale: add the next record.
        const n = (current?.n ?? 0) + 1;
        if (!(await place(dir, n, { claim }))) continue; // another writer took n: look again
        const after = await top(dir);
        if (after !== undefined && after.n > n) continue; // a later writer is above ours: look again
        await removeBelow(dir, n);
        return undefined;
      }
      throw new Error(
        `could not claim run ${claim.runId}: its claim changed ${MAX_CLAIM_ROUNDS} times while claiming; try again`,
      );
    },
    async releaseRun(runId, owner) {
      const dir = dirOf(runId);
      const current = await top(dir);
      if (current?.record === undefined || !('claim' in current.record) || current.record.claim.owner !== owner) return;
      // If n+1 exists someone took the run over already: nothing of ours to release.
      if (await place(dir, current.n + 1, { released: owner })) await removeBelow(dir, current.n + 1);
    },
    async runClaim(runId) {
      const current = await top(dirOf(runId));
      return current?.record !== undefined && 'claim' in current.record ? current.record.claim : undefined;
    },
  };
}
