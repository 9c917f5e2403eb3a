// One entry in one mode: the adapter loop turn by turn (model request → tool calls through
// the runtime → results back), the ground truth executed on a second set of instances,
// and upstream's per-turn checks.
import {
  type AnthropicRequestTool,
  fromAnthropicToolUses,
  toAnthropicRequest,
  toAnthropicUserMessage,
} from '../../src/adapters/anthropic.ts';
import type { Tool, ToolRuntime } from '../../src/index.ts';
import { METHOD_ORDER_OVERRIDES, type Dataset, type Entry } from './data.ts';
import { createEnvs } from './envs/index.ts';
import { type ApiUsage, type AssistantBlock, type Message, TOOL_SEARCH, type TurnModel } from './model.ts';
import type { BoundCall } from './oracle.ts';
import { bindArgs, parseCall } from './parse-call.ts';
import { pyEqual } from './py-value.ts';
import { countTokens } from './tokens.ts';
import { runMethod, type Session } from './tools.ts';

export const HOLDOUT_MESSAGE = 'I have updated some more functions you can choose from. What about now?';
/** Upstream's per-turn step limit (MAXIMUM_STEP_LIMIT) for live models. */
export const MAX_STEPS = 20;

export interface EntryRun {
  readonly id: string;
  readonly passed: boolean;
  /** Why the entry failed: the first failing check and its turn. */
  readonly failure?: string;
  readonly modelRequests: number;
  /** Tool calls the model made (native: each call; ptc: each run_code). */
  readonly toolCalls: number;
  /** Environment method calls that ran on the model's side (ptc: the nested calls). */
  readonly methodCalls: number;
  /** Tokens of the tool definitions sent with every request, summed over requests. */
  readonly definitionTokens: number;
  /** Tokens of the definitions counted once per distinct tool list (sent once and kept). */
  readonly definitionTokensOnce: number;
  /** Tokens of every tool result the model was sent (each once). */
  readonly resultTokens: number;
  /**
   * Tokens of the conversation resent with every request (user messages, the model's own
   * calls and programs, tool results), summed over requests: with the definitions, what a
   * stateless API is sent in all.
   */
  readonly conversationTokens: number;
  /** Tokens of everything the model wrote: its calls, its programs, its answers (JSON of its content blocks). */
  readonly outputTokens: number;
  /** What a live model's API reported, when it did. */
  readonly api?: ApiUsage;
}

/** Method → class and its positional parameter order, from the func docs. */
export function methodIndex(docs: Dataset['docs']): Map<string, { cls: string; order: readonly string[] }> {
  const index = new Map<string, { cls: string; order: readonly string[] }>();
  for (const [cls, list] of docs)
    for (const d of list)
      index.set(d.name, { cls, order: METHOD_ORDER_OVERRIDES[d.name] ?? Object.keys(d.parameters.properties) });
  return index;
}

export function boundGroundTruth(entry: Entry, index: ReturnType<typeof methodIndex>): BoundCall[][] {
  return entry.ground_truth.map((turn) =>
    turn.map((src) => {
      const call = parseCall(src);
      const m = index.get(call.name);
      if (m === undefined) throw new Error(`${entry.id}: unknown function ${call.name}`);
      return { name: call.name, args: bindArgs(call, m.order) };
    }),
  );
}

/** Upstream's multiset check: each expected string uses up one equal model string. */
export function isSubMultiset(expected: readonly string[], actual: readonly string[]): boolean {
  const counts = new Map<string, number>();
  for (const s of actual) counts.set(s, (counts.get(s) ?? 0) + 1);
  for (const s of expected) {
    const n = counts.get(s) ?? 0;
    if (n === 0) return false;
    counts.set(s, n - 1);
  }
  return true;
}

export interface RunContext {
  readonly rt: ToolRuntime;
  /**
   * Native over `defer_loading` tools with the provider's tool search: a request's
   * definitions are the search tool and the tools found so far, not the deferred ones.
   */
  readonly toolSearch?: boolean;
  readonly tools: ReadonlyMap<string, Tool>;
  readonly session: Session;
  readonly dataset: Dataset;
  readonly index: ReturnType<typeof methodIndex>;
}

/** What a request with tool search puts in context: the tools not deferred, the search tool, the tools found. */
function searchedDefinitions(tools: readonly AnthropicRequestTool[], found: readonly AnthropicRequestTool[]): string {
  const loaded = tools.filter((tool) => !('defer_loading' in tool && tool.defer_loading === true));
  return JSON.stringify([...loaded, TOOL_SEARCH, ...found]);
}

/** The definitions a tool search's results name, as the provider loads them (without `defer_loading`). */
function foundTools(
  results: readonly AssistantBlock[],
  tools: readonly AnthropicRequestTool[],
): AnthropicRequestTool[] {
  const names = results.flatMap((block) =>
    block.type === 'tool_search_tool_result' ? block.content.tool_references.map((r) => r.tool_name) : [],
  );
  return names.flatMap((name) => {
    const tool = tools.find((t) => 'name' in t && t.name === name);
    if (tool === undefined) return [];
    const { defer_loading: _deferred, ...definition } = tool as AnthropicRequestTool & { defer_loading?: true };
    return [definition as AnthropicRequestTool];
  });
}

export async function runEntry(
  ctx: RunContext,
  entry: Entry,
  model: TurnModel,
  options: { readonly maxSteps?: number } = {},
): Promise<EntryRun> {
  const maxSteps = options.maxSteps ?? MAX_STEPS;
  const longContext = entry.category.includes('long_context');
  ctx.session.envs = createEnvs(entry.involved_classes, entry.initial_config, longContext);
  ctx.session.results = [];
  const truth = { envs: createEnvs(entry.involved_classes, entry.initial_config, longContext), results: [] } as Session;
  const gt = boundGroundTruth(entry, ctx.index);
  const held = new Set(Object.values(entry.missed_function ?? {}).flat());
  const disposers: (() => void)[] = [];
  const offer = (names: readonly string[]): void => {
    for (const name of names) {
      const tool = ctx.tools.get(name);
      if (tool === undefined) throw new Error(`no tool ${name}`);
      disposers.push(ctx.rt.register(tool));
    }
  };
  for (const cls of entry.involved_classes)
    offer((ctx.dataset.docs.get(cls) ?? []).map((d) => d.name).filter((n) => !held.has(n)));

  const run = {
    modelRequests: 0,
    toolCalls: 0,
    definitionTokens: 0,
    definitionTokensOnce: 0,
    resultTokens: 0,
    conversationTokens: 0,
    outputTokens: 0,
  };
  let history = 0;
  // Tool search: the definitions found so far, in the order found.
  const found: AnthropicRequestTool[] = [];
  const seenDefinitions = new Set<string>();
  let failure: string | undefined;
  const messages: Message[] = [];
  try {
    turns: for (let t = 0; t < entry.question.length; t++) {
      const turn = entry.question[t] ?? [];
      let userText: string;
      if (turn.length === 0) {
        offer(entry.missed_function?.[String(t)] ?? []);
        userText = HOLDOUT_MESSAGE;
      } else userText = turn.map((m) => m.content).join('\n');
      messages.push({ role: 'user', content: userText });
      history += countTokens(userText);
      const calls = gt[t] ?? [];
      // The ground truth on its own instances (first: a scripted model reads its results to
      // know which calls depend on one another; the grading below compares after the turn).
      const truthStart = truth.results.length;
      for (const call of calls) {
        const m = ctx.index.get(call.name);
        if (m !== undefined) runMethod(truth, m.cls, call.name, { ...call.args });
      }
      model.startTurn(calls, truth.results.slice(truthStart));
      const callsBefore = run.toolCalls;
      let steps = 0;
      for (;;) {
        if (++steps > maxSteps) {
          failure ??= `turn ${t}: more than ${maxSteps} steps (force-terminated)`;
          break;
        }
        const request = { ...toAnthropicRequest(ctx.rt), messages: [...messages] };
        const definitions =
          (ctx.toolSearch === true ? searchedDefinitions(request.tools, found) : JSON.stringify(request.tools)) +
          (request.system ?? '');
        const defTokens = countTokens(definitions);
        run.definitionTokens += defTokens;
        if (!seenDefinitions.has(definitions)) {
          seenDefinitions.add(definitions);
          run.definitionTokensOnce += defTokens;
        }
        run.modelRequests += 1;
        run.conversationTokens += history;
        let reply: Awaited<ReturnType<TurnModel['respond']>>;
        try {
          reply = await model.respond(request);
        } catch (e) {
          // A live model's API refused or failed (after its client's retries): this entry
          // fails and the benchmark goes on with the next.
          failure ??= `turn ${t}: the model request failed: ${e instanceof Error ? e.message : String(e)}`;
          break turns;
        }
        messages.push({ role: 'assistant', content: reply.content });
        // A tool search's result is the provider's, not the model's: a result, whose
        // definitions the model reads within the same response.
        const searched: AssistantBlock[] = reply.content.filter((block) => block.type === 'tool_search_tool_result');
        const written = countTokens(JSON.stringify(reply.content.filter((block) => !searched.includes(block))));
        run.outputTokens += written;
        history += written;
        if (searched.length > 0) {
          const references = countTokens(JSON.stringify(searched));
          run.resultTokens += references;
          history += references;
          const loaded = foundTools(searched, request.tools).filter(
            (tool) => !found.some((known) => 'name' in known && 'name' in tool && known.name === tool.name),
          );
          found.push(...loaded);
          run.definitionTokens += countTokens(JSON.stringify(loaded));
        }
        const uses = fromAnthropicToolUses(reply.content, ctx.rt);
        if (uses.length === 0) break;
        run.toolCalls += uses.length;
        const results = await ctx.rt.executeTurn(uses, {});
        const user = toAnthropicUserMessage(results);
        for (const block of user.content)
          if (block.type === 'tool_result')
            for (const c of block.content) if (c.type === 'text') run.resultTokens += countTokens(c.text);
        history += countTokens(JSON.stringify(user.content));
        messages.push(user);
      }
      // Upstream requires a decoded call in the turn, whether or not it then succeeds.
      const modelCallsThisTurn = run.toolCalls - callsBefore;
      if (failure !== undefined || calls.length === 0) continue;
      if (modelCallsThisTurn === 0) {
        failure = `turn ${t}: empty_turn_model_response`;
        continue;
      }
      for (const cls of entry.involved_classes) {
        const a = ctx.session.envs.get(cls)?.state() ?? {};
        const b = truth.envs.get(cls)?.state() ?? {};
        for (const key of Object.keys(b))
          if (!pyEqual(a[key], b[key])) failure ??= `turn ${t}: instance_state_mismatch ${cls}.${key}`;
      }
      if (failure === undefined && !isSubMultiset(truth.results.slice(truthStart), ctx.session.results))
        failure = `turn ${t}: execution_response_mismatch`;
    }
  } finally {
    for (const dispose of disposers.reverse()) dispose();
  }
  return {
    id: entry.id,
    passed: failure === undefined,
    ...(failure === undefined ? {} : { failure }),
    ...run,
    methodCalls: ctx.session.results.length,
    ...(model.usage === undefined ? {} : { api: model.usage() }),
  };
}
