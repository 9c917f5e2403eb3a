// Ferries what nested calls hand up onto the parent execution, in submission order:
// their deferred contexts, image content of a success (as a deferred context), and
// concludeTurn. Shared by run_code and composite tools (`exec.callTool`). A call that
// commits ahead of an earlier one waits here with only what it hands up, never its value.
import type { ToolExecution } from './tool-execution.ts';
import type { ContextMessage, ToolResult } from './tool-result.ts';

export interface OrderedFerry {
  /** The n-th nested call (1-based) committed with `result`. */
  commit(seq: number, result: ToolResult): void;
  /** The n-th nested call has nothing to hand up (it was refused before it ran). */
  skip(seq: number): void;
}

/**
 * Charges a call's contexts (their size as JSON text) before they are ferried; false
 * refuses them (they are not ferried; the caller says what happens next).
 */
export type FerryBudget = (bytes: number, toolName: string) => boolean;

interface Handed {
  readonly name: string;
  readonly contexts: readonly ContextMessage[];
  readonly concludes: boolean;
}

export function orderedFerry(
  exec: Pick<ToolExecution, 'deferContext' | 'concludeTurn'>,
  budget?: FerryBudget,
): OrderedFerry {
  // Calls that committed ahead of an earlier one; a call in order is handed up at once.
  const pending = new Map<number, Handed | null>();
  let next = 1;
  const handUp = (handed: Handed | null): void => {
    if (handed === null) return;
    if (budget !== undefined && handed.contexts.length > 0) {
      const bytes = handed.contexts.reduce((sum, c) => sum + JSON.stringify(c).length, 0);
      if (!budget(bytes, handed.name)) return;
    }
    for (const context of handed.contexts) exec.deferContext(context);
    if (handed.concludes) exec.concludeTurn();
  };
  const arrive = (seq: number, handed: Handed | null): void => {
    if (seq !== next) {
      pending.set(seq, handed);
      return;
    }
    next += 1;
    handUp(handed);
    while (pending.size > 0 && pending.has(next)) {
      const waiting = pending.get(next)!;
      pending.delete(next);
      next += 1;
      handUp(waiting);
    }
  };
  return {
    commit(seq, result) {
      const extra = result.additionalContexts;
      let contexts: readonly ContextMessage[] = extra === undefined || extra.length === 0 ? NOTHING : [...extra];
      if (!result.isError && result.content.some((block) => block.type === 'image')) {
        contexts = [...contexts, { role: 'user', content: result.content.filter((block) => block.type === 'image') }];
      }
      arrive(seq, { name: result.name, contexts, concludes: !result.isError && result.concludesTurn === true });
    },
    skip(seq) {
      arrive(seq, null);
    },
  };
}

const NOTHING: readonly ContextMessage[] = Object.freeze([]);
