// The agent side of a retail conversation: the same Anthropic Messages shapes as the
// BFCL harness, plus the customer's next line after each text reply (scripted, or a
// simulated customer that is itself a model).
import type { ApiUsage, ModelReply, ModelRequest } from '../bfcl/model.ts';

export type { ApiUsage, AssistantBlock, Message, ModelReply, ModelRequest, TurnModel } from '../bfcl/model.ts';

export interface TaskModel {
  /** The next decision: tool calls, or text to the customer. */
  respond(request: ModelRequest): Promise<ModelReply>;
  /** The customer's answer to the agent's text, or undefined when the customer ends the conversation. */
  customerReply(agentText: string): string | undefined | Promise<string | undefined>;
  /** The customer's first message, when the customer writes it (default: the scenario's request and known facts). */
  opening?(): Promise<string>;
  /** What the providers' APIs reported (live models): the agent's requests, and the simulated customer's. */
  usage?(): { readonly agent: ApiUsage; readonly customer: ApiUsage };
}
