// Stage: post-execute and finish. tools/post-execute handlers may accept (replacing the
// value or the content, adding contexts) or block the outcome; finish then materializes
// the result (finalizeContent, frozen), ends the execution, makes the result durable and
// tells the tools/result observers.
// Contract: postExecute gives the draft and contexts to finish with (a handler's throw or
// a malformed decision rejects it); finish gives the final result, synchronously when
// nothing records or observes it.
import type { Tool } from '../definition/define-tool.ts';
import { ERROR_CODES } from '../errors/error-codes.ts';
import type { PostDecision } from './decisions.ts';
import { markContentReplaced } from './content-replaced.ts';
import { accept } from './decisions.ts';
import { checkContent, checkContexts } from './content.ts';
import type { ExecutionState } from './execution-state.ts';
import { waterfall } from './hooks.ts';
import { errorDraft, materialize, pipelineErrorDraft, successDraft, type Draft } from './result-drafts.ts';
import type { PipelineDeps } from './pipeline-deps.ts';
import type { ContextMessage, ToolResult } from './tool-result.ts';

export async function postExecute(
  deps: PipelineDeps,
  exec: ExecutionState,
  draft: Draft,
): Promise<{ draft: Draft; contexts: readonly ContextMessage[] }> {
  const handlers = deps.hooks.list('tools/post-execute');
  // No handlers: accept() with no changes, so the outcome they would see is never built.
  if (handlers.length === 0) return { draft, contexts: [...exec.deferredContexts] };
  const outcome = materialize(exec, draft, exec.deferredContexts, exec.concluded);
  const decision = await waterfall(
    handlers,
    (h, next: () => Promise<PostDecision>) => h(exec.view, outcome, next),
    async () => accept(),
  );
  const kind = (decision as { kind?: unknown } | null)?.kind;
  if (kind === 'block') {
    const d = decision as Extract<PostDecision, { kind: 'block' }>;
    // Body-deferred contexts are dropped; only the decision's own contexts remain.
    return {
      draft: errorDraft(ERROR_CODES.BLOCKED, String(d.feedback)),
      contexts: checkContexts(d.additionalContexts, 'block(..., { additionalContexts })'),
    };
  }
  if (kind !== 'accept')
    throw new TypeError(
      `a post-execute handler returned ${JSON.stringify(decision)}; return accept(...) or block(feedback)`,
    );
  const { changes } = decision as Extract<PostDecision, { kind: 'accept' }>;
  const hasValue = changes.value !== undefined;
  const hasContent = changes.content !== undefined;
  if (hasValue && hasContent) throw new TypeError('accept() may replace value or content, not both');
  if (hasValue && draft.isError) throw new TypeError('accept({ value }) cannot give a failed call a value');
  let next = draft;
  if (hasValue) {
    // Validated and rendered by the definition whose body produced the outcome, not by
    // whatever is registered under the name by now.
    const tool = exec.definition ?? deps.resolveTool(exec.name, exec.agent);
    next =
      tool === undefined
        ? errorDraft(ERROR_CODES.UNKNOWN_TOOL, `unknown tool "${exec.name}"`)
        : successDraft(tool, exec, changes.value);
  } else if (hasContent) {
    next = { ...draft, content: checkContent(changes.content, 'accept({ content })'), contentReplaced: true };
  }
  return {
    draft: next,
    contexts: [
      ...exec.deferredContexts,
      ...checkContexts(changes.additionalContexts, 'accept({ additionalContexts })'),
    ],
  };
}

export function finish(
  deps: PipelineDeps,
  exec: ExecutionState,
  draft: Draft,
  contexts: readonly ContextMessage[],
  finalizeContent: Tool['finalizeContent'],
  recordResult: ((result: ToolResult) => Promise<void>) | undefined,
): ToolResult | Promise<ToolResult> {
  let result = materialize(exec, draft, contexts, exec.concluded);
  if (finalizeContent !== undefined) {
    try {
      const content = checkContent(finalizeContent(result.content, result), 'finalizeContent');
      result = materialize(exec, { ...draft, content }, contexts, exec.concluded);
    } catch (error) {
      // finalizeContent must be total; if it throws anyway, the outcome is still materialized.
      result = materialize(exec, pipelineErrorDraft('finalizeContent', error), contexts, false);
    }
  }
  if (draft.contentReplaced === true && !result.isError) markContentReplaced(result);
  exec.finish();
  // Nothing to wait for: the result is final now.
  if (recordResult === undefined && deps.hooks.list('tools/result').length === 0) return result;
  return tellResult(deps, exec, result, recordResult);
}

async function tellResult(
  deps: PipelineDeps,
  exec: ExecutionState,
  result: ToolResult,
  recordResult: ((result: ToolResult) => Promise<void>) | undefined,
): Promise<ToolResult> {
  // Durable before anyone is told: an observer never sees a result the journal lacks.
  if (recordResult !== undefined) await recordResult(result);
  for (const observer of deps.hooks.list('tools/result')) {
    try {
      await observer(result, exec.view);
    } catch {
      // Observers are contained: they cannot change the outcome.
    }
  }
  return result;
}
