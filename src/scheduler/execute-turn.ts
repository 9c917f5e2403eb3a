// One model message's tool calls: submit them all to a call sequencer in
// model order, wait for every commit, and assemble the step's outcome. Step recovery:
// after an internal failure (e.g. the journal cannot be written) the turn still
// resolves, with a result for every call — the committed ones as they were, the rest
// structured SCHEDULER_FAILURE results — so the provider transcript never holds a
// tool call without its result.
import { hostedCallRequest, type HostedConversation } from '../hosted/hosted-conversation.ts';
import { checkCallIdLength } from '../pipeline/call-id-bound.ts';
import type { PipelineDeps } from '../pipeline/pipeline-deps.ts';
import type { ContextMessage, ToolResult } from '../pipeline/tool-result.ts';
import type { AgentRef } from '../registry/tool-registry.ts';
import { createCallSequencer } from './call-sequencer.ts';
import { isContextInbox, type ContextInbox } from '../runtime/context-inbox.ts';
import { checkConcurrency } from './concurrency-limit.ts';
import type { Journal } from '../journal/journal.ts';
import type { JournalBounds } from '../journal/journal-bounds.ts';
import { resolveJournal } from '../journal/resolve-journal.ts';
import type { TurnCall } from './turn-call.ts';

export type { TurnCall } from './turn-call.ts';

export interface TurnOptions {
  /** The calling agent (scope, restrictions, guards). Default: the global scope. */
  readonly agent?: AgentRef;
  /** Cancels the turn: nothing new starts, started calls drain, unstarted calls get ABORTED_BEFORE_DISPATCH. */
  readonly signal?: AbortSignal;
  /** Hosted mode: the conversation whose programs made the program-made calls (`rt.hostedConversation()`). */
  readonly conversation?: HostedConversation;
  /**
   * The conversation's inbox (`rt.contextInbox()`): after every result committed, the
   * turn's contexts wait there, in model order, until `inbox.admit()` journals them as
   * user messages for the next request.
   */
  readonly inbox?: ContextInbox;
}

export interface TurnResult {
  /** One final result per call, in model order. */
  readonly results: readonly ToolResult[];
  /** Every result's `additionalContexts`, in model order: for the next step's inbox, after all results. */
  readonly additionalContexts: readonly ContextMessage[];
  /** True iff a committed result concludes the turn. */
  readonly concludesTurn: boolean;
}

export interface TurnExecutorOptions extends JournalBounds {
  /**
   * Pool size for concurrency-safe calls of one turn.
   * @default 8
   */
  readonly concurrency?: number;
  /**
   * Durable, write-ahead record of every call and result (turns, `rt.execute`, nested
   * calls): a Journal store, or a string that picks one: a `postgres://` URL (PostgreSQL,
   * shared by hosts), a path ending in .db/.sqlite/.sqlite3 (SQLite), any other path (JSONL).
   */
  readonly journal?: Journal | string;
}

export type TurnExecutor = (calls: readonly TurnCall[], options?: TurnOptions) => Promise<TurnResult>;

/** Binds the runtime-wide settings, checking them now rather than at the first turn. */
export function createTurnExecutor(deps: PipelineDeps, options: TurnExecutorOptions = {}): TurnExecutor {
  const concurrency = checkConcurrency(options.concurrency, 'createToolRuntime');
  const journal = resolveJournal(options.journal, options);
  return (calls, turn = {}) =>
    executeTurn(deps, calls, { ...turn, concurrency, ...(journal === undefined ? {} : { journal }) });
}

export async function executeTurn(
  deps: PipelineDeps,
  calls: readonly TurnCall[],
  options: TurnOptions & { readonly concurrency?: number; readonly journal?: Journal } = {},
): Promise<TurnResult> {
  checkTurnCalls(calls);
  if (options.inbox !== undefined && !isContextInbox(options.inbox))
    throw new TypeError('executeTurn: inbox must come from rt.contextInbox()');
  const hosted = calls.some((c) => c.caller !== undefined && c.caller !== null && c.caller.type !== 'direct');
  const agent = hosted ? deps.registry.agentId(options.agent) : undefined;
  // A program-made call waits here until its program's execution runs (or was refused).
  const requests = hosted
    ? await Promise.all(calls.map((c) => hostedCallRequest(c, agent, options.conversation)))
    : calls.map((c) => ({ callId: c.callId, name: c.name, arguments: c.arguments }));
  const sequencer = createCallSequencer(deps, options);
  const pending = requests.map((r) => sequencer.submit(r));
  // An internal failure is in the results (SCHEDULER_FAILURE for every call it kept
  // from committing); close() still waits for started work first.
  await sequencer.close().catch(() => {});
  const turn = assembleTurn(await Promise.all(pending));
  // Results first, then the contexts into the next step's inbox.
  options.inbox?.enqueue(turn.results);
  return turn;
}

/** The step's outcome from final results (already in model order); only successes conclude. */
export function assembleTurn(results: readonly ToolResult[]): TurnResult {
  return Object.freeze({
    results: Object.freeze([...results]),
    additionalContexts: Object.freeze(results.flatMap((r) => r.additionalContexts ?? [])),
    concludesTurn: results.some((r) => r.concludesTurn === true),
  });
}

/** A malformed message is refused whole, before any call starts. */
function checkTurnCalls(calls: unknown): asserts calls is readonly TurnCall[] {
  if (!Array.isArray(calls)) throw new TypeError('executeTurn: calls must be an array of { callId, name, arguments }');
  const ids = new Set<string>();
  calls.forEach((c: unknown, i) => {
    const call = c as Partial<Record<string, unknown>> | null;
    if (typeof call !== 'object' || call === null)
      throw new TypeError(`executeTurn: calls[${i}] must be an object { callId, name, arguments }`);
    if (typeof call.callId !== 'string' || call.callId.length === 0)
      throw new TypeError(`executeTurn: calls[${i}].callId must be a non-empty string`);
    checkCallIdLength(call.callId, `executeTurn: calls[${i}]`);
    if (typeof call.name !== 'string') throw new TypeError(`executeTurn: calls[${i}].name must be a string`);
    if (ids.has(call.callId))
      throw new TypeError(`executeTurn: calls[${i}].callId "${call.callId}" is used twice in one message`);
    ids.add(call.callId);
  });
}
