// Who may continue a durable run: one process at a time. A run is claimed when it starts
// and when a resume takes it, and released when it pauses or ends; a second resume of a
// claimed run is refused. The store keeps the claim durably, so the rule holds across
// processes on one journal: the JSONL store with an exclusive lock file per run
// (file-run-claims.ts), SQLite with a claims table written in a transaction
// (sqlite-run-claims.ts), the memory store in memory. A claim whose process is gone
// (same host, pid no longer alive, or alive but now another process's) is stale: the next
// claim takes it over — that is how a run whose host died is resumed. A store for many hosts (PostgreSQL) decides
// staleness its own way (a lease, a session lock) behind the same three methods.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Fence } from '../pipeline/fence.ts';

/** A process's hold on one run. */
export interface RunClaim {
  readonly runId: string;
  /** Unique per holder (a random id per claim): only it can release the claim. */
  readonly owner: string;
  readonly pid: number;
  readonly host: string;
  /** When it was taken, in ms since the epoch. */
  readonly at: number;
  /**
   * Which process of that pid: on Linux its boot and start time, elsewhere a random id per
   * process. A pid is reused (a restarted container's node is pid 1 again), so the pid alone
   * would keep a dead holder's claim alive. Absent in claims of older versions.
   */
  readonly process?: string;
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
  /**
   * The fence of a claim `owner` holds in this process: its fencing token, and a signal that
   * aborts if the claim is lost while held (the run must stop). Only a store whose claims
   * can end while their holder runs has it (PostgreSQL, where a claim lives in a session).
   */
  fenceOf?(runId: string, owner: string): Fence | undefined;
}

const HOST = hostname();

function readBootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined;
  }
}
const BOOT_ID = process.platform === 'linux' ? readBootId() : undefined;

/** A Linux process's identity: its boot and its start time (clock ticks since boot); undefined when unreadable. */
function linuxProcess(pid: number): { readonly id: string; readonly zombie: boolean } | undefined {
  if (BOOT_ID === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name (which may hold spaces and parentheses): state, then the start time 20th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const started = fields[19];
    if (started === undefined || !/^\d+$/.test(started)) return undefined;
    return { id: `linux:${BOOT_ID}:${started}`, zombie: fields[0] === 'Z' };
  } catch {
    return undefined;
  }
}

// One value per process even if two copies of this module are loaded (the random fallback).
const PROCESS_KEY = Symbol.for('ptc-runtime.process-identity');
const PROCESS_ID: string = ((globalThis as Record<symbol, unknown>)[PROCESS_KEY] ??=
  linuxProcess(process.pid)?.id ?? `random:${randomUUID()}`) as string;

/** A claim for this process. */
export function newClaim(runId: string, owner: string, now: number = Date.now()): RunClaim {
  return { runId, owner, pid: process.pid, host: HOST, at: now, process: PROCESS_ID };
}

/**
 * Whether a claim's holder may still be working: a claim of another host is assumed live
 * (this host cannot see its processes); one of this host is live while its process is.
 */
export function isClaimLive(claim: RunClaim): boolean {
  if (claim.host !== HOST) return true;
  if (claim.pid === process.pid) return claim.process === undefined || claim.process === PROCESS_ID;
  if (claim.process?.startsWith('linux:') === true) {
    const now = linuxProcess(claim.pid);
    // Unreadable (gone, or hidden from this user): the signal below decides.
    if (now !== undefined) return now.id === claim.process && !now.zombie;
  }
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
    typeof v.at === 'number' &&
    (v.process === undefined || typeof v.process === 'string')
  );
}
