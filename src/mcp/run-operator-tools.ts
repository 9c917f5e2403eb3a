// The operator's MCP tools for durable runs, answered by the server itself (not
// registered in the runtime, so a program cannot call them). Only a client in the
// operator role sees them (over HTTP: the operator token), never the model's client.
// ptc_runs: the paused and interrupted runs of the journal (any host of it) in the
// operator's scope; ptc_resume: decisions for a run's pending calls → the run's next
// result (rt.resume, same scope: another agent's run is UNKNOWN_RUN). The plan tools
// (plan-operator-tools.ts) are listed and answered with them.
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { ToolRuntimeError } from '../errors/tool-runtime-error.ts';
import type { RunDecision } from '../journal/run-journal-events.ts';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';
import type { RunsScope } from '../runtime/durable-runs.ts';
import { MCP_META_ERROR, toMcpCallToolResult } from './to-mcp-call-tool-result.ts';
import { callPlanOperatorTool, PLAN_OPERATOR_TOOLS } from './plan-operator-tools.ts';

export const PTC_RUNS = 'ptc_runs';
export const PTC_RESUME = 'ptc_resume';

export const RUN_OPERATOR_TOOLS: readonly McpTool[] = [
  {
    name: PTC_RUNS,
    description:
      "Operator: lists the durable runs of this server's journal that are paused (awaiting approval decisions) or interrupted (their host died mid-run), on any server sharing the journal. Each has runId, status, callId, description, times and pending calls ({ callId, name, arguments, title }).",
    inputSchema: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['paused', 'interrupted'], description: 'only runs in this status' },
      },
      additionalProperties: false,
    },
  },
  {
    name: PTC_RESUME,
    description:
      "Operator: continues a paused or interrupted run (from any server sharing the journal) with a decision for each pending call ('approve' runs it, 'deny' makes it fail with DENIED in the program); returns the run's next result: final, or paused again.",
    inputSchema: {
      type: 'object',
      properties: {
        runId: { type: 'string', description: 'the run id (from a paused result or ptc_runs)' },
        decisions: {
          type: 'object',
          additionalProperties: { type: 'string', enum: ['approve', 'deny'] },
          description: "pending callId → 'approve' | 'deny' (empty for an interrupted run)",
        },
      },
      required: ['runId'],
      additionalProperties: false,
    },
  },
  ...PLAN_OPERATOR_TOOLS,
];

/** An isError result carrying the code in `_meta` (as the runtime's errors do). */
export function operatorFailure(code: string, message: string): CallToolResult {
  return {
    content: [{ type: 'text', text: `${code}: ${message}` }],
    isError: true,
    _meta: { [MCP_META_ERROR]: { code, message } },
  };
}

/** Answers a call of one of RUN_OPERATOR_TOOLS; undefined when `name` is not one of them. */
export async function callRunOperatorTool(
  rt: ToolRuntime,
  name: string,
  args: Readonly<Record<string, unknown>>,
  scope: RunsScope,
): Promise<CallToolResult | undefined> {
  try {
    if (name !== PTC_RUNS && name !== PTC_RESUME) return await callPlanOperatorTool(rt, name, args, scope);
    if (name === PTC_RUNS) {
      const status = args.status;
      if (status !== undefined && status !== 'paused' && status !== 'interrupted')
        return operatorFailure(
          'INVALID_ARGUMENTS',
          `status must be 'paused' or 'interrupted', got ${JSON.stringify(status)}`,
        );
      const runs = await rt.runs(status === undefined ? scope : { ...scope, status });
      return {
        content: [{ type: 'text', text: JSON.stringify(runs) }],
        structuredContent: { runs: runs as unknown as Record<string, unknown>[] },
      };
    }
    const { runId, decisions } = args;
    if (typeof runId !== 'string' || runId === '')
      return operatorFailure('INVALID_ARGUMENTS', 'runId must be a non-empty string');
    const result = await rt.resume(runId, (decisions ?? {}) as Readonly<Record<string, RunDecision>>, scope);
    return toMcpCallToolResult(result);
  } catch (error) {
    if (error instanceof ToolRuntimeError) return operatorFailure(error.code, error.message);
    throw error;
  }
}
