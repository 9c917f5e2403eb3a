// A tool's body for arguments the pipeline has already checked against the same
// definition: `Tool.invoke` validates again (anyone may call it) and is async, so even a
// body that answers synchronously costs a promise and a microtask turn. The pipeline
// calls this instead when a definition has one; its result is the body's own (a value, a
// promise or a throw), not wrapped. Kept beside the definitions, not on them, so a Tool
// object looks as before.
import type { JsonValue } from '../json/json-value.ts';
import type { ToolExecution } from '../pipeline/tool-execution.ts';
import type { Tool } from './tool.ts';

export type CheckedBody = (args: JsonValue, exec: ToolExecution) => unknown;

const bodies = new WeakMap<Tool, CheckedBody>();

/** Only for definitions whose `invoke` is exactly "validate, then call `body`". */
export function setCheckedBody(tool: Tool, body: CheckedBody): void {
  bodies.set(tool, body);
}

/** The body to call with arguments that `tool.argIssues` accepted; undefined: use `invoke`. */
export function checkedBody(tool: Tool): CheckedBody | undefined {
  return bodies.get(tool);
}
