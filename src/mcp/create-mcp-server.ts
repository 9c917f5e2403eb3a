// The runtime as an MCP server: tools/list shows what `rt.schemas()` shows for the
// mode in force (ptc: run_code only, the SDK in its description; both: everything),
// and tools/call runs the whole pipeline through `rt.execute`.
// Built on the SDK's low-level request handlers because our schemas are raw JSON
// Schema, not zod (the high-level registerTool takes zod shapes).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  ErrorCode,
  McpError,
  ListToolsRequestSchema,
  SetLevelRequestSchema,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { PTC_ONLY_INSTRUCTION } from '../ptc/ptc-prompt.ts';
import type { AgentRef } from '../registry/tool-registry.ts';
import { RUN_CODE } from '../registry/tool-registry.ts';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';
import type { RunsScope } from '../runtime/durable-runs.ts';
import type { HttpCancels } from './http-cancels.ts';
import { checkProgressToken, requestCallId } from './request-bounds.ts';
import { streamRunProgress } from './run-progress.ts';
import { callRunOperatorTool, operatorFailure, RUN_OPERATOR_TOOLS } from './run-operator-tools.ts';
import { ownLogLevel, streamRunLogMessages, type LogLevelSlot } from './run-log-messages.ts';
import {
  askApproval,
  asksByForm,
  type ClientCapabilitiesSlot,
  DEFAULT_ELICITATION_TIMEOUT_MS,
  interceptTransport,
  ownClientCapabilities,
  resumeWhileDecided,
} from './elicit-approval.ts';
import { createRunTasks, type RunTasks, type TaskServerContext } from './run-tasks.ts';
import { toMcpCallToolResult } from './to-mcp-call-tool-result.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import { listedAsWrapped, MCP_META_WRAPPED, needsWrapping, wrappedSchema } from './wrapped-value.ts';

export interface McpServerOptions {
  /** The agent whose view (mode, visible tools, policy) the server exposes. @default the global scope */
  readonly agent?: AgentRef;
  /** Server name in the MCP handshake. @default 'ptc-runtime' */
  readonly name?: string;
  /** Server version in the MCP handshake. @default '0.1.0' */
  readonly version?: string;
  /** A call's callId is this prefix plus the JSON-RPC request id; make it unique per connection when many share a runtime. @default 'mcp-' */
  readonly callIdPrefix?: string;
  /** Over HTTP: the calls in flight of every connection, and this connection's cancel scope (see http-cancels.ts). */
  readonly cancels?: { readonly registry: HttpCancels; readonly session: string };
  /**
   * Who the client is. `model`: the runtime's tools (run_code…); `operator`: only the
   * operator tools ptc_runs and ptc_resume, which answer for durable runs (a human's
   * role: the one who approves must not be the one who asked); `model+operator`: both,
   * for a client trusted with both roles. @default 'model'
   */
  readonly role?: McpClientRole;
  /** The operator's view of runs: only runs in this scope are listed and resumable. @default the served agent's runs (all runs without `agent`) */
  readonly operatorScope?: RunsScope;
  /** Where the level a client sets with `logging/setLevel` is kept. @default one per server (its connection) */
  readonly logLevel?: LogLevelSlot;
  /** Where the capabilities a client declared at initialize are kept. @default one per server (its connection) */
  readonly clientCapabilities?: ClientCapabilitiesSlot;
  /**
   * How long a paused run waits for the answer of a client that declared elicitation
   * (it is asked to approve or deny the pending calls in the same request); no answer
   * by then and the run stays paused. @default 300000
   */
  readonly elicitationTimeoutMs?: number;
  /**
   * Who the client acts for: its calls run with this principal (`rt.execute({ principal })`),
   * and it sees only this principal's durable runs as tasks. @default none
   */
  readonly principal?: string;
  /**
   * run_code as an MCP task (task-augmented tools/call, tasks/get, tasks/result,
   * tasks/list, tasks/cancel); pass one RunTasks to every server of a runtime in this
   * process (as `serveMcpHttp` does), or `false` to offer no tasks. @default one of its own
   */
  readonly tasks?: RunTasks | false;
}

/** The roles an MCP client can hold (see McpServerOptions.role). */
export type McpClientRole = 'model' | 'operator' | 'model+operator';

const ROLES: readonly McpClientRole[] = ['model', 'operator', 'model+operator'];

/** Calls still running per server, so a closing transport can let them answer first. */
const inFlight = new WeakMap<McpServer, Set<Promise<unknown>>>();

/** Resolves when every call the server has started is settled. */
export async function settleCalls(server: McpServer): Promise<void> {
  const calls = inFlight.get(server);
  while (calls !== undefined && calls.size > 0) await Promise.allSettled([...calls]);
  // The SDK sends a handler's response a few microtasks later: let it go out.
  await new Promise((resolve) => setImmediate(resolve));
}

export function createMcpServer(rt: ToolRuntime, options: McpServerOptions = {}): McpServer {
  const scope = options.agent === undefined ? {} : { agent: options.agent };
  const role = options.role ?? 'model';
  if (!ROLES.includes(role))
    throw new TypeError(`createMcpServer: role must be one of ${ROLES.join(', ')}, got ${JSON.stringify(role)}`);
  const model = role !== 'operator';
  const operator = role !== 'model';
  const servedAgent =
    options.agent === undefined ? undefined : typeof options.agent === 'string' ? options.agent : options.agent.id;
  const operatorScope: RunsScope = options.operatorScope ?? (servedAgent === undefined ? {} : { agent: servedAgent });
  // In ptc mode the client is told that only run_code is callable directly (run_code's
  // description says it too when the SDK is embedded there, the default).
  const instruction = model && rt.mode(scope) === 'ptc' ? PTC_ONLY_INSTRUCTION : undefined;
  const capabilities = options.clientCapabilities ?? ownClientCapabilities();
  const elicitationTimeoutMs = options.elicitationTimeoutMs ?? DEFAULT_ELICITATION_TIMEOUT_MS;
  if (!Number.isSafeInteger(elicitationTimeoutMs) || elicitationTimeoutMs < 1)
    throw new TypeError(
      `createMcpServer: elicitationTimeoutMs must be a positive integer, got ${String(elicitationTimeoutMs)}`,
    );
  // Tasks for run_code: a model's client, and a mode where run_code exists.
  const tasks =
    options.tasks === false || !model || rt.tool(RUN_CODE, scope) === undefined
      ? undefined
      : (options.tasks ?? createRunTasks(rt));
  const owner = { agent: servedAgent, principal: options.principal };
  const taskContext: TaskServerContext = {
    owner,
    capabilities,
    elicitationTimeoutMs,
    toResult: (result: ToolResult) =>
      toMcpCallToolResult(
        result,
        listedAsWrapped(rt.tool(RUN_CODE, scope)?.outputSchema) || needsWrapping(result.value),
      ),
  };
  const taskParts = tasks?.forServer(taskContext);
  const server = new McpServer(
    { name: options.name ?? 'ptc-runtime', version: options.version ?? '0.1.0' },
    {
      ...(instruction === undefined ? {} : { instructions: instruction }),
      // The SDK answers tasks/get, tasks/result, tasks/list and tasks/cancel from these (run-tasks.ts).
      ...(taskParts === undefined ? {} : { taskStore: taskParts.store, taskMessageQueue: taskParts.queue }),
    },
  );
  // Declared here rather than in the options, where McpServer would install its own zod
  // tool handlers. No listChanged: tools/list reads the runtime at each request.
  server.server.registerCapabilities({
    tools: {},
    logging: {},
    ...(tasks === undefined ? {} : { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }),
  });
  const logLevel = options.logLevel ?? ownLogLevel();
  server.server.setRequestHandler(SetLevelRequestSchema, (request) => {
    logLevel.set(request.params.level);
    return {};
  });

  server.server.setRequestHandler(ListToolsRequestSchema, () => {
    if (!model) return { tools: [...RUN_OPERATOR_TOOLS] };
    // An MCP client sees tool descriptions only, so with embedSdkInDescription: false
    // the SDK the prompt carries goes into run_code's description here.
    const sdk = rt.prompt(scope).find((s) => s.id === 'ptc-sdk')?.text;
    const tools = rt.schemas(scope).map((projection): McpTool => {
      const outputSchema = rt.tool(projection.name, scope)?.outputSchema;
      return {
        name: projection.name,
        ...(tasks !== undefined && projection.name === RUN_CODE ? { execution: { taskSupport: 'optional' } } : {}),
        description:
          projection.name === RUN_CODE && sdk !== undefined
            ? `${projection.description}\n\n${sdk}`
            : projection.description,
        inputSchema: projection.parameters as McpTool['inputSchema'],
        // MCP output schemas describe structuredContent, which must be an object: another value travels wrapped.
        ...(outputSchema === undefined
          ? {}
          : !listedAsWrapped(outputSchema)
            ? { outputSchema: outputSchema as McpTool['outputSchema'] & object }
            : {
                outputSchema: wrappedSchema(outputSchema) as McpTool['outputSchema'] & object,
                _meta: { [MCP_META_WRAPPED]: true },
              }),
      };
    });
    return { tools: operator ? [...tools, ...RUN_OPERATOR_TOOLS] : tools };
  });

  const calls = new Set<Promise<unknown>>();
  inFlight.set(server, calls);
  const callIdPrefix = options.callIdPrefix ?? 'mcp-';
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (operator) {
      const answer = callRunOperatorTool(rt, request.params.name, request.params.arguments ?? {}, operatorScope);
      calls.add(answer);
      try {
        const operated = await answer;
        if (operated !== undefined) return operated;
      } finally {
        calls.delete(answer);
      }
      if (!model)
        return operatorFailure(
          'UNKNOWN_TOOL',
          `unknown tool ${JSON.stringify(request.params.name)}: an operator's client has ${RUN_OPERATOR_TOOLS.map((t) => t.name).join(', ')} only`,
        );
    }
    if (request.params.task !== undefined) {
      if (tasks === undefined || request.params.name !== RUN_CODE)
        throw new McpError(
          ErrorCode.InvalidParams,
          `only ${RUN_CODE} runs as a task on this server; call ${JSON.stringify(request.params.name)} without task augmentation`,
        );
      return { task: tasks.start(taskContext, request.params.arguments ?? {}) };
    }
    const callId = requestCallId(callIdPrefix, extra.requestId);
    // Live progress (log lines, call counts) for a client that asked for it.
    const token = request.params._meta?.progressToken;
    if (token !== undefined) checkProgressToken(token);
    const progress =
      token === undefined ? undefined : streamRunProgress(rt, callId, token, (n) => extra.sendNotification(n));
    const level = logLevel.get();
    const logs =
      level === undefined ? undefined : streamRunLogMessages(rt, callId, level, (n) => extra.sendNotification(n));
    const tracked = options.cancels?.registry.track(options.cancels.session, extra.requestId);
    const call = rt.execute({
      callId,
      name: request.params.name,
      arguments: request.params.arguments ?? {},
      signal: tracked === undefined ? extra.signal : AbortSignal.any([extra.signal, tracked.signal]),
      ...scope,
      ...(options.principal === undefined ? {} : { principal: options.principal }),
    });
    calls.add(call);
    try {
      const first = await call;
      // A paused run is put to a client that can answer a form, in this same request.
      const transport = server.server.transport;
      const result =
        transport === undefined || !asksByForm(capabilities.get())
          ? first
          : await resumeWhileDecided(
              rt,
              first,
              (paused) =>
                askApproval((question) => transport.send(question, { relatedRequestId: extra.requestId }), paused, {
                  scope: options.cancels?.session,
                  timeoutMs: elicitationTimeoutMs,
                  signal: extra.signal,
                }),
              {
                ...(servedAgent === undefined ? {} : { agent: servedAgent }),
                ...(options.principal === undefined ? {} : { principal: options.principal }),
              },
            );
      // Wrapped as the listing promised (an object under an any-JSON schema too).
      const listed = rt.tool(request.params.name, scope)?.outputSchema;
      return toMcpCallToolResult(result, listedAsWrapped(listed) || needsWrapping(result.value));
    } finally {
      // The answer follows the progress it sent, in a read of its own (see PROGRESS_SETTLE_MS).
      await logs?.stop();
      await progress?.stop();
      calls.delete(call);
      tracked?.done();
    }
  });
  const cancels = options.cancels;
  if (cancels !== undefined) {
    // The request may have been made through another POST (another server): look it up by scope and id.
    server.server.setNotificationHandler(CancelledNotificationSchema, (notification) => {
      const { requestId, reason } = notification.params;
      if (requestId !== undefined)
        cancels.registry.cancel(cancels.session, requestId, new Error(reason ?? 'cancelled by the client'));
    });
  }
  // Answers to our questions, and the capabilities of an initialize, are read first (elicit-approval.ts).
  const connect = server.connect.bind(server);
  server.connect = async (transport) => {
    await connect(transport);
    interceptTransport(transport, options.cancels?.session, capabilities);
  };
  return server;
}
