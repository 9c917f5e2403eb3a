// A minimal agent loop: model call → rt.executeTurn → tool results and contexts back,
// until the model answers without tool calls (or a result concludes the turn).
// It speaks the Anthropic Messages shapes through the adapter, but takes the model as
// a plain function: a scripted model in tests, the Anthropic SDK in anthropic-live.ts.
import {
  fromAnthropicToolUses,
  toAnthropicRequest,
  toAnthropicUserMessage,
  type AnthropicRequestTool,
  type AnthropicUserMessage,
} from 'ptc-runtime/adapters/anthropic';
import type { AgentRef, ToolRuntime } from 'ptc-runtime';

export type AssistantBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };
export type LoopMessage =
  | { role: 'user'; content: string }
  | AnthropicUserMessage
  | { role: 'assistant'; content: AssistantBlock[] };

export interface ModelRequest {
  readonly system: string;
  readonly messages: readonly LoopMessage[];
  readonly tools: AnthropicRequestTool[];
}
/** One model call. */
export type Model = (request: ModelRequest) => Promise<{ content: AssistantBlock[] }>;

export interface AgentLoopOptions {
  readonly rt: ToolRuntime;
  readonly model: Model;
  readonly question: string;
  readonly agent?: AgentRef;
  /** Model calls at most. @default 10 */
  readonly maxSteps?: number;
  readonly signal?: AbortSignal;
}

export interface AgentLoopResult {
  /** The text of the last assistant message. */
  readonly answer: string;
  readonly messages: readonly LoopMessage[];
  readonly steps: number;
  readonly stoppedBy: 'answer' | 'concluded' | 'max-steps';
}

export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const { rt, model } = options;
  const scope = options.agent === undefined ? {} : { agent: options.agent };
  // The mode decides what the model gets: native schemas, or run_code whose description
  // carries the SDK (or, with embedSdkInDescription: false, the SDK in the system text).
  const { tools, system = '' } = toAnthropicRequest(rt, { ...scope, system: 'You answer questions using the tools.' });
  const messages: LoopMessage[] = [{ role: 'user', content: options.question }];
  const maxSteps = options.maxSteps ?? 10;
  for (let step = 1; step <= maxSteps; step++) {
    const reply = await model({ system, messages: [...messages], tools });
    messages.push({ role: 'assistant', content: reply.content });
    const answer = reply.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
    // The runtime maps any name sent as an alias (e.g. for `tickets.count`) back.
    const calls = fromAnthropicToolUses(reply.content, rt, scope);
    if (calls.length === 0) return { answer, messages, steps: step, stoppedBy: 'answer' };
    const turn = await rt.executeTurn(calls, {
      ...scope,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    // Results in model order, then the contexts — one user message.
    messages.push(toAnthropicUserMessage(turn));
    if (turn.concludesTurn) return { answer, messages, steps: step, stoppedBy: 'concluded' };
  }
  return { answer: '', messages, steps: maxSteps, stoppedBy: 'max-steps' };
}
