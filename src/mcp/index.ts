// `ptc-runtime/mcp`: the runtime as an MCP server, and MCP servers' tools imported
// into the runtime. Kept off the root entry so that it never loads the MCP SDK.
export { createMcpServer } from './create-mcp-server.ts';
export type { McpClientRole, McpServerOptions } from './create-mcp-server.ts';
export { serveMcpStdio, DEFAULT_MAX_REQUEST_BYTES } from './serve-mcp-stdio.ts';
export type { ServeMcpStdioOptions } from './serve-mcp-stdio.ts';
export { serveMcpHttp } from './serve-mcp-http.ts';
export { isLoopbackHost, MIN_TOKEN_LENGTH } from './http-access.ts';
export type { ServeMcpHttpOptions, McpHttpServer } from './serve-mcp-http.ts';
export { DEFAULT_SSE_RESUME_LIMITS } from './sse-resumption.ts';
export type { SseResumeLimits } from './sse-resumption.ts';
export { RUN_LOGGER, MAX_LOG_LEVEL_SCOPES } from './run-log-messages.ts';
export type { LogLevelSlot } from './run-log-messages.ts';
export { DEFAULT_ELICITATION_TIMEOUT_MS } from './elicit-approval.ts';
export type { ClientCapabilitiesSlot } from './elicit-approval.ts';
export { toMcpCallToolResult, MCP_META_ERROR, MCP_META_CONTEXTS } from './to-mcp-call-tool-result.ts';
export { MCP_META_WRAPPED } from './wrapped-value.ts';
export { createHttpCancels } from './http-cancels.ts';
export type { HttpCancels } from './http-cancels.ts';
export { importMcpTools } from './import-mcp-tools.ts';
export type { ImportMcpToolsOptions, McpToolImport } from './import-mcp-tools.ts';
export { connectMcpServer } from './connect-mcp-server.ts';
export type {
  ConnectMcpOptions,
  McpConnection,
  McpServerCommand,
  McpServerSpec,
  McpServerUrl,
  SkippedMcpTool,
} from './connect-mcp-server.ts';
export { defineMcpTool, McpToolError } from './define-mcp-tool.ts';
export type { McpCaller, McpToolOptions } from './define-mcp-tool.ts';
export { DEFAULT_MCP_IMPORT_LIMITS, McpImportLimitError } from './list-mcp-tools.ts';
export { McpMessageTooLargeError } from './bounded-fetch.ts';
export type { McpImportLimits } from './list-mcp-tools.ts';
export { parseCommandLine } from './parse-command-line.ts';
export type { ParsedCommandLine } from './parse-command-line.ts';
export {
  createRunTasks,
  MAX_LIVE_TASKS,
  MAX_QUEUED_PER_TASK,
  TASK_CALL_ID_PREFIX,
  TASK_POLL_INTERVAL_MS,
} from './run-tasks.ts';
export type { RunTasks, TaskOwner, TaskServerContext } from './run-tasks.ts';
