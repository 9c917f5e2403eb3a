// The policy a write would meet, asked for a preview without running anything: the entry
// checks, the tools/pre-execute handlers and the agent's guards see the call as they would
// in the commit (same name, arguments, agent and caller). A denial there is the write's
// outcome in the preview too, so a plan never holds a write its policy refuses. An `ask`
// is not put to anyone: the commit asks. Nothing is journaled, dispatched or finished.
import { createExecution, entryRefusal } from './execution-entry.ts';
import type { NestedExecuteRequest } from './execute-request.ts';
import type { PipelineDeps } from './pipeline-deps.ts';
import { policy } from './policy-stage.ts';
import { pipelineErrorDraft } from './result-drafts.ts';
import type { ToolErrorInfo } from './tool-result.ts';

/** The error the call would fail with before its body, or undefined when its policy lets it run. */
export async function previewRefusal(
  deps: PipelineDeps,
  request: NestedExecuteRequest,
): Promise<ToolErrorInfo | undefined> {
  try {
    const entry = createExecution(deps, request);
    const refused = entryRefusal(deps, request, entry);
    if (refused !== undefined) return refused.error;
    return (await policy(deps, entry.exec, { skipAsk: true }))?.error;
  } catch (error) {
    return pipelineErrorDraft('tools/pre-execute', error).error;
  }
}
