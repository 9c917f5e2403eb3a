// Undoing a commit that did not finish: the writes it applied are reverted last-first
// through their tool's `revert`; a write whose tool has none (or whose revert fails) is
// listed as not undone, with why. Reverts run directly (not through the pipeline's
// policies): an undo must not be refused. Each gets a deadline (the tool's timeoutMs, else 60 s).
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

const DEFAULT_REVERT_MS = 60_000;

/** Reverts `applied` last-first (by seq); never throws. */
export async function undoWrites(
  planId: string,
  applied: readonly AppliedWrite[],
  agent: string | undefined,
  lookup: (name: string) => Tool | undefined,
): Promise<Pick<CommitOutcome, 'undone' | 'notUndone'>> {
  const undone: CommitWrite[] = [];
  const notUndone: (CommitWrite & { reason: string })[] = [];
  for (const write of [...applied].sort((a, b) => b.seq - a.seq)) {
    const shown = { seq: write.seq, name: write.name, arguments: write.arguments };
    const tool = lookup(write.name);
    if (tool?.revert === undefined) {
      notUndone.push({ ...shown, reason: `tools.${write.name} has no revert` });
      continue;
    }
    const exec = {
      planId,
      seq: write.seq,
      agent,
      idempotencyKey: `run:${planId}:${write.seq}`,
      signal: AbortSignal.timeout(tool.timeoutMs ?? DEFAULT_REVERT_MS),
    };
    try {
      await tool.revert(write.arguments, write.result, exec);
      undone.push(shown);
    } catch (error) {
      notUndone.push({ ...shown, reason: `revert failed: ${error instanceof Error ? error.message : String(error)}` });
    }
  }
  return { undone, notUndone };
}
