// Sessions in this process's memory: the store of a runtime without a journal, and of the
// memory journal. Records are kept frozen, so a caller can never change one in place.
import type { LeaseOutcome, SessionLease, SessionRecord, SessionStore, SessionSummary } from './session-store.ts';

export function createMemorySessionStore(): SessionStore {
  const records = new Map<string, SessionRecord>();
  const live = (id: string, now: number): SessionRecord | undefined => {
    const record = records.get(id);
    if (record === undefined) return undefined;
    if (record.expiresAt > now) return record;
    records.delete(id);
    return undefined;
  };
  const heldByOther = (record: SessionRecord, owner: string, now: number): SessionLease | undefined =>
    record.lease !== undefined && record.lease.owner !== owner && record.lease.until > now ? record.lease : undefined;
  return {
    async getSession(id, now) {
      return live(id, now);
    },
    async leaseSession(id, lease, expiresAt, now): Promise<LeaseOutcome> {
      const record = live(id, now);
      if (record === undefined) return { kind: 'missing' };
      const holder = heldByOther(record, lease.owner, now);
      if (holder !== undefined) return { kind: 'busy', lease: holder };
      const leased = Object.freeze({ ...record, expiresAt, lease: Object.freeze({ ...lease }) });
      records.set(id, leased);
      return { kind: 'leased', record: leased };
    },
    async saveSession(record, owner, now) {
      const stored = live(record.id, now);
      if (
        record.version === 1 ? stored !== undefined || records.has(record.id) : stored?.version !== record.version - 1
      )
        return false;
      if (stored !== undefined && heldByOther(stored, owner, now) !== undefined) return false;
      const { lease: _dropped, ...rest } = record;
      records.set(record.id, Object.freeze(rest));
      return true;
    },
    async releaseSession(id, owner) {
      const record = records.get(id);
      if (record?.lease?.owner !== owner) return;
      const { lease: _dropped, ...rest } = record;
      records.set(id, Object.freeze(rest));
    },
    async deleteSession(id) {
      return records.delete(id);
    },
    async listSessions(now): Promise<SessionSummary[]> {
      const out: SessionSummary[] = [];
      for (const id of [...records.keys()]) {
        const record = live(id, now);
        if (record === undefined) continue;
        const { state: _state, ...summary } = record;
        out.push(summary);
      }
      return out.sort((a, b) => a.createdAt - b.createdAt);
    },
  };
}
