// Plans kept in the journal's store, so a commit works in any process on the same journal.
// Each operation appends first and reads after: the journal's order decides. The first
// `plan/key` row is the key (when PTC_PLAN_KEY is not set), and the first `plan/used` row
// of a plan names the one commit that takes it, whoever wrote theirs later. With a journal
// sealing key, rows without a valid seal are ignored. A read covers the whole journal.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Journal, JournalEvent } from '../journal/journal.ts';
import type { JsonValue } from '../json/json-value.ts';
import { isUnsealed } from '../journal/sealed-journal.ts';
import type { PlanRecord } from './plan-record.ts';
import type { PlanDecision, PlanStore } from './plan-store.ts';

const NAME = 'run_code';

export function createJournalPlanStore(journal: Journal): PlanStore {
  let key: string | undefined;
  const events = async (): Promise<JournalEvent[]> =>
    (await journal.read()).events.filter((e) => e.type.startsWith('plan/') && !isUnsealed(e));
  /** The first `plan/used` row of the plan, if any. */
  const firstUse = (rows: readonly JournalEvent[], planId: string) =>
    rows.find((e) => e.type === 'plan/used' && e.planId === planId) as { owner: string } | undefined;
  const firstDecision = (rows: readonly JournalEvent[], planId: string): PlanDecision | undefined => {
    const row = rows.find((e) => e.type === 'plan/decided' && e.planId === planId);
    return row?.type === 'plan/decided' ? { decision: row.decision, digest: row.digest, at: row.at } : undefined;
  };
  const saved = (rows: readonly JournalEvent[], planId: string): PlanRecord | undefined => {
    const row = rows.find((e) => e.type === 'plan/saved' && e.planId === planId);
    return row?.type === 'plan/saved' ? (row.record as unknown as PlanRecord) : undefined;
  };
  return {
    durable: journal.durable !== false,
    async key() {
      if (key !== undefined) return key;
      const first = (rows: readonly JournalEvent[]) => rows.find((e) => e.type === 'plan/key');
      let row = first(await events());
      if (row === undefined) {
        const made = randomBytes(32).toString('hex');
        await journal.append([{ type: 'plan/key', callId: 'plan-key', name: NAME, key: made, at: Date.now() }]);
        row = first(await events());
      }
      if (row?.type !== 'plan/key') throw new Error('the plan key could not be read back from the journal');
      key = row.key;
      return key;
    },
    async save(record) {
      await journal.append([
        {
          type: 'plan/saved',
          callId: `plan:${record.planId}`,
          name: NAME,
          planId: record.planId,
          record: record as unknown as JsonValue,
          at: Date.now(),
        },
      ]);
    },
    async load(planId) {
      const rows = await events();
      if (firstUse(rows, planId) !== undefined) return 'used';
      const record = saved(rows, planId);
      return record === undefined || record.expiresAt <= Date.now() ? undefined : record;
    },
    decision: async (planId) => firstDecision(await events(), planId),
    async decide(planId, decision) {
      await journal.append([{ type: 'plan/decided', callId: `plan:${planId}`, name: NAME, planId, ...decision }]);
      return firstDecision(await events(), planId) ?? decision;
    },
    async open() {
      const rows = await events();
      const now = Date.now();
      const used = new Set<string>();
      const decisions = new Map<string, PlanDecision>();
      for (const row of rows) {
        if (row.type === 'plan/used') used.add(row.planId);
        else if (row.type === 'plan/decided' && !decisions.has(row.planId))
          decisions.set(row.planId, { decision: row.decision, digest: row.digest, at: row.at });
      }
      const out = new Map<string, { record: PlanRecord; decision?: PlanDecision }>();
      for (const row of rows) {
        // The first saved row of a plan is the plan (as `saved` reads it).
        if (row.type !== 'plan/saved' || used.has(row.planId) || out.has(row.planId)) continue;
        const record = row.record as unknown as PlanRecord;
        const decision = decisions.get(row.planId);
        out.set(row.planId, decision === undefined ? { record } : { record, decision });
      }
      return [...out.values()].filter((p) => p.record.expiresAt > now);
    },
    async take(planId) {
      const before = await events();
      if (firstUse(before, planId) !== undefined) return 'used';
      if (saved(before, planId) === undefined) return undefined;
      const owner = randomUUID();
      await journal.append([
        { type: 'plan/used', callId: `plan:${planId}`, name: NAME, planId, owner, at: Date.now() },
      ]);
      const after = await events();
      if (firstUse(after, planId)?.owner !== owner) return 'used';
      return saved(after, planId);
    },
  };
}
