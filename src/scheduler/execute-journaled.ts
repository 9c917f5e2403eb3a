// A direct call (`rt.execute`) with a journal: the same write-ahead record and commit
// as a call of a turn, and the same recovery — a journal failure gives the caller a
// SCHEDULER_FAILURE result (the call's body ran only if `info.dispatched`), never a
// rejection. A malformed request is still a TypeError.
import { executeTool } from '../pipeline/execute-tool.ts';
import type { NestedExecuteRequest } from '../pipeline/execute-request.ts';
import type { PipelineDeps } from '../pipeline/pipeline-deps.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import type { Journal } from '../journal/journal.ts';
import { journalGates } from './journal-gates.ts';
import { SchedulerError, schedulerFailureResult } from './scheduler-error.ts';

export async function executeJournaled(
  deps: PipelineDeps,
  request: NestedExecuteRequest,
  journal: Journal,
): Promise<ToolResult> {
  let dispatched = false;
  try {
    return await executeTool(deps, request, {
      ...journalGates(journal),
      runDispatch: (dispatch) => {
        dispatched = true;
        return dispatch();
      },
    });
  } catch (error) {
    if (!(error instanceof SchedulerError)) throw error;
    return schedulerFailureResult(request.callId, request.name, error, dispatched);
  }
}
