// One task in one mode: the adapter loop (model request → tool calls through the runtime
// → results back, or text → the customer's reply), then the database graded as upstream
// grades it. Tokens are counted with the BFCL harness's tokenizer.
import { fromAnthropicToolUses, toAnthropicRequest, toAnthropicUserMessage } from '../../src/adapters/anthropic.ts';
import type { ToolRuntime } from '../../src/index.ts';
import { countTokens } from '../bfcl/tokens.ts';
import { gradeDb } from './grade.ts';
import type { ApiUsage, AssistantBlock, Message, TaskModel } from './model.ts';
import { openingMessage } from './plan.ts';
import { parseDb } from './retail-db.ts';
import { RetailStore } from './retail-store.ts';
import type { RetailTask } from './tasks.ts';
import type { RetailSession } from './tools.ts';

/** A scripted conversation that runs longer than this is cut off and fails. */
export const MAX_MODEL_REQUESTS = 200;

/** Where a conversation is cut off (and fails), as upstream's orchestrator cuts a live one off. */
export interface ConversationLimits {
  /** Messages in the conversation (the customer's, the agent's, each batch of tool results). */
  readonly maxMessages?: number;
  /** Tool calls that failed. */
  readonly maxToolErrors?: number;
}

export interface TaskContext {
  readonly rt: ToolRuntime;
  readonly session: RetailSession;
  readonly dbText: string;
  readonly policy: string;
  readonly limits?: ConversationLimits;
  /** When given, receives the conversation of each task run (for --transcript). */
  readonly onTranscript?: (taskId: string, messages: readonly Message[]) => void;
}

export interface TaskRun {
  readonly id: string;
  readonly passed: boolean;
  readonly failure?: string;
  readonly modelRequests: number;
  /** Tool calls the model made (native: each call; ptc: each run_code). */
  readonly toolCalls: number;
  /** Tool definitions (and the runtime's system text) with every request, summed. */
  readonly definitionTokens: number;
  /** Every tool result the model was sent, each once. */
  readonly resultTokens: number;
  /** Everything sent: policy, definitions and the conversation so far, every request. */
  readonly sentTokens: number;
  /** Everything the model wrote: text, tool calls, program text. */
  readonly outputTokens: number;
  /** What the provider's API reported for the agent's requests (live models). */
  readonly api?: ApiUsage;
  /** What the provider's API reported for the simulated customer's requests (live models). */
  readonly customerApi?: ApiUsage;
}

type Counts = Omit<TaskRun, 'id' | 'passed' | 'failure' | 'api' | 'customerApi'>;

/** An error's message, with its causes (a client's "Connection error." says nothing of why). */
const message = (e: unknown): string => {
  const parts: string[] = [];
  for (let at: unknown = e, depth = 0; at !== undefined && depth < 4; depth++) {
    if (!(at instanceof Error)) {
      parts.push(String(at));
      break;
    }
    const code = (at as { code?: unknown }).code;
    parts.push(typeof code === 'string' ? `${at.message} (${code})` : at.message);
    at = at.cause;
  }
  return parts.join(': caused by ');
};
const agentText = (content: readonly AssistantBlock[]): string =>
  content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');

/** Why the conversation must stop now, or undefined. */
function cutOff(ctx: TaskContext, run: Counts, messages: number, toolErrors: number): string | undefined {
  const { maxMessages, maxToolErrors } = ctx.limits ?? {};
  if (run.modelRequests >= MAX_MODEL_REQUESTS) return `more than ${MAX_MODEL_REQUESTS} model requests`;
  if (maxMessages !== undefined && messages >= maxMessages) return `reached ${maxMessages} messages`;
  if (maxToolErrors !== undefined && toolErrors >= maxToolErrors) return `${toolErrors} tool calls failed`;
  return undefined;
}

export async function runTask(ctx: TaskContext, task: RetailTask, model: TaskModel): Promise<TaskRun> {
  ctx.session.store = new RetailStore(parseDb(ctx.dbText));
  const run = { modelRequests: 0, toolCalls: 0, definitionTokens: 0, resultTokens: 0, sentTokens: 0, outputTokens: 0 };
  const messages: Message[] = [];
  let failure: string | undefined;
  let toolErrors = 0;
  try {
    const opening = model.opening === undefined ? openingMessage(task) : await model.opening();
    messages.push({ role: 'user', content: opening });
    const policyTokens = countTokens(ctx.policy);
    let history = countTokens(opening);
    for (;;) {
      failure = cutOff(ctx, run, messages.length, toolErrors);
      if (failure !== undefined) break;
      const base = toAnthropicRequest(ctx.rt);
      const request = {
        tools: base.tools,
        system: base.system === undefined ? ctx.policy : `${ctx.policy}\n\n${base.system}`,
        messages: [...messages],
      };
      const definitions = countTokens(JSON.stringify(base.tools) + (base.system ?? ''));
      run.modelRequests += 1;
      run.definitionTokens += definitions;
      run.sentTokens += policyTokens + definitions + history;
      const reply = await model.respond(request);
      messages.push({ role: 'assistant', content: reply.content });
      const written = countTokens(JSON.stringify(reply.content));
      run.outputTokens += written;
      history += written;
      const uses = fromAnthropicToolUses(reply.content, ctx.rt);
      if (uses.length > 0) {
        run.toolCalls += uses.length;
        const user = toAnthropicUserMessage(await ctx.rt.executeTurn(uses, {}));
        for (const block of user.content)
          if (block.type === 'tool_result') {
            if (block.is_error === true) toolErrors += 1;
            for (const c of block.content) if (c.type === 'text') run.resultTokens += countTokens(c.text);
          }
        history += countTokens(JSON.stringify(user.content));
        messages.push(user);
        continue;
      }
      const answer = await model.customerReply(agentText(reply.content));
      if (answer === undefined) break;
      messages.push({ role: 'user', content: answer });
      history += countTokens(answer);
    }
  } catch (e) {
    failure = `the conversation broke off: ${message(e)}`;
  }
  ctx.onTranscript?.(task.id, messages);
  const grade = gradeDb(ctx.dbText, task, ctx.session.store.db);
  failure ??= grade.passed
    ? undefined
    : `database differs from the gold one (${grade.finalHash.slice(0, 12)} vs ${grade.goldHash.slice(0, 12)})`;
  const usage = model.usage?.();
  return {
    id: task.id,
    passed: failure === undefined,
    ...(failure === undefined ? {} : { failure }),
    ...run,
    ...(usage === undefined ? {} : { api: usage.agent, customerApi: usage.customer }),
  };
}
