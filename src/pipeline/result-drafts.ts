// Building, normalizing and materializing results. A "draft" is an outcome on its
// way through the pipeline; `materialize` turns it into the frozen ToolResult.
import type { Tool } from '../definition/define-tool.ts';
import { ERROR_CODES } from '../errors/error-codes.ts';
import { summarizeIssues } from '../errors/summarize-issues.ts';
import { snapshotJson, trySnapshotJson, type JsonValue } from '../json/json-value.ts';
import { checkContent, textContent } from './content.ts';
import type { ExecutionState } from './execution-state.ts';
import { describeThrown } from './thrown.ts';
import type { ContentBlock, ContextMessage, ToolErrorInfo, ToolResult } from './tool-result.ts';

export interface Draft {
  readonly isError: boolean;
  readonly value?: JsonValue;
  readonly content: readonly ContentBlock[];
  readonly error?: ToolErrorInfo;
  readonly presentationMeta?: JsonValue;
  /** post-execute replaced the content and kept the value (see content-replaced.ts). */
  readonly contentReplaced?: true;
}

/** Messages with a fixed text (documented in docs/error-codes.md). */
const FIXED_MESSAGES: Partial<Record<string, string>> = {
  ABORTED: 'tool call aborted',
  ABORTED_BEFORE_DISPATCH: 'tool call aborted before dispatch',
};

export function errorDraft(code: string, message?: string, info?: { readonly [key: string]: JsonValue }): Draft {
  const text = message ?? FIXED_MESSAGES[code] ?? code;
  const error: ToolErrorInfo =
    info === undefined
      ? { code, message: text }
      : { code, message: text, info: snapshotJson(info) as ToolErrorInfo['info'] & object };
  return { isError: true, content: textContent(`Error: ${text}`), error: Object.freeze(error) };
}

export function pipelineErrorDraft(stage: string, thrown: unknown): Draft {
  const { message } = describeThrown(thrown);
  return errorDraft(ERROR_CODES.PIPELINE_ERROR, `${stage} failed: ${message}`, { stage });
}

/** A body (or wrapper, or post-execute replacement) produced `raw`: snapshot, validate, freeze, render. */
export function successDraft(tool: Tool, exec: ExecutionState, raw: unknown): Draft {
  const snap = trySnapshotJson(raw, 'value');
  if (!snap.ok)
    return errorDraft(
      ERROR_CODES.INVALID_TOOL_OUTPUT,
      `tool "${tool.name}" returned a value that is not JSON: ${snap.error.message}`,
    );
  const issues = tool.outputIssues(snap.value);
  if (issues.length > 0) {
    const summary = summarizeIssues(issues);
    return errorDraft(
      ERROR_CODES.INVALID_TOOL_OUTPUT,
      `tool "${tool.name}" returned a value that does not match its output schema: ${summary}`,
    );
  }
  let content: readonly ContentBlock[];
  try {
    content = checkContent(tool.render(exec.arguments, snap.value), `output.render of "${tool.name}"`);
  } catch (error) {
    return errorDraft(
      ERROR_CODES.INVALID_TOOL_OUTPUT,
      `tool "${tool.name}" could not render its value: ${describeThrown(error).message}`,
    );
  }
  let presentationMeta: JsonValue | undefined;
  if (exec.parent === undefined && tool.presentationMeta !== undefined) {
    try {
      presentationMeta = snapshotJson(tool.presentationMeta(exec.arguments, snap.value), 'presentationMeta');
    } catch {
      presentationMeta = undefined; // UI-only: a broken presenter never fails the call
    }
  }
  return presentationMeta === undefined
    ? { isError: false, value: snap.value, content }
    : { isError: false, value: snap.value, content, presentationMeta };
}

/**
 * A failure thrown by the body: keep the tool's own string code, else TOOL_ERROR. When the
 * signal aborted and the body threw the abort itself (its reason, or an AbortError such as
 * Node's `ABORT_ERR` from timers/promises), the outcome is ABORTED, not that error's code.
 */
export function thrownDraft(thrown: unknown, aborted: boolean, reason?: unknown): Draft {
  if (aborted && (thrown === reason || isAbortError(thrown))) return errorDraft(ERROR_CODES.ABORTED);
  const { message, code, info } = describeThrown(thrown);
  if (code !== undefined) return errorDraft(code, message, info);
  if (aborted) return errorDraft(ERROR_CODES.ABORTED);
  return errorDraft(ERROR_CODES.TOOL_ERROR, message);
}

function isAbortError(thrown: unknown): boolean {
  try {
    return typeof thrown === 'object' && thrown !== null && (thrown as { name?: unknown }).name === 'AbortError';
  } catch {
    return false;
  }
}

/** A wrapper returned something other than this execution's canonical result. */
export function normalizeForeignResult(tool: Tool | undefined, exec: ExecutionState, result: unknown): Draft {
  if (typeof result !== 'object' || result === null) {
    throw new TypeError(
      `a tools/execute wrapper must return a result object (got ${result === null ? 'null' : typeof result})`,
    );
  }
  const r = result as Record<string, unknown>;
  if (r.isError === true) {
    const error = (r.error ?? {}) as Record<string, unknown>;
    const code = typeof error.code === 'string' && error.code.length > 0 ? error.code : ERROR_CODES.TOOL_ERROR;
    const message = typeof error.message === 'string' ? error.message : code;
    const info = error.info === undefined ? undefined : trySnapshotJson(error.info);
    return errorDraft(
      code,
      message,
      info?.ok === true && typeof info.value === 'object' && info.value !== null && !Array.isArray(info.value)
        ? (info.value as { [k: string]: JsonValue })
        : undefined,
    );
  }
  if (tool === undefined) return errorDraft(ERROR_CODES.UNKNOWN_TOOL, `unknown tool "${exec.name}"`);
  // A self-authored "success" is re-validated and re-rendered by the tool's output contract.
  return successDraft(tool, exec, r.value);
}

export function materialize(
  exec: ExecutionState,
  draft: Draft,
  contexts: readonly ContextMessage[],
  concluded: boolean,
): ToolResult {
  // Built by assignment in this key order (no temporary object spread per optional field).
  const base: { -readonly [K in keyof ToolResult]: ToolResult[K] } = {
    callId: exec.callId,
    name: exec.name,
    isError: draft.isError,
  } as ToolResult;
  if (!draft.isError) base.value = draft.value as JsonValue;
  base.content = draft.content;
  if (draft.isError && draft.error !== undefined) base.error = draft.error;
  if (contexts.length > 0) base.additionalContexts = Object.freeze([...contexts]);
  if (!draft.isError && concluded) base.concludesTurn = true;
  if (!draft.isError && draft.presentationMeta !== undefined) base.presentationMeta = draft.presentationMeta;
  // Every part is already a frozen copy (content, each context, error; the validated value keeps its
  // identity); the contexts list is copied and frozen here, so the result is frozen all the way down.
  return Object.freeze(base) as ToolResult;
}
