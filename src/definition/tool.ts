// What a compiled tool definition is, apart from how one is made (define-tool.ts): the
// shape the registry, the pipeline and the checked-body table read.
import type { ArgIssue } from '../errors/arg-issue.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { ToolCallerKind } from '../pipeline/tool-caller.ts';
import type { ToolExecution } from '../pipeline/tool-execution.ts';
import type { ContentBlock, ToolResult } from '../pipeline/tool-result.ts';
import type { JsonSchema } from './compile-schema.ts';
import type { ToolEffectFields } from './tool-effect.ts';

/** A compiled tool definition, ready to register. Frozen. */
export interface Tool extends ToolEffectFields {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments (implicit open object root). */
  readonly parameters: JsonSchema;
  readonly outputSchema: JsonSchema;
  readonly deferLoading: boolean;
  /** Hosted mode: who may call it (see ToolSpecBase.callers); undefined means `['program']`. */
  readonly callers?: readonly ToolCallerKind[];
  /** What an outside schema lost at definition (typed loosely, or not validated here); empty for the DSL. */
  readonly schemaWarnings?: readonly string[];
  readonly timeoutMs: number | undefined;
  /** Validates, then calls the author's body. Throws ToolArgsError (INVALID_ARGS) first if invalid. */
  invoke(args: JsonValue, exec: ToolExecution): Promise<unknown>;
  argIssues(args: JsonValue): ArgIssue[];
  outputIssues(value: JsonValue): ArgIssue[];
  render(args: JsonValue, value: JsonValue): ContentBlock[];
  /** Soft: invalid args or a throwing callback give `false` (exclusive). */
  isConcurrencySafe(args: JsonValue): boolean;
  /** The definition's `resourceKey`, when it has one (called with validated arguments). */
  readonly resourceKey?: (args: JsonValue) => string;
  readonly projectContent:
    | ((args: JsonValue, value: JsonValue, content: readonly ContentBlock[]) => ContentBlock[])
    | undefined;
  readonly finalizeContent: ((content: readonly ContentBlock[], result: ToolResult) => ContentBlock[]) | undefined;
  readonly presentationMeta: ((args: JsonValue, value: JsonValue) => JsonValue) | undefined;
  /** Soft: `undefined` when the logged args no longer fit, or there is no presenter. */
  presentCall(args: JsonValue): JsonValue | undefined;
  presentResult(args: JsonValue, result: ToolResult): JsonValue | undefined;
}
