// Replay: render a journal through the same presenter the live UI uses, flat (commit
// order) and as the call tree (nested calls under the call that made them).
import { openFileJournal } from './file-journal.ts';
import type { Journal, JournalWarning, ToolCallEvent } from './journal.ts';
import { presentExecution, type ExecutionPresentation, type PresenterSource } from './present-execution.ts';
import { presentationTree, type PresentationNode } from './presentation-tree.ts';

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
  /** Skipped lines, and results without a call. */
  readonly warnings: readonly JournalWarning[];
}

/** `journal`: a store, or the path of a JSONL journal file. */
export async function replayJournal(journal: Journal | string, rt: PresenterSource): Promise<JournalReplay> {
  const store = typeof journal === 'string' ? openFileJournal(journal) : journal;
  const { events, warnings } = await store.read();
  const executions: ExecutionPresentation[] = [];
  const extra: JournalWarning[] = [];
  const open = new Map<string, ToolCallEvent>();
  const interrupted: ToolCallEvent[] = [];
  for (const event of events) {
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
      extra.push({
        kind: 'orphan-result',
        message: `result of call "${event.callId}" has no tool/call event; skipped`,
      });
      continue;
    }
    open.delete(event.callId);
    executions.push(presentExecution(rt, call, event.result));
  }
  interrupted.push(...open.values());
  return { executions, tree: presentationTree(executions), interrupted, warnings: [...warnings, ...extra] };
}
