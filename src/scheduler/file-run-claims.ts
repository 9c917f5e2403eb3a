// Run claims of the JSONL store: one lock file per claimed run beside the journal
// (`<journal>.runs/<runId>.claim`), created with O_EXCL, so of two processes claiming a
// run at once exactly one creates it. The file holds the claim as JSON; a stale one (its
// process is gone) is removed and the claim tried once more (O_EXCL again decides).
import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isClaimLive, isRunClaim, type RunClaim, type RunClaims } from './run-claims.ts';

/** Run ids are file names here: the runtime's own ids (UUIDs) always pass. */
const SAFE_RUN_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function createFileRunClaims(journalPath: string): RunClaims {
  const dir = `${journalPath}.runs`;
  const fileOf = (runId: string): string => {
    if (!SAFE_RUN_ID.test(runId))
      throw new TypeError(`run id ${JSON.stringify(runId)} is not a valid run id (letters, digits, - and _)`);
    return join(dir, `${runId}.claim`);
  };
  const readClaim = async (file: string): Promise<RunClaim | undefined> => {
    try {
      const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
      return isRunClaim(parsed) ? parsed : undefined;
    } catch {
      return undefined; // absent, or torn by a crash while being written: no live holder
    }
  };
  const create = async (file: string, claim: RunClaim): Promise<boolean> => {
    let handle;
    try {
      handle = await open(file, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
    try {
      await handle.writeFile(JSON.stringify(claim));
      await handle.sync();
    } finally {
      await handle.close();
    }
    return true;
  };
  return {
    async claimRun(claim) {
      const file = fileOf(claim.runId);
      await mkdir(dir, { recursive: true });
      for (let attempt = 0; attempt < 2; attempt++) {
        if (await create(file, claim)) return undefined;
        const current = await readClaim(file);
        if (current !== undefined && isClaimLive(current)) return current;
        // Stale (or unreadable after a crash): remove it and race for it once more.
        await unlink(file).catch(() => {});
      }
      const holder = await readClaim(file);
      return holder ?? { ...claim, owner: 'unknown' };
    },
    async releaseRun(runId, owner) {
      const file = fileOf(runId);
      const current = await readClaim(file);
      if (current?.owner === owner) await unlink(file).catch(() => {});
    },
    async runClaim(runId) {
      return readClaim(fileOf(runId));
    },
  };
}
