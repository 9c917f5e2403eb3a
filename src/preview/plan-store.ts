// Where plans wait for their commit, and how a plan is used once. The memory store lives
// and dies with the runtime (its key too: tokens of an earlier process are refused);
// journal-plan-store.ts keeps plans in the journal so another process can commit them.
import { randomBytes } from 'node:crypto';
import type { PlanRecord } from './plan-record.ts';

/** An operator's decision on a plan that waits for approval. */
export interface PlanDecision {
  readonly decision: 'approve' | 'reject';
  /** The digest of the plan decided on. */
  readonly digest: string;
  readonly at: number;
}

export interface PlanStore {
  /** The sealing key when PTC_PLAN_KEY is not set: generated once, then always the same. */
  key(): Promise<string>;
  save(record: PlanRecord): Promise<void>;
  /** The plan, without taking it: `'used'` once it was committed, undefined when unknown. */
  load(planId: string): Promise<PlanRecord | 'used' | undefined>;
  /**
   * Takes the plan for its one commit: the record for the first caller only (in every
   * process that shares the store), `'used'` for every later one, undefined for a plan
   * the store does not know.
   */
  take(planId: string): Promise<PlanRecord | 'used' | undefined>;
  /** The first decision on the plan, if any. */
  decision(planId: string): Promise<PlanDecision | undefined>;
  /** Records a decision; resolves with the first one on the plan (this one, unless another came first, in any process). */
  decide(planId: string, decision: PlanDecision): Promise<PlanDecision>;
  /** Plans neither committed nor expired, oldest first, each with its first decision if any. */
  open(): Promise<{ readonly record: PlanRecord; readonly decision?: PlanDecision }[]>;
  /** false when plans do not outlive this process. */
  readonly durable: boolean;
}

/** Plans in memory, dropped after they expire (checked as new ones arrive). */
export function createMemoryPlanStore(): PlanStore {
  const key = randomBytes(32).toString('hex');
  const plans = new Map<string, PlanRecord>();
  const used = new Map<string, number>();
  const decisions = new Map<string, PlanDecision>();
  const sweep = (now: number): void => {
    for (const [id, record] of plans) if (record.expiresAt <= now) plans.delete(id);
    for (const [id, expiresAt] of used) if (expiresAt <= now) used.delete(id);
    for (const id of decisions.keys()) if (!plans.has(id) && !used.has(id)) decisions.delete(id);
  };
  return {
    durable: false,
    key: async () => key,
    async save(record) {
      sweep(Date.now());
      plans.set(record.planId, record);
    },
    load: async (planId) => (used.has(planId) ? 'used' : plans.get(planId)),
    decision: async (planId) => decisions.get(planId),
    async decide(planId, decision) {
      if (!decisions.has(planId)) decisions.set(planId, decision);
      return decisions.get(planId)!;
    },
    async open() {
      const now = Date.now();
      return [...plans.values()]
        .filter((r) => r.expiresAt > now)
        .map((record) => {
          const decision = decisions.get(record.planId);
          return decision === undefined ? { record } : { record, decision };
        });
    },
    async take(planId) {
      if (used.has(planId)) return 'used';
      const record = plans.get(planId);
      if (record === undefined) return undefined;
      used.set(planId, record.expiresAt);
      plans.delete(planId);
      return record;
    },
  };
}
