// One execution, stage by stage, in this order (one file per stage):
//   create (snapshot + token) → write-ahead record → entry checks   execution-entry.ts
//   → tools/pre-execute → approval → guards + cancellation recheck   policy-stage.ts
//   → dispatch gate → tools/execute (around dispatch)                dispatch-stage.ts
//   → resource lock                                                  lock-stage.ts
//   → body, output, render (give-up of a body: body-give-up.ts)      body-stage.ts
//   → projectContent → tools/post-execute → finish (finalizeContent, materialize,
//     freeze exec, journal, tools/result observers)                  finish-stage.ts
// Pipeline throws in create/pre/around skip post-execute and go straight to finish.
// What the pipeline is given: pipeline-deps.ts; what a call brings: execute-request.ts.
import { journalWaitFor } from '../journal/journal-wait.ts';
import { pipelineErrorDraft, type Draft } from './result-drafts.ts';
import type { NestedExecuteRequest } from './execute-request.ts';
import type { ExecutionGates, PipelineDeps } from './pipeline-deps.ts';
import type { ToolExecution } from './tool-execution.ts';
import type { ContextMessage, ToolResult } from './tool-result.ts';
import { createExecution, entryRefusal } from './execution-entry.ts';
import { policy } from './policy-stage.ts';
import { projectedContent, startDispatch } from './dispatch-stage.ts';
import { finish, postExecute } from './finish-stage.ts';

export { callIdempotencyKey } from './execution-entry.ts';
export type { ExecuteRequest, NestedExecuteRequest } from './execute-request.ts';
export type {
  ApprovalAnswer,
  ApprovalRequest,
  ApprovalService,
  ExecutionGates,
  ExecutionTracer,
  PipelineDeps,
  ResourceWait,
} from './pipeline-deps.ts';

export function executeTool(
  deps: PipelineDeps,
  request: NestedExecuteRequest,
  gates: ExecutionGates = {},
): Promise<ToolResult> {
  const { tracer } = deps;
  if (tracer === undefined) return runExecution(deps, request, gates);
  return tracer.trace(request, (created) => runExecution(deps, request, gates, created));
}

/**
 * The driver: each stage in order, and where a stage's draft ends the call early. Its
 * awaits are the call's turns (a scheduler interleaves calls' records by them), so a
 * stage that finishes synchronously is not awaited.
 */
async function runExecution(
  deps: PipelineDeps,
  request: NestedExecuteRequest,
  gates: ExecutionGates,
  created?: (exec: ToolExecution) => void,
): Promise<ToolResult> {
  const entry = createExecution(deps, request);
  const { exec, finalizeContent } = entry;
  created?.(exec.view);
  // How long this call waits for the journal: its signal, and its tool's wall bound (run_code).
  const wait =
    gates.recordCall === undefined && gates.recordResult === undefined
      ? undefined
      : journalWaitFor(entry.tool, exec.callerSignal);
  const recordResult =
    gates.recordResult === undefined || wait === undefined
      ? undefined
      : (result: ToolResult) => gates.recordResult!(result, wait);

  let policyReported = false;
  const policyDone = (): void => {
    if (!policyReported) {
      policyReported = true;
      gates.onPolicyDone?.();
    }
  };
  let committed = false;
  // The scheduler's commit order, waited for once (nothing to await without a scheduler).
  const commitTurn = (): Promise<void> | undefined => {
    if (committed) return undefined;
    committed = true;
    return gates.beforeCommit?.();
  };
  const finalResult = async (draft: Draft): Promise<ToolResult> => {
    policyDone();
    await commitTurn();
    return finish(deps, exec, draft, exec.deferredContexts, finalizeContent, recordResult);
  };

  // Write-ahead: the call is durable before anything of it runs.
  if (gates.recordCall !== undefined) {
    const { callId, name, agent, arguments: args, rootCallId, parentCallId } = exec;
    await gates.recordCall({ callId, name, agent, arguments: args, rootCallId, parentCallId }, wait!);
  }
  const refusal = entryRefusal(deps, request, entry);
  if (refusal !== undefined) return finalResult(refusal);

  let draft: Draft | undefined;
  try {
    const decided = policy(deps, exec);
    draft = decided instanceof Promise ? await decided : decided;
  } catch (error) {
    return finalResult(pipelineErrorDraft('tools/pre-execute', error));
  }
  policyDone();

  if (draft === undefined) {
    const dispatching = startDispatch(deps, exec, gates);
    if (dispatching.ran !== undefined) await dispatching.ran;
    const dispatched = dispatching.outcome();
    if (dispatched === undefined) throw new Error(`scheduler did not dispatch call "${exec.callId}"`);
    if ('pipelineError' in dispatched)
      return finalResult(pipelineErrorDraft('tools/execute', dispatched.pipelineError));
    try {
      draft = projectedContent(exec, dispatched.draft, entry.projectContent);
    } catch (error) {
      return finalResult(pipelineErrorDraft('projectContent', error));
    }
  }

  const order = commitTurn();
  if (order !== undefined) await order;
  exec.enterPhase('post');
  let contexts: readonly ContextMessage[];
  try {
    // No handlers: accept() with no changes, so the outcome they would see is never built.
    if (deps.hooks.list('tools/post-execute').length === 0) contexts = exec.deferredContexts;
    else ({ draft, contexts } = await postExecute(deps, exec, draft));
  } catch (error) {
    draft = pipelineErrorDraft('tools/post-execute', error);
    contexts = exec.deferredContexts;
  }
  return finish(deps, exec, draft, contexts, finalizeContent, recordResult);
}
