// The two durability points of one execution, bound to a journal store: the call is
// recorded before any stage runs (write-ahead), the result before observers see it.
// An append is awaited only as long as the call's JournalWait allows (journal-wait.ts).
// A failed append becomes the scheduler's own failure (SCHEDULER_FAILURE), cause kept.
import type { CallRecord } from '../pipeline/call-record.ts';
import type { ExecutionGates } from '../pipeline/pipeline-deps.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import type { Journal, ToolCallEvent } from '../journal/journal.ts';
import { awaitAppend, type JournalWait } from '../journal/journal-wait.ts';
import { SchedulerError } from './scheduler-error.ts';

export interface JournalGates {
  readonly recordCall: NonNullable<ExecutionGates['recordCall']>;
  /** `runId`: a durable run's nested call (its result row names the run). */
  readonly recordResult: (result: ToolResult, wait: JournalWait, runId?: string) => Promise<void>;
}

export function toCallEvent(call: CallRecord): ToolCallEvent {
  return {
    type: 'tool/call',
    callId: call.callId,
    name: call.name,
    agent: call.agent ?? null,
    arguments: call.arguments,
    ...(call.rootCallId === call.callId ? {} : { rootCallId: call.rootCallId }),
    ...(call.parentCallId === undefined ? {} : { parentCallId: call.parentCallId }),
    ...(call.runId === undefined ? {} : { runId: call.runId }),
  };
}

// When each journaled result was committed (the `at` of its event), for run_code: a
// program's clock moves to it when the result is delivered, and on a re-run to the same
// recorded time. Results are frozen objects: a WeakMap keeps nothing alive.
const committedAt = new WeakMap<ToolResult, number>();

/** The commit time written with this result's journal event, if it was journaled. */
export function journaledAt(result: ToolResult): number | undefined {
  return committedAt.get(result);
}

export function journalGates(journal: Journal): JournalGates {
  const append = async (event: Parameters<Journal['append']>[0][number], wait: JournalWait): Promise<void> => {
    try {
      await awaitAppend(journal, [event], wait);
    } catch (error) {
      throw SchedulerError.failure(error);
    }
  };
  return {
    recordCall: (call, wait) => append(toCallEvent(call), wait),
    recordResult: async (result: ToolResult, wait: JournalWait, runId?: string) => {
      const at = Date.now();
      await append(
        {
          type: 'tool/result',
          callId: result.callId,
          name: result.name,
          result,
          at,
          ...(runId === undefined ? {} : { runId }),
        },
        wait,
      );
      committedAt.set(result, at);
    },
  };
}
