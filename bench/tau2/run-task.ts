// One task in one mode: the adapter loop (model request → tool calls through the runtime
// → results back, or text → the customer's reply), then the database graded as upstream
// grades it. Tokens are counted with the BFCL harness's tokenizer.
import { fromAnthropicToolUses, toAnthropicRequest, toAnthropicUserMessage } from '../../src/adapters/anthropic.ts';
import type { ToolRuntime } from '../../src/index.ts';
import { countTokens } from '../bfcl/tokens.ts';
import { gradeDb } from './grade.ts';
import type { Message, TaskModel } from './model.ts';
import { openingMessage } from './plan.ts';
import { parseDb } from './retail-db.ts';
import { RetailStore } from './retail-store.ts';
import type { RetailTask } from './tasks.ts';
import type { RetailSession } from './tools.ts';

/** A scripted conversation that runs longer than this is cut off and fails. */
export const MAX_MODEL_REQUESTS = 200;

export interface TaskContext {
  readonly rt: ToolRuntime;
  readonly session: RetailSession;
  readonly dbText: string;
  readonly policy: string;
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
}

export async function runTask(ctx: TaskContext, task: RetailTask, model: TaskModel): Promise<TaskRun> {
  ctx.session.store = new RetailStore(parseDb(ctx.dbText));
  const opening = openingMessage(task);
  const messages: Message[] = [{ role: 'user', content: opening }];
  const policyTokens = countTokens(ctx.policy);
  let history = countTokens(opening);
  const run = { modelRequests: 0, toolCalls: 0, definitionTokens: 0, resultTokens: 0, sentTokens: 0, outputTokens: 0 };
  let failure: string | undefined;
  for (;;) {
    if (run.modelRequests >= MAX_MODEL_REQUESTS) {
      failure = `more than ${MAX_MODEL_REQUESTS} model requests`;
      break;
    }
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
    let reply: Awaited<ReturnType<TaskModel['respond']>>;
    try {
      reply = await model.respond(request);
    } catch (e) {
      failure = `the model gave up: ${e instanceof Error ? e.message : String(e)}`;
      break;
    }
    messages.push({ role: 'assistant', content: reply.content });
    const written = countTokens(JSON.stringify(reply.content));
    run.outputTokens += written;
    history += written;
    const uses = fromAnthropicToolUses(reply.content, ctx.rt);
    if (uses.length > 0) {
      run.toolCalls += uses.length;
      const results = await ctx.rt.executeTurn(uses, {});
      const user = toAnthropicUserMessage(results);
      for (const block of user.content)
        if (block.type === 'tool_result')
          for (const c of block.content) if (c.type === 'text') run.resultTokens += countTokens(c.text);
      history += countTokens(JSON.stringify(user.content));
      messages.push(user);
      continue;
    }
    const answer = model.customerReply();
    if (answer === undefined) break;
    messages.push({ role: 'user', content: answer });
    history += countTokens(answer);
  }
  ctx.onTranscript?.(task.id, messages);
  const grade = gradeDb(ctx.dbText, task, ctx.session.store.db);
  failure ??= grade.passed
    ? undefined
    : `database differs from the gold one (${grade.finalHash.slice(0, 12)} vs ${grade.goldHash.slice(0, 12)})`;
  return { id: task.id, passed: failure === undefined, ...(failure === undefined ? {} : { failure }), ...run };
}
