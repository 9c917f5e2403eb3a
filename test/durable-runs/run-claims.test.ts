// Run claims of every shipped store (PostgreSQL on a throwaway cluster): one holder at
// a time, across real processes; a claim whose process died is taken over; only the
// owner releases.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMemoryJournal } from '../../src/journal/memory/memory-journal.ts';
import { isClaimLive, newClaim } from '../../src/journal/run-claims.ts';
import { spawnWatched } from '../support/watched-child.ts';
import {
  freshStore,
  openStore,
  STORE_KINDS,
  startStoreServers,
  stopStoreServers,
  type StoreKind,
} from '../durability/fixtures/stores.ts';

const CLAIMER = fileURLToPath(new URL('./fixtures/claim-run.ts', import.meta.url));

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-claims-'));
  await startStoreServers();
}, 120_000);
afterAll(async () => {
  await stopStoreServers();
  await rm(dir, { recursive: true, force: true });
});
let counter = 0;
const fresh = (kind: StoreKind): Promise<string> => freshStore(dir, kind, `c${(counter += 1)}`);

/** Runs the claimer child; resolves with its report (bounded: a failure names the claimer) and its exit. */
function claimInChild(
  kind: StoreKind,
  path: string,
  runId: string,
  owner: string,
  mode: 'hold' | 'exit' | 'release',
): {
  report: Promise<{ won: boolean; holder?: string }>;
  exited: Promise<void>;
  kill(): Promise<void>;
  pid: number;
} {
  const child = spawnWatched(dir, ['--no-node-snapshot', CLAIMER, kind, path, runId, owner, mode]);
  const report = child
    .until(`the ${kind} claimer ${owner} (${mode}) to report`, () => child.stdout().includes('\n'))
    .then(() => JSON.parse(child.stdout().split('\n')[0]!) as { won: boolean; holder?: string });
  return { report, exited: child.exited.then(() => {}), pid: child.child.pid ?? 0, kill: child.kill };
}

describe.each(STORE_KINDS)('run claims (%s store)', (kind) => {
  it('one holder at a time; only the owner releases; then another may claim', async () => {
    const store = openStore(kind, await fresh(kind));
    const claims = store.journal.claims!;
    expect(await claims.claimRun(newClaim('run-1', 'a'))).toBeUndefined();
    expect((await claims.claimRun(newClaim('run-1', 'b')))?.owner).toBe('a');
    expect(await claims.claimRun(newClaim('run-2', 'b'))).toBeUndefined();
    await claims.releaseRun('run-1', 'b'); // not b's: nothing happens
    expect((await claims.runClaim('run-1'))?.owner).toBe('a');
    await claims.releaseRun('run-1', 'a');
    expect(await claims.runClaim('run-1')).toBeUndefined();
    expect(await claims.claimRun(newClaim('run-1', 'b'))).toBeUndefined();
    await store.close();
  });

  it('of two processes claiming one run at once, exactly one wins; a dead holder is taken over', async () => {
    const path = await fresh(kind);
    await openStore(kind, path).close(); // create the store first, as a runtime would
    const children = [1, 2, 3].map((n) => claimInChild(kind, path, 'shared-run', `owner-${n}`, 'hold'));
    const reports = await Promise.all(children.map((c) => c.report));
    const winners = reports.filter((r) => r.won);
    expect(winners).toHaveLength(1);
    const winner = children[reports.indexOf(winners[0]!)]!;
    for (const r of reports.filter((x) => !x.won)) expect(r.holder).toBe(`owner-${reports.indexOf(winners[0]!) + 1}`);
    // The holder is alive: this process cannot take the run.
    const store = openStore(kind, path);
    const held = await store.journal.claims!.claimRun(newClaim('shared-run', 'parent'));
    expect(held?.pid).toBe(winner.pid);
    expect(isClaimLive(held!)).toBe(true);
    await Promise.all(children.map((c) => c.kill()));
    // Its process is gone: the claim is stale and taken over.
    const stale = await store.journal.claims!.runClaim('shared-run');
    expect(stale === undefined ? false : isClaimLive(stale)).toBe(false);
    expect(await store.journal.claims!.claimRun(newClaim('shared-run', 'parent'))).toBeUndefined();
    await store.close();
  }, 60_000);

  it('a process that released its claims and left its store open still exits on its own', async () => {
    const path = await fresh(kind);
    await openStore(kind, path).close();
    const child = claimInChild(kind, path, 'done-run', 'short-lived', 'release');
    expect(await child.report).toEqual({ won: true });
    // Nothing it holds keeps it alive (a claim's connection goes back to an idle pool).
    // The bound's timer is cleared: left running, it kept the test worker alive 30 s after the file.
    let bound: ReturnType<typeof setTimeout> | undefined;
    const exited = await Promise.race([
      child.exited.then(() => true),
      new Promise<false>((resolve) => (bound = setTimeout(() => resolve(false), 30_000))),
    ]);
    clearTimeout(bound);
    if (!exited) await child.kill();
    expect(exited).toBe(true);
    const store = openStore(kind, path);
    expect(await store.journal.claims!.runClaim('done-run')).toBeUndefined();
    await store.close();
  }, 60_000);

  it('of many claims of one run at once in one process, exactly one wins, round after round', async () => {
    const store = openStore(kind, await fresh(kind));
    const claims = store.journal.claims!;
    for (let round = 0; round < 40; round++) {
      const runId = `busy-${round}`;
      const owners = Array.from({ length: 8 }, (_, i) => `r${round}-o${i}`);
      const results = await Promise.all(owners.map((owner) => claims.claimRun(newClaim(runId, owner))));
      const won = owners.filter((_, i) => results[i] === undefined);
      expect(won).toHaveLength(1);
      for (const holder of results) if (holder !== undefined) expect(holder.owner).toBe(won[0]);
      expect((await claims.runClaim(runId))?.owner).toBe(won[0]);
      // Released, it is free again for exactly one of the next crowd.
      await claims.releaseRun(runId, won[0]!);
      expect(await claims.runClaim(runId)).toBeUndefined();
      const again = await Promise.all(owners.map((owner) => claims.claimRun(newClaim(runId, `${owner}-again`))));
      const wonAgain = owners.filter((_, i) => again[i] === undefined);
      expect(wonAgain).toHaveLength(1);
      await claims.releaseRun(runId, `${wonAgain[0]!}-again`);
    }
    await store.close();
  }, 60_000);

  it('of many claims taking over one dead holder at once, exactly one wins, round after round', async () => {
    const path = await fresh(kind);
    await openStore(kind, path).close();
    // A holder that claims the run and dies without releasing it.
    const dead = claimInChild(kind, path, 'orphan-run', 'dead-owner', 'exit');
    expect(await dead.report).toEqual({ won: true });
    await dead.kill();
    const store = openStore(kind, path);
    const claims = store.journal.claims!;
    const takeOver = async (runId: string, round: number): Promise<void> => {
      const stale = await claims.runClaim(runId);
      if (stale !== undefined) expect(isClaimLive(stale)).toBe(false);
      const owners = Array.from({ length: 8 }, (_, i) => `taker-${round}-${i}`);
      const results = await Promise.all(owners.map((owner) => claims.claimRun(newClaim(runId, owner))));
      const won = owners.filter((_, i) => results[i] === undefined);
      expect(won).toHaveLength(1);
      for (const holder of results) if (holder !== undefined) expect(holder.owner).toBe(won[0]);
      expect((await claims.runClaim(runId))?.owner).toBe(won[0]);
    };
    await takeOver('orphan-run', 0);
    if (kind !== 'postgres') {
      // More rounds on claims left by a process that is gone (its pid): the race is in the
      // store's takeover, which must hold however the claims interleave. (PostgreSQL judges
      // liveness by the holder's session, which only a real process ending gives up.)
      for (let round = 1; round < 40; round++) {
        const runId = `orphan-${round}`;
        expect(await claims.claimRun({ ...newClaim(runId, `dead-${round}`), pid: dead.pid })).toBeUndefined();
        await takeOver(runId, round);
      }
    }
    await store.close();
  }, 60_000);
});

describe.each(['file', 'sqlite'] as const)('a claim whose pid now belongs to another process (%s store)', (kind) => {
  it('a claim of an earlier process with this pid (a restarted container) is stale and taken over', async () => {
    const store = openStore(kind, await fresh(kind));
    const claims = store.journal.claims!;
    const earlier = { ...newClaim('restarted-run', 'before-restart'), process: 'random:an-earlier-process' };
    expect(isClaimLive(earlier)).toBe(false);
    expect(isClaimLive(newClaim('restarted-run', 'now'))).toBe(true);
    expect(await claims.claimRun(earlier)).toBeUndefined();
    expect(await claims.claimRun(newClaim('restarted-run', 'after-restart'))).toBeUndefined();
    expect((await claims.runClaim('restarted-run'))?.owner).toBe('after-restart');
    await store.close();
  });

  it('a claim whose pid was reused by a live process is stale (Linux: the process start time differs)', async () => {
    const store = openStore(kind, await fresh(kind));
    const claims = store.journal.claims!;
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const exited = new Promise((resolve) => other.on('exit', resolve));
    try {
      const mine = newClaim('reused-run', 'dead-holder');
      // The claim of a process that had this pid before, started at another time.
      const reused = { ...mine, pid: other.pid!, process: (mine.process ?? '').replace(/:\d+$/, ':1') };
      const onLinux = process.platform === 'linux';
      expect(isClaimLive(reused)).toBe(!onLinux);
      expect(await claims.claimRun(reused)).toBeUndefined();
      const taken = await claims.claimRun(newClaim('reused-run', 'taker'));
      expect(taken?.owner).toBe(onLinux ? undefined : 'dead-holder');
    } finally {
      other.kill('SIGKILL');
      await exited;
      await store.close();
    }
  });
});

it('the file store leaves no temporary file of a writer that crashed before linking its record', async () => {
  const path = await fresh('file');
  const store = openStore('file', path);
  const claims = store.journal.claims!;
  expect(await claims.claimRun(newClaim('crash-run', 'a'))).toBeUndefined();
  // What a writer killed between writing record 2 and linking it leaves behind.
  const runDir = join(`${path}.runs`, 'crash-run');
  const leftover = join(runDir, '.2.00000000-0000-4000-8000-000000000000.tmp');
  await writeFile(leftover, JSON.stringify({ claim: newClaim('crash-run', 'crashed') }));
  await claims.releaseRun('crash-run', 'a');
  expect(await claims.claimRun(newClaim('crash-run', 'b'))).toBeUndefined();
  await claims.releaseRun('crash-run', 'b');
  expect(await readdir(runDir)).toEqual(['4.claim']);
  await store.close();
});

it('the memory journal keeps claims in memory and says it is not durable', async () => {
  const journal = createMemoryJournal();
  expect(journal.durable).toBe(false);
  expect(await journal.claims.claimRun(newClaim('r', 'a'))).toBeUndefined();
  expect((await journal.claims.claimRun(newClaim('r', 'b')))?.owner).toBe('a');
});

it('a run id that is not a safe file name is refused by the file store', async () => {
  const store = openStore('file', await fresh('file'));
  await expect(store.journal.claims!.claimRun(newClaim('../escape', 'a'))).rejects.toThrow(/not a valid run id/);
});
