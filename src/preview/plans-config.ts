// The runtime's plan settings, checked at creation: how long a plan lives, how large its
// record may be, whether the model may preview and commit, the sealing key and the store.
import type { Tool } from '../definition/tool.ts';
import type { ToolExecution } from '../pipeline/tool-execution.ts';
import { DEFAULT_MAX_PLAN_BYTES, DEFAULT_PLAN_TTL_MS, type PlansConfig } from './plan-runs.ts';
import { createMemoryPlanStore } from './plan-store.ts';
import { createJournalPlanStore } from './journal-plan-store.ts';
import type { Journal } from '../journal/journal.ts';
import { planKeyFromEnv } from './plan-token.ts';

/** Plan settings of `createToolRuntime`. */
export interface PlanOptions {
  /** How long a previewed plan can be committed, in ms; after that PLAN_EXPIRED. @default 900000 (15 minutes) */
  readonly planTtlMs?: number;
  /** Bytes of a preview's record (its calls with arguments and answers); over it the preview fails (PLAN_TOO_LARGE). @default 16777216 (16 MiB) */
  readonly maxPlanBytes?: number;
  /**
   * run_code takes `preview: true` and `commit: "<token>"` from the model, so it can
   * show a plan and commit it itself. Off by default: previews and commits are then the
   * application's (`rt.preview`, `rt.commit`). @default false
   */
  readonly planArguments?: boolean;
  /**
   * Every plan waits for an operator's approval (`rt.plans`, `rt.decidePlan`, the
   * approvals page of `ptc serve --http`) before it can be committed: until then its
   * commit is refused (PLAN_NOT_APPROVED); a rejected plan never commits (PLAN_REJECTED).
   * With `planArguments`, the model can then preview and commit without approving its
   * own plans. @default false
   */
  readonly planApproval?: boolean;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw new TypeError(`createToolRuntime: ${name} must be a positive integer, got ${String(value)}`);
  return value;
}

export function createPlansConfig(
  options: PlanOptions,
  journal: Journal | undefined,
  principals: ReadonlyMap<AbortSignal, string>,
  lookup: (name: string, agent: string | undefined) => Tool | undefined,
  refusalOf: PlansConfig['refusalOf'],
): PlansConfig {
  if (options.planArguments !== undefined && typeof options.planArguments !== 'boolean')
    throw new TypeError(
      `createToolRuntime: planArguments must be a boolean, got ${JSON.stringify(options.planArguments)}`,
    );
  if (options.planApproval !== undefined && typeof options.planApproval !== 'boolean')
    throw new TypeError(
      `createToolRuntime: planApproval must be a boolean, got ${JSON.stringify(options.planApproval)}`,
    );
  return {
    // With a journal, plans live in its store: a commit works in any process on the same journal.
    store: journal === undefined ? createMemoryPlanStore() : createJournalPlanStore(journal),
    journal,
    envKey: planKeyFromEnv(),
    ttlMs: positive(options.planTtlMs, DEFAULT_PLAN_TTL_MS, 'planTtlMs'),
    maxPlanBytes: positive(options.maxPlanBytes, DEFAULT_MAX_PLAN_BYTES, 'maxPlanBytes'),
    modelArguments: options.planArguments === true,
    approval: options.planApproval === true,
    requests: new Map(),
    lookup,
    refusalOf,
    // Only a top-level call is made for a principal (`rt.execute({ principal })`).
    principalOf: (exec: ToolExecution) => (exec.parent === undefined ? principals.get(exec.callerSignal) : undefined),
  };
}
