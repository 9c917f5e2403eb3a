// The seam through which an execution makes nested calls (run_code's SDK calls, a
// composite tool's `exec.callTool`): the runtime hands out a call sequencer, so nested
// calls follow exactly the ordering rules of a model turn.
import type { NestedExecuteRequest } from './execute-request.ts';
import type { ToolResult } from './tool-result.ts';

export interface NestedCallSubmitter {
  /** Queues one call; resolves with its final result (a failed commit is a SCHEDULER_FAILURE result). */
  submit(request: NestedExecuteRequest): Promise<ToolResult>;
  /** Refuses later calls (NOT_DISPATCHED) and waits for the started ones. */
  close(): Promise<void>;
}

export interface NestedCallOptions {
  /** The agent of the nested calls: the parent execution's. */
  readonly agent: string | undefined;
  /** Aborts every nested call (the parent's signal, or a run-scoped one). */
  readonly signal: AbortSignal;
  /**
   * The caller makes every callId new itself (run_code numbers its calls): no duplicate
   * check, and no id kept per call for one.
   */
  readonly callIdsUnique?: boolean;
}

/** A fresh submitter for one parent execution. */
export type OpenNestedCalls = (options: NestedCallOptions) => NestedCallSubmitter;
