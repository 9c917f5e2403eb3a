// One tool call of a model message, as the adapters read it and a turn runs it. Apart
// from the turn executor so that a hosted conversation can take one without importing it.
import type { ToolCaller } from '../pipeline/tool-caller.ts';

/** One tool call of a model message. */
export interface TurnCall {
  readonly callId: string;
  readonly name: string;
  readonly arguments: unknown;
  /**
   * Hosted mode: who made the call, as the adapter read it from the response (absent:
   * the model directly). A program-made call runs nested under its program when the
   * turn's `conversation` saw that program; otherwise it is refused (DENIED).
   */
  readonly caller?: ToolCaller;
}
