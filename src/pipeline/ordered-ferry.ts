// Ferries what nested calls hand up onto the parent execution, in submission order:
// their deferred contexts, image content of a success (as a deferred context), and
// concludeTurn. Shared by run_code and composite tools (`exec.callTool`).
import type { ToolExecution } from './tool-execution.ts';
import type { ToolResult } from './tool-result.ts';

export interface OrderedFerry {
  /** The n-th nested call (1-based) committed with `result`. */
  commit(seq: number, result: ToolResult): void;
  /** The n-th nested call has nothing to hand up (it was refused before it ran). */
  skip(seq: number): void;
}

export function orderedFerry(exec: Pick<ToolExecution, 'deferContext' | 'concludeTurn'>): OrderedFerry {
  const pending = new Map<number, ToolResult | null>();
  let next = 1;
  const flush = (): void => {
    while (pending.has(next)) {
      const result = pending.get(next)!;
      pending.delete(next);
      next += 1;
      if (result === null) continue;
      for (const context of result.additionalContexts ?? []) exec.deferContext(context);
      if (!result.isError) {
        const images = result.content.filter((block) => block.type === 'image');
        if (images.length > 0) exec.deferContext({ role: 'user', content: images });
        if (result.concludesTurn === true) exec.concludeTurn();
      }
    }
  };
  return {
    commit(seq, result) {
      pending.set(seq, result);
      flush();
    },
    skip(seq) {
      pending.set(seq, null);
      flush();
    },
  };
}
