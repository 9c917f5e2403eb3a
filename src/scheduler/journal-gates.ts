// The two durability points of one execution, bound to a journal store: the call is
// recorded before any stage runs (write-ahead), the result before observers see it.
// A failed append becomes the scheduler's own failure (SCHEDULER_FAILURE), cause kept.
import type { CallRecord } from '../pipeline/call-record.ts';
import type { ExecutionGates } from '../pipeline/execute-tool.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import type { Journal, ToolCallEvent } from './journal.ts';
import { SchedulerError } from './scheduler-error.ts';

export type JournalGates = Required<Pick<ExecutionGates, 'recordCall' | 'recordResult'>>;

export function toCallEvent(call: CallRecord): ToolCallEvent {
  return {
    type: 'tool/call',
    callId: call.callId,
    name: call.name,
    agent: call.agent ?? null,
    arguments: call.arguments,
    ...(call.rootCallId === call.callId ? {} : { rootCallId: call.rootCallId }),
    ...(call.parentCallId === undefined ? {} : { parentCallId: call.parentCallId }),
  };
}

export function journalGates(journal: Journal): JournalGates {
  const append = async (event: Parameters<Journal['append']>[0][number]): Promise<void> => {
    try {
      await journal.append([event]);
    } catch (error) {
      throw SchedulerError.failure(error);
    }
  };
  return {
    recordCall: (call) => append(toCallEvent(call)),
    recordResult: (result: ToolResult) =>
      append({ type: 'tool/result', callId: result.callId, name: result.name, result }),
  };
}
