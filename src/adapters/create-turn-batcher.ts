// Frameworks such as the Vercel AI SDK call each tool's `execute` on its own, all at
// once. To keep the runtime's turn rules (exclusive by default, policy and commits in
// model order, contexts after all results), the calls that arrive together — within
// one macrotask — are run as one `rt.executeTurn`, and turns run one after another.
import type { ToolResult } from '../pipeline/tool-result.ts';
import type { AgentRef } from '../registry/tool-registry.ts';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';
import type { TurnCall } from '../scheduler/execute-turn.ts';

export interface TurnBatcher {
  /** Resolves with this call's final result once its turn is done. */
  submit(call: TurnCall, signal?: AbortSignal): Promise<ToolResult>;
}

interface Pending {
  readonly call: TurnCall;
  readonly signal: AbortSignal | undefined;
  readonly resolve: (result: ToolResult) => void;
  readonly reject: (error: unknown) => void;
}

export function createTurnBatcher(rt: ToolRuntime, options: { readonly agent?: AgentRef } = {}): TurnBatcher {
  let pending: Pending[] = [];
  let previous: Promise<void> = Promise.resolve();
  const flush = (): void => {
    const batch = pending;
    pending = [];
    const signals = batch.flatMap((p) => (p.signal === undefined ? [] : [p.signal]));
    const turn = previous.then(async () => {
      try {
        const { results } = await rt.executeTurn(
          batch.map((p) => p.call),
          {
            ...(options.agent === undefined ? {} : { agent: options.agent }),
            ...(signals.length === 0 ? {} : { signal: AbortSignal.any(signals) }),
          },
        );
        batch.forEach((p, i) => p.resolve(results[i]!));
      } catch (error) {
        for (const p of batch) p.reject(error);
      }
    });
    previous = turn;
  };
  return {
    submit(call, signal) {
      return new Promise<ToolResult>((resolve, reject) => {
        pending.push({ call, signal, resolve, reject });
        if (pending.length === 1) setImmediate(flush);
      });
    },
  };
}
