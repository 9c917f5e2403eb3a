// Replay: render a journal through the same presenter the live UI uses.
import type { Journal, JournalWarning, ToolCallEvent } from './journal.ts';
import { presentExecution, type ExecutionPresentation, type PresenterSource } from './present-execution.ts';

export interface JournalReplay {
  /** One presentation per committed call, in journal (commit) order. */
  readonly executions: readonly ExecutionPresentation[];
  /** Calls whose result is missing (e.g. lost in a torn write). */
  readonly interrupted: readonly ToolCallEvent[];
  /** Skipped lines, and results without a call. */
  readonly warnings: readonly JournalWarning[];
}

export async function replayJournal(journal: Journal, rt: PresenterSource): Promise<JournalReplay> {
  const { events, warnings } = await journal.read();
  const executions: ExecutionPresentation[] = [];
  const extra: JournalWarning[] = [];
  const open = new Map<string, ToolCallEvent>();
  const interrupted: ToolCallEvent[] = [];
  for (const event of events) {
    if (event.type === 'tool/call') {
      const stale = open.get(event.callId);
      if (stale !== undefined) interrupted.push(stale);
      open.set(event.callId, event);
      continue;
    }
    const call = open.get(event.callId);
    if (call === undefined) {
      extra.push({ kind: 'orphan-result', message: `result of call "${event.callId}" has no tool/call event; skipped` });
      continue;
    }
    open.delete(event.callId);
    executions.push(presentExecution(rt, call, event.result));
  }
  interrupted.push(...open.values());
  return { executions, interrupted, warnings: [...warnings, ...extra] };
}
