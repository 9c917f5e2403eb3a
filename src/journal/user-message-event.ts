// The journal event of a context admitted into the conversation: a tool's deferred
// context (`exec.deferContext`, post-policy `accept({ contexts })`) waits in its
// conversation's inbox after the turn committed, and becomes a durable `user/message`
// when the next request is admitted (context-inbox.ts). Filed with the call whose
// result carried it, so every store keeps it beside that call.
import type { ContextMessage } from '../pipeline/tool-result.ts';

export interface UserMessageEvent {
  readonly type: 'user/message';
  /** The call whose result carried the context. */
  readonly callId: string;
  /** That call's tool. */
  readonly name: string;
  /** The inbox (one per conversation) that admitted it. */
  readonly inbox: string;
  /** Its place among the contexts of that result (from 0). */
  readonly index: number;
  readonly message: ContextMessage;
  /** When it was admitted, in ms since the epoch. */
  readonly at: number;
}

export const USER_MESSAGE = 'user/message';
