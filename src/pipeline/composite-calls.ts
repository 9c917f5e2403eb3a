// Composite tools: `exec.callTool(name, args)` inside a body runs `name` as a nested
// call of that execution, through the same nested-call path as run_code's SDK calls:
// a call sequencer (turn ordering rules), the whole pipeline, the execution's token as
// parent (so its root, agent and depth follow), and the body's signal. Results are
// ferried onto the outer result in submission order. When the body settles, calls it
// did not await are aborted and drained; later calls are refused (NOT_DISPATCHED).
import { ToolRuntimeError } from '../errors/tool-runtime-error.ts';
import type { CallTool, ExecutionState } from './execution-state.ts';
import type { OpenNestedCalls, NestedCallSubmitter } from './nested-call-submitter.ts';
import { orderedFerry } from './ordered-ferry.ts';
import type { ToolResult } from './tool-result.ts';

export interface CompositeCalls {
  readonly callTool: CallTool;
  /** The body settled: abort what it left running, drain, refuse later calls. */
  close(): Promise<void>;
}

export function openCompositeCalls(
  open: OpenNestedCalls | undefined,
  exec: ExecutionState,
  bodySignal: AbortSignal,
): CompositeCalls {
  let submitter: NestedCallSubmitter | undefined;
  let scope: AbortController | undefined;
  let relay: (() => void) | undefined;
  let closed = false;
  let submitted = 0;
  const ferry = orderedFerry(exec);
  // After the execution finished (a timeout wrapper gave up on the body), nothing is handed up.
  const safely = (hand: () => void): void => {
    if (exec.phase !== 'done') hand();
  };

  const callTool: CallTool = async (name, args) => {
    if (closed)
      throw new ToolRuntimeError(
        'NOT_DISPATCHED',
        `exec.callTool(${JSON.stringify(String(name))}): the body of "${exec.name}" has ended; nested calls are refused`,
      );
    if (typeof name !== 'string' || name.length === 0)
      throw new TypeError(
        `exec.callTool: name must be a non-empty tool name, got ${typeof name === 'string' ? '""' : typeof name}`,
      );
    if (open === undefined)
      throw new ToolRuntimeError(
        'PTC_NOT_CONFIGURED',
        'exec.callTool: this pipeline has no nested-call scheduler (use createToolRuntime)',
      );
    if (submitter === undefined) {
      // One scope per body: the body's signal aborts it, and so does the body's end.
      const controller = new AbortController();
      scope = controller;
      if (bodySignal.aborted) controller.abort(bodySignal.reason);
      else {
        relay = () => controller.abort(bodySignal.reason);
        bodySignal.addEventListener('abort', relay, { once: true });
      }
      submitter = open({ agent: exec.agent, signal: controller.signal });
    }
    const seq = ++submitted;
    let result: ToolResult;
    try {
      result = await submitter.submit({
        callId: `${exec.callId}:call:${seq}`,
        name,
        arguments: args,
        ...(exec.agent === undefined ? {} : { agent: exec.agent }),
        parent: exec.token,
        rootCallId: exec.rootCallId,
      });
    } catch (error) {
      safely(() => ferry.skip(seq));
      throw error;
    }
    safely(() => ferry.commit(seq, result));
    return result;
  };

  return {
    callTool,
    async close() {
      closed = true;
      if (submitter === undefined) return;
      if (relay !== undefined) bodySignal.removeEventListener('abort', relay);
      scope?.abort(new DOMException(`the body of "${exec.name}" ended before this nested call settled`, 'AbortError'));
      await submitter.close().catch(() => {});
    },
  };
}
