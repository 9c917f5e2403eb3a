// Undoing a commit that did not finish: the writes it applied are reverted last-first
// through their tool's `revert`; a write whose tool has none (or whose revert fails) is
// listed as not undone, with why. Reverts run directly (not through the pipeline's
// policies): an undo must not be refused. Each gets a deadline (the tool's timeoutMs, else 60 s).
// With a journal, the undo is recorded as it goes (undo-journal.ts): what is to be undone
// first, then each revert's start and outcome, so a crash during it can be resumed.
import type { Tool } from '../definition/tool.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { AppliedWrite } from './commit-run.ts';

/** A write of a commit, as its outcome lists it. */
export interface CommitWrite {
  readonly seq: number;
  readonly name: string;
  readonly arguments: JsonValue;
}

/** What a commit did: applied writes, and of them the ones undone and not undone (with why). */
export interface CommitOutcome {
  readonly planId: string;
  readonly applied: readonly CommitWrite[];
  readonly undone: readonly CommitWrite[];
  readonly notUndone: readonly (CommitWrite & { readonly reason: string })[];
}

/** What an undo is to do, fixed before its first revert runs (and journaled so). */
export interface UndoPlan {
  readonly applied: readonly CommitWrite[];
  /** Last first, each with the result its revert is given. */
  readonly toRevert: readonly AppliedWrite[];
  /** Writes no revert can undo (none declared, or an outcome the commit does not know). */
  readonly notUndone: readonly (CommitWrite & { readonly reason: string })[];
}

/** Where an undo records its progress (a no-op without a journal). */
export interface UndoProgress {
  reverting(seq: number): Promise<void>;
  /** `failure`: why the revert failed; absent: it is done. */
  reverted(seq: number, failure?: string): Promise<void>;
}

const DEFAULT_REVERT_MS = 60_000;

export const shownWrite = (w: CommitWrite): CommitWrite => ({ seq: w.seq, name: w.name, arguments: w.arguments });

/** Which applied writes get reverted (last first) and which cannot be; `unknown` are writes of unknown outcome. */
export function planUndo(
  applied: readonly AppliedWrite[],
  unknown: readonly (CommitWrite & { readonly reason: string })[],
  lookup: (name: string) => Tool | undefined,
): UndoPlan {
  const toRevert: AppliedWrite[] = [];
  const notUndone: (CommitWrite & { reason: string })[] = [];
  for (const write of [...applied].sort((a, b) => b.seq - a.seq)) {
    if (lookup(write.name)?.revert === undefined)
      notUndone.push({ ...shownWrite(write), reason: `tools.${write.name} has no revert` });
    else toRevert.push(write);
  }
  return {
    applied: [...applied].sort((a, b) => a.seq - b.seq).map(shownWrite),
    toRevert,
    notUndone: [...notUndone, ...unknown],
  };
}

/**
 * Runs the reverts of `plan` in its order (last first), skipping those `settled` already
 * (done, or failed with a reason, in an earlier process); never throws.
 */
export async function runReverts(
  planId: string,
  plan: UndoPlan,
  agent: string | undefined,
  lookup: (name: string) => Tool | undefined,
  progress: UndoProgress,
  settled: ReadonlyMap<number, { readonly failure?: string }> = new Map(),
): Promise<Pick<CommitOutcome, 'undone' | 'notUndone'>> {
  const undone: CommitWrite[] = [];
  const notUndone: (CommitWrite & { reason: string })[] = [];
  for (const write of plan.toRevert) {
    const shown = shownWrite(write);
    const earlier = settled.get(write.seq);
    if (earlier !== undefined) {
      if (earlier.failure === undefined) undone.push(shown);
      else notUndone.push({ ...shown, reason: earlier.failure });
      continue;
    }
    const tool = lookup(write.name);
    let failure: string | undefined;
    if (tool?.revert === undefined) failure = `tools.${write.name} has no revert on this runtime`;
    else {
      const exec = {
        planId,
        seq: write.seq,
        agent,
        idempotencyKey: `run:${planId}:${write.seq}`,
        signal: AbortSignal.timeout(tool.timeoutMs ?? DEFAULT_REVERT_MS),
      };
      await progress.reverting(write.seq);
      try {
        await tool.revert(write.arguments, write.result, exec);
      } catch (error) {
        failure = `revert failed: ${error instanceof Error ? error.message : String(error)}`;
      }
      await progress.reverted(write.seq, failure);
    }
    if (failure === undefined) undone.push(shown);
    else notUndone.push({ ...shown, reason: failure });
  }
  // Applied writes last first (as the undo met them), then those of unknown outcome.
  const applied = new Set(plan.applied.map((w) => w.seq));
  const missed = [...notUndone, ...plan.notUndone.filter((w) => applied.has(w.seq))].sort((a, b) => b.seq - a.seq);
  return { undone, notUndone: [...missed, ...plan.notUndone.filter((w) => !applied.has(w.seq))] };
}
