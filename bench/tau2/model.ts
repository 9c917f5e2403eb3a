// The agent side of a retail conversation: the same Anthropic Messages shapes as the
// BFCL harness, plus the scripted customer's next line after each text reply.
import type { ModelReply, ModelRequest } from '../bfcl/model.ts';

export type { AssistantBlock, Message, ModelReply, ModelRequest } from '../bfcl/model.ts';

export interface TaskModel {
  /** The next decision: tool calls, or text to the customer. */
  respond(request: ModelRequest): Promise<ModelReply>;
  /** The customer's answer to the model's last text, or undefined when the conversation is over. */
  customerReply(): string | undefined;
}
