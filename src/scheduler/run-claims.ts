// Who may continue a durable run: one process at a time. A run is claimed when it starts
// and when a resume takes it, and released when it pauses or ends; a second resume of a
// claimed run is refused. The store keeps the claim durably, so the rule holds across
// processes on one journal: the JSONL store with an exclusive lock file per run
// (file-run-claims.ts), SQLite with a claims table written in a transaction
// (sqlite-run-claims.ts), the memory store in memory. A claim whose process is gone
// (same host, pid no longer alive) is stale: the next claim takes it over — that is how
// a run whose host died is resumed. A store for many hosts (PostgreSQL) decides
// staleness its own way (a lease, a session lock) behind the same three methods.
import { hostname } from 'node:os';

/** A process's hold on one run. */
export interface RunClaim {
  readonly runId: string;
  /** Unique per holder (a random id per claim): only it can release the claim. */
  readonly owner: string;
  readonly pid: number;
  readonly host: string;
  /** When it was taken, in ms since the epoch. */
  readonly at: number;
}

/** The part of a journal store that lets one process at a time continue a run. Small on purpose. */
export interface RunClaims {
  /**
   * Takes the run for `claim.owner`, atomically: resolves with undefined when it is now
   * held by `claim`, or with the live claim of someone else (nothing changed then). A
   * stale claim (its holder is gone) is replaced.
   */
  claimRun(claim: RunClaim): Promise<RunClaim | undefined>;
  /** Removes the claim if `owner` still holds it; otherwise does nothing. */
  releaseRun(runId: string, owner: string): Promise<void>;
  /** The run's current claim, live or stale, if any (`isClaimLive` tells which). */
  runClaim(runId: string): Promise<RunClaim | undefined>;
}

const HOST = hostname();

/** A claim for this process. */
export function newClaim(runId: string, owner: string, now: number = Date.now()): RunClaim {
  return { runId, owner, pid: process.pid, host: HOST, at: now };
}

/**
 * Whether a claim's holder may still be working: a claim of another host is assumed live
 * (this host cannot see its processes); one of this host is live while its process is.
 */
export function isClaimLive(claim: RunClaim): boolean {
  if (claim.host !== HOST) return true;
  if (claim.pid === process.pid) return true;
  try {
    process.kill(claim.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists (another user's).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function isRunClaim(value: unknown): value is RunClaim {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.runId === 'string' &&
    typeof v.owner === 'string' &&
    typeof v.host === 'string' &&
    typeof v.pid === 'number' &&
    typeof v.at === 'number'
  );
}

/** Claims held in this process's memory (the memory journal; also a model for other stores). */
export function createMemoryRunClaims(): RunClaims {
  const held = new Map<string, RunClaim>();
  return {
    async claimRun(claim) {
      const current = held.get(claim.runId);
      if (current !== undefined && current.owner !== claim.owner && isClaimLive(current)) return current;
      held.set(claim.runId, claim);
      return undefined;
    },
    async releaseRun(runId, owner) {
      if (held.get(runId)?.owner === owner) held.delete(runId);
    },
    async runClaim(runId) {
      return held.get(runId);
    },
  };
}
