// Database grading as upstream does it: replay the task's gold actions on a fresh copy
// of the database (a failing gold action changes nothing and the replay goes on), then
// compare the agent's final database with it by upstream's hash of the canonical text.
import { dbHash } from './db-hash.ts';
import { parseDb, type RetailDb } from './retail-db.ts';
import { RetailError, RetailStore } from './retail-store.ts';
import type { RetailTask } from './tasks.ts';

/** Runs one call on a store: the value, or upstream's error text for a failed call. */
export function callStore(store: RetailStore, name: string, args: unknown): { value?: unknown; error?: string } {
  const method = (store as unknown as Record<string, unknown>)[name];
  if (typeof method !== 'function' || name === 'constructor') return { error: `Tool '${name}' not found.` };
  try {
    return { value: (method as (a: unknown) => unknown).call(store, structuredClone(args)) };
  } catch (e) {
    if (e instanceof RetailError) return { error: e.message };
    throw e;
  }
}

/** The database the gold actions reach from the fresh one. */
export function goldDb(dbText: string, task: RetailTask): RetailDb {
  const store = new RetailStore(parseDb(dbText));
  for (const action of task.evaluation_criteria.actions) callStore(store, action.name, action.arguments);
  return store.db;
}

export interface DbGrade {
  readonly passed: boolean;
  readonly goldHash: string;
  readonly finalHash: string;
}

/** Gold hashes already computed, per task object and database text. */
const goldHashes = new WeakMap<RetailTask, Map<string, string>>();

/** The hash of the database the gold actions reach (computed once per task and database). */
export function goldHash(dbText: string, task: RetailTask): string {
  let byText = goldHashes.get(task);
  if (byText === undefined) goldHashes.set(task, (byText = new Map()));
  let hash = byText.get(dbText);
  if (hash === undefined) byText.set(dbText, (hash = dbHash(goldDb(dbText, task))));
  return hash;
}

/** Upstream's DB reward: 1 when the hashes are equal. */
export function gradeDb(dbText: string, task: RetailTask, finalDb: RetailDb): DbGrade {
  const gold = goldHash(dbText, task);
  const finalHash = dbHash(finalDb);
  return { passed: gold === finalHash, goldHash: gold, finalHash };
}
