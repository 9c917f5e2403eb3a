// One ToolSet is often shared by every conversation a server holds. Turns must run one
// after another only within a conversation: the AI SDK hands every tool call of one
// model step the same `messages` array, so that array picks the turn batcher, and
// other conversations' calls never wait behind this one's (a shared batcher made 100
// conversations run their programs one at a time). A call without a messages array
// (called by hand) shares one batcher, as before.
import type { AgentRef } from '../registry/tool-registry.ts';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';
import { createTurnBatcher, type TurnBatcher } from './create-turn-batcher.ts';

export interface StepTurnBatchers {
  /** The batcher of the model step whose `messages` these are. */
  forStep(messages: unknown): TurnBatcher;
}

export function createStepTurnBatchers(rt: ToolRuntime, options: { readonly agent?: AgentRef } = {}): StepTurnBatchers {
  // Weak: a step's batcher goes when its conversation lets go of the messages.
  const byStep = new WeakMap<object, TurnBatcher>();
  let unkeyed: TurnBatcher | undefined;
  return {
    forStep(messages) {
      if (typeof messages !== 'object' || messages === null) return (unkeyed ??= createTurnBatcher(rt, options));
      let batcher = byStep.get(messages);
      if (batcher === undefined) {
        batcher = createTurnBatcher(rt, options);
        byStep.set(messages, batcher);
      }
      return batcher;
    },
  };
}
