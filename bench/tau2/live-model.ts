// A live model as the retail agent (never run in CI): `--model anthropic:<id>|openai:<id>`
// answers as the agent, a simulated customer (`--user-model`, the same model by default)
// plays the task's scenario. Each mode drives the model the way its name says: native
// with one tool call per reply (the provider's parallel calls turned off), nativeParallel
// with the provider's parallel calls allowed, ptc with run_code as the only tool.
import { type LiveModelOptions, liveModel } from '../bfcl/live-model.ts';
import { CustomerSimulator } from './customer-simulator.ts';
import type { ApiUsage, ModelReply, ModelRequest, TaskModel, TurnModel } from './model.ts';
import type { Mode } from './report.ts';
import type { RetailTask } from './tasks.ts';
import type { ConversationLimits } from './run-task.ts';

/** Upstream's orchestrator defaults: 100 messages, 10 failed tool calls. */
export const LIVE_LIMITS: ConversationLimits = { maxMessages: 100, maxToolErrors: 10 };

/** The agent's instructions before the policy (our wording of upstream's agent prompt). */
export const AGENT_PREAMBLE =
  "You are the store's customer-service agent. Help the customer within the policy below: talk to them in plain text, and use the tools to look things up and to make changes.";

const NO_USAGE: ApiUsage = {
  inputTokens: 0,
  promptTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
};

export interface LiveSpec {
  /** The agent's model, `anthropic:<id>` or `openai:<id>`. */
  readonly model: string;
  /** The simulated customer's model. @default the agent's */
  readonly userModel?: string;
  /** Prompt caching on (Anthropic: tools, system text and the conversation marked). @default true */
  readonly cache?: boolean;
  /** Another endpoint for both models (a proxy, a local stand-in). */
  readonly endpoint?: LiveModelOptions['endpoint'];
}

class LiveTaskModel implements TaskModel {
  private readonly agent: TurnModel;
  private readonly customer: CustomerSimulator;
  constructor(agent: TurnModel, customer: CustomerSimulator) {
    this.agent = agent;
    this.customer = customer;
  }
  respond(request: ModelRequest): Promise<ModelReply> {
    return this.agent.respond(request);
  }
  opening(): Promise<string> {
    return this.customer.opening();
  }
  customerReply(agentText: string): Promise<string | undefined> {
    return this.customer.reply(agentText);
  }
  usage(): { agent: ApiUsage; customer: ApiUsage } {
    return { agent: this.agent.usage?.() ?? NO_USAGE, customer: this.customer.usage() ?? NO_USAGE };
  }
}

/** The live agent of `mode` for one task, with its simulated customer. */
export function liveTaskModel(spec: LiveSpec, mode: Mode, task: RetailTask): TaskModel {
  const shared = {
    cache: spec.cache ?? true,
    cacheConversation: true,
    ...(spec.endpoint === undefined ? {} : { endpoint: spec.endpoint }),
  };
  const agent = liveModel(spec.model, {
    ...shared,
    preamble: AGENT_PREAMBLE,
    ...(mode === 'ptc' ? {} : { parallelToolCalls: mode === 'nativeParallel' }),
  });
  const customer = liveModel(spec.userModel ?? spec.model, { ...shared, preamble: '' });
  return new LiveTaskModel(agent, new CustomerSimulator(customer, task));
}
