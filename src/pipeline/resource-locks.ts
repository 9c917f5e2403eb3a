// Resource locks: calls of tools that declare `resourceKey(args)` never overlap when
// their keys are equal. Within one process an in-process keyed mutex (FIFO per key)
// serves every store; a journal store that can lock across hosts (the PostgreSQL
// store's `lockResource`: a session advisory lock) is taken after it, so the database
// sees at most one holder per key and host. A lock is held only
// while the body runs; a wait ends with the call's signal (abort or timeout). A lock held
// across hosts carries its fence (fence.ts): a token and a signal that tells of its loss.
import type { Fence } from './fence.ts';

/** Releases a held lock; calling it again does nothing. */
export type ReleaseLock = () => Promise<void>;

/** A held lock: calling it releases it; `fence` when the store fences its locks. */
export type HeldLock = ReleaseLock & { readonly fence?: Fence };

/** Something that can hold a key across hosts (the PostgreSQL journal store). */
export interface SharedResourceLocks {
  lockResource(key: string, signal: AbortSignal): Promise<HeldLock>;
}

export interface ResourceLocks {
  /** Resolves once `key` is held here (and on every host, when shared); rejects with the signal's reason on abort. */
  acquire(key: string, signal: AbortSignal): Promise<HeldLock>;
  /** Whether the lock also holds across hosts. */
  readonly shared: boolean;
}

interface Waiter {
  grant(): void;
}

/** FIFO keyed mutex for one process. */
export function createKeyedMutex(): (key: string, signal: AbortSignal) => Promise<() => void> {
  // A key is held while it has an entry; the entry lists who waits, in order.
  const held = new Map<string, Waiter[]>();
  const releaser = (key: string): (() => void) => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const waiters = held.get(key);
      const next = waiters?.shift();
      if (next !== undefined) next.grant();
      else held.delete(key);
    };
  };
  return (key, signal) => {
    if (signal.aborted) return Promise.reject(signal.reason);
    const waiters = held.get(key);
    if (waiters === undefined) {
      held.set(key, []);
      return Promise.resolve(releaser(key));
    }
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const i = waiters.indexOf(waiter);
        if (i >= 0) waiters.splice(i, 1);
        reject(signal.reason);
      };
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(releaser(key));
        },
      };
      waiters.push(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  };
}

/** The runtime's locks: in-process always, across hosts too when the journal can. */
export function createResourceLocks(shared: SharedResourceLocks | undefined): ResourceLocks {
  const local = createKeyedMutex();
  return {
    shared: shared !== undefined,
    async acquire(key, signal) {
      const releaseLocal = await local(key, signal);
      if (shared === undefined) return async () => releaseLocal();
      let releaseShared: HeldLock;
      try {
        releaseShared = await shared.lockResource(key, signal);
      } catch (error) {
        releaseLocal();
        throw error;
      }
      let released = false;
      const release = async (): Promise<void> => {
        if (released) return;
        released = true;
        try {
          await releaseShared();
        } finally {
          releaseLocal();
        }
      };
      return releaseShared.fence === undefined ? release : Object.assign(release, { fence: releaseShared.fence });
    },
  };
}

/** Whether a journal store can also lock across hosts. */
export function sharedLocksOf(journal: object | undefined): SharedResourceLocks | undefined {
  const lock = (journal as { lockResource?: unknown } | undefined)?.lockResource;
  return typeof lock === 'function' ? (journal as SharedResourceLocks) : undefined;
}
