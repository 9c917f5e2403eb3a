// The operator's MCP tools for whole plans (a runtime with `planApproval`), beside ptc_runs
// and ptc_resume and seen only by the operator's client: ptc_plans lists the plans waiting
// for approval (their writes with titles and arguments, and the program) in the
// operator's scope; ptc_decide_plan approves or rejects one as a whole (rt.decidePlan).
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';
import type { RunsScope } from '../runtime/durable-runs.ts';
import { MCP_META_ERROR } from './to-mcp-call-tool-result.ts';

const invalid = (message: string): CallToolResult => ({
  content: [{ type: 'text', text: `INVALID_ARGUMENTS: ${message}` }],
  isError: true,
  _meta: { [MCP_META_ERROR]: { code: 'INVALID_ARGUMENTS', message } },
});

export const PTC_PLANS = 'ptc_plans';
export const PTC_DECIDE_PLAN = 'ptc_decide_plan';

export const PLAN_OPERATOR_TOOLS: readonly McpTool[] = [
  {
    name: PTC_PLANS,
    description:
      "Operator: lists the previewed plans waiting for an operator's approval (servers with plan approval), on any server sharing the journal. Each has planId, description, code, writes ({ seq, name, arguments, title }), reads, createdAt and expiresAt.",
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  },
  {
    name: PTC_DECIDE_PLAN,
    description:
      "Operator: approves or rejects a waiting plan as a whole. 'approve' lets the commit of exactly that plan's token run (once); 'reject' makes the token unusable. The first decision stands.",
    inputSchema: {
      type: 'object',
      properties: {
        planId: { type: 'string', description: 'the plan id (from ptc_plans)' },
        decision: { type: 'string', enum: ['approve', 'reject'] },
      },
      required: ['planId', 'decision'],
      additionalProperties: false,
    },
  },
];

/** Answers a call of one of PLAN_OPERATOR_TOOLS (errors thrown, as the runtime's); undefined for another name. */
export async function callPlanOperatorTool(
  rt: ToolRuntime,
  name: string,
  args: Readonly<Record<string, unknown>>,
  scope: RunsScope,
): Promise<CallToolResult | undefined> {
  if (name === PTC_PLANS) {
    const plans = await rt.plans(scope);
    return {
      content: [{ type: 'text', text: JSON.stringify(plans) }],
      structuredContent: { plans: plans as unknown as Record<string, unknown>[] },
    };
  }
  if (name !== PTC_DECIDE_PLAN) return undefined;
  const { planId, decision } = args;
  if (typeof planId !== 'string' || planId === '') return invalid('planId must be a non-empty string');
  if (decision !== 'approve' && decision !== 'reject')
    return invalid(`decision must be 'approve' or 'reject', got ${JSON.stringify(decision)}`);
  const decided = await rt.decidePlan(planId, decision, scope);
  return {
    content: [
      { type: 'text', text: `plan ${decided.planId}: ${decided.decision === 'approve' ? 'approved' : 'rejected'}` },
    ],
    structuredContent: { ...decided },
  };
}
