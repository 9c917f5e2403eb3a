// The one presenter of a call and its result, used live and by journal replay, so a
// replay shows exactly what the live UI showed. Tool presenters are pure and
// soft-validated (logged input that no longer fits gives undefined); anything they
// cannot present gets the generic presentation.
import type { Tool } from '../definition/define-tool.ts';
import { deepFreeze, trySnapshotJson, type JsonValue } from '../json/json-value.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import type { AgentRef } from '../registry/tool-registry.ts';

/** A call as the journal records it (a `tool/call` event fits, and so does the execution an observer gets). */
export interface PresentableCall {
  readonly callId: string;
  readonly name: string;
  readonly arguments: JsonValue;
  /** The calling agent's id; null or absent for the global scope. */
  readonly agent?: string | null | undefined;
  /** For a nested call: the callId of the execution that made it. */
  readonly parentCallId?: string | undefined;
}

export interface ExecutionPresentation {
  readonly callId: string;
  readonly name: string;
  /** Only for nested calls: where the call sits in the tree. */
  readonly parentCallId?: string;
  /** `presentCall(args)`, or `{ generic: true, name, arguments }`. */
  readonly call: JsonValue;
  /** `presentResult(args, result)`, or `{ generic: true, isError, content, error? }`. */
  readonly result: JsonValue;
}

/** Where presenters come from: the runtime (`rt.tool`). */
export interface PresenterSource {
  tool(name: string, options?: { readonly agent?: AgentRef }): Tool | undefined;
}

export function presentExecution(
  rt: PresenterSource,
  call: PresentableCall,
  result: ToolResult,
): ExecutionPresentation {
  const tool = lookup(rt, call);
  const presentedCall = attempt(() => tool?.presentCall(call.arguments)) ?? genericCall(call);
  const presentedResult = attempt(() => tool?.presentResult(call.arguments, result)) ?? genericResult(result);
  return deepFreeze({
    callId: call.callId,
    name: call.name,
    ...(typeof call.parentCallId === 'string' ? { parentCallId: call.parentCallId } : {}),
    call: presentedCall,
    result: presentedResult,
  });
}

function lookup(rt: PresenterSource, call: PresentableCall): Tool | undefined {
  try {
    return rt.tool(call.name, call.agent === undefined || call.agent === null ? {} : { agent: call.agent });
  } catch {
    // E.g. the agent does not exist in the replaying runtime.
    return undefined;
  }
}

/** A presenter's output, if it is JSON; a throw or a non-JSON value gives undefined. */
function attempt(present: () => JsonValue | undefined): JsonValue | undefined {
  let out: JsonValue | undefined;
  try {
    out = present();
  } catch {
    return undefined;
  }
  if (out === undefined) return undefined;
  const snap = trySnapshotJson(out, 'presentation');
  return snap.ok ? snap.value : undefined;
}

const genericCall = (call: PresentableCall): JsonValue => ({
  generic: true,
  name: call.name,
  arguments: call.arguments,
});

function genericResult(result: ToolResult): JsonValue {
  const content = result.content.map(
    (b): JsonValue =>
      b.type === 'text' ? { type: 'text', text: b.text } : { type: 'image', mimeType: b.mimeType, data: b.data },
  );
  return result.isError && result.error !== undefined
    ? { generic: true, isError: true, content, error: { code: result.error.code, message: result.error.message } }
    : { generic: true, isError: result.isError, content };
}
