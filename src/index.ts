// Public entry of ptc-runtime. Curated, explicit exports.
export { defineTool, defineJsonSchemaTool } from './definition/define-tool.ts';
export type { Tool, ToolSpec, ToolSpecBase } from './definition/define-tool.ts';
export type {
  SchemaNode, PropertyMap, InferArgs, InferNode, JsonValueType, MaxInferenceDepth,
  StringNode, NumberNode, BooleanNode, NullNode, ArrayNode, ObjectNode, JsonNode, UnionNode,
} from './definition/schema-node.ts';
export { MAX_SCHEMA_DEPTH, SUPPORTED_KEYWORDS } from './definition/compile-schema.ts';
export type { JsonSchema } from './definition/compile-schema.ts';
export { createToolRuntime } from './runtime/create-tool-runtime.ts';
export type { ToolRuntime, ToolRuntimeOptions, ToolSchemaProjection } from './runtime/create-tool-runtime.ts';
export { allow, deny, cancel, ask, accept, block } from './pipeline/decisions.ts';
export type { PreDecision, PostDecision, AcceptChanges, ApprovalRequestInput } from './pipeline/decisions.ts';
export type { ApprovalService, ApprovalRequest, ApprovalAnswer, ExecuteRequest, ExecutionGates } from './pipeline/execute-tool.ts';
export type { ToolExecution } from './pipeline/tool-execution.ts';
export type { ToolResult, ContentBlock, TextBlock, ImageBlock, ContextMessage, ToolErrorInfo } from './pipeline/tool-result.ts';
export type { HookName, HookMap, PreExecuteHandler, ExecuteHandler, PostExecuteHandler, ResultObserver } from './pipeline/hooks.ts';
export type { Agent, AgentRef, Restriction, Guard, GuardVerdict, Dispose } from './registry/tool-registry.ts';
export { RUN_CODE } from './registry/tool-registry.ts';
export { ERROR_CODES } from './errors/error-codes.ts';
export type { ErrorCode } from './errors/error-codes.ts';
export { ToolRuntimeError } from './errors/tool-runtime-error.ts';
export { ToolArgsError } from './errors/tool-args-error.ts';
export type { ArgIssue } from './errors/tool-args-error.ts';
export { DefinitionError } from './errors/definition-error.ts';
export { snapshotJson, deepFreeze, NotJsonError } from './json/json-value.ts';
export type { JsonValue } from './json/json-value.ts';
