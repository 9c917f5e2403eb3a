// Replay: render a journal through the same presenter the live UI uses, flat (commit
// order) and as the call tree (nested calls under the call that made them).
import type { Journal, JournalWarning, ToolCallEvent } from './journal.ts';
import { presentExecution, type ExecutionPresentation, type PresenterSource } from './present-execution.ts';
import { presentationTree, type PresentationNode } from './presentation-tree.ts';
import { openJournalPath } from './resolve-journal.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import type { UserMessageEvent } from './user-message-event.ts';

export interface JournalReplay {
  /** One presentation per committed call (nested calls included), in journal (commit) order. */
  readonly executions: readonly ExecutionPresentation[];
  /** The same presentations as the call tree, exactly as `presentationTree` arranges live ones. */
  readonly tree: readonly PresentationNode[];
  /**
   * Calls whose result is missing, in write-ahead order: the host died (or the store
   * failed) after the call was recorded and before its result was. Their bodies may
   * have run.
   */
  readonly interrupted: readonly ToolCallEvent[];
  /**
   * Contexts admitted into their conversation as user messages (`inbox.admit()`), in
   * journal order: what the model was sent after the results, and when. Each names the
   * call whose result deferred it (`callId`, `index`) and its conversation (`inbox`).
   */
  readonly userMessages: readonly UserMessageEvent[];
  /** Skipped lines, and results without a call. */
  readonly warnings: readonly JournalWarning[];
}

/**
 * `journal`: a store, or a path or URL — opened by the same rule as the `journal` option
 * and `--journal` (postgres://: PostgreSQL; .db/.sqlite/.sqlite3: SQLite; anything else: JSONL). The tree keeps an
 * interrupted call (its result missing) in its place, with the calls it made that did
 * finish under it. An event that cannot be presented is skipped with a warning.
 */
export async function replayJournal(journal: Journal | string, rt: PresenterSource): Promise<JournalReplay> {
  const opened = typeof journal === 'string' ? openJournalPath(journal, 'replayJournal') : undefined;
  const store = opened ?? (journal as Journal);
  let contents: Awaited<ReturnType<Journal['read']>>;
  try {
    contents = await store.read();
  } finally {
    await opened?.close();
  }
  const { events, warnings } = contents;
  const executions: ExecutionPresentation[] = [];
  const extra: JournalWarning[] = [];
  const open = new Map<string, ToolCallEvent>();
  const interrupted: ToolCallEvent[] = [];
  const userMessages: UserMessageEvent[] = [];
  const warn = (warning: JournalWarning): void => {
    if (extra.length < MAX_REPLAY_WARNINGS) extra.push(warning);
    else skipped += 1;
  };
  let skipped = 0;
  for (const event of events) {
    if (event.type === 'user/message') {
      userMessages.push(event);
      continue;
    }
    // A durable run's own events (run/start, run/paused, ...) are not calls: see `rt.runs()`.
    if (event.type !== 'tool/call' && event.type !== 'tool/result') continue;
    if (event.type === 'tool/call') {
      const stale = open.get(event.callId);
      if (stale !== undefined) interrupted.push(stale);
      open.set(event.callId, event);
      continue;
    }
    const call = open.get(event.callId);
    if (call === undefined) {
      warn({
        kind: 'orphan-result',
        message: `result of call "${shortId(event.callId)}" has no tool/call event; skipped`,
      });
      continue;
    }
    open.delete(event.callId);
    try {
      executions.push(presentExecution(rt, call, event.result));
    } catch (error) {
      warn({
        kind: 'unreadable-line',
        message: `call "${shortId(event.callId)}" could not be presented (${(error as Error).message}); skipped`,
      });
    }
  }
  interrupted.push(...open.values());
  if (skipped > 0)
    extra.push({ kind: 'unreadable-line', message: `… and ${skipped} more warnings like these (not listed)` });
  // Interrupted calls stand in the tree (after the committed ones), so their finished children stay under them.
  const standIns: ExecutionPresentation[] = [];
  for (const call of interrupted) {
    try {
      standIns.push(presentExecution(rt, call, interruptedResult(call)));
    } catch {
      // Presented generically or not at all: the call is still listed in `interrupted`.
    }
  }
  return {
    executions,
    tree: presentationTree([...executions, ...standIns]),
    interrupted,
    userMessages,
    warnings: [...warnings, ...extra],
  };
}

/** Warnings replay lists one by one; past it they are counted in one more. */
export const MAX_REPLAY_WARNINGS = 100;

const shortId = (id: string): string => (id.length > 80 ? `${id.slice(0, 80)}…` : id);

/** What an interrupted call shows in the tree: no result was committed. */
function interruptedResult(call: ToolCallEvent): ToolResult {
  const message = 'interrupted: the call was recorded but its result was not (the host stopped while it ran)';
  return {
    callId: call.callId,
    name: call.name,
    isError: true,
    content: [{ type: 'text', text: `Error: ${message}` }],
    error: { code: 'INTERRUPTED', message },
  } as ToolResult;
}
