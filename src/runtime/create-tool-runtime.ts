// The public face: one runtime object composing the registry, the hooks, the
// execution pipeline and (in later layers) the scheduler and PTC modes.
import type { Tool } from '../definition/define-tool.ts';
import type { JsonSchema } from '../definition/compile-schema.ts';
import { executeTool, type ApprovalService, type ExecuteRequest, type PipelineDeps } from '../pipeline/execute-tool.ts';
import { Hooks, type HookMap, type HookName } from '../pipeline/hooks.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import { ToolRegistry, type Agent, type AgentRef, type Dispose, type Guard, type Restriction } from '../registry/tool-registry.ts';

/** What a model provider receives for one tool: never callbacks, timeouts or renderers. */
export interface ToolSchemaProjection {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly deferLoading?: true;
}

export interface ToolRuntimeOptions {
  /** The approval seam for `ask()` decisions. Without it, `ask` is refused (never auto-approved). */
  readonly approval?: ApprovalService;
}

export interface ToolRuntime {
  register(tool: Tool, options?: { readonly agent?: AgentRef }): Dispose;
  createAgent(id: string, options?: { readonly parent?: AgentRef }): Agent;
  restrict(agent: AgentRef, restriction: Restriction): Dispose;
  guard(guard: Guard, options?: { readonly agent?: AgentRef }): Dispose;
  on<K extends HookName>(name: K, handler: HookMap[K]): Dispose;
  schemas(options?: { readonly agent?: AgentRef }): ToolSchemaProjection[];
  /** The tool a name resolves to for the agent (after scope and restrictions), if visible. */
  tool(name: string, options?: { readonly agent?: AgentRef }): Tool | undefined;
  execute(request: ExecuteRequest): Promise<ToolResult>;
}

export function projectSchema(tool: Tool): ToolSchemaProjection {
  return Object.freeze({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    ...(tool.deferLoading ? { deferLoading: true as const } : {}),
  });
}

export function createToolRuntime(options: ToolRuntimeOptions = {}): ToolRuntime {
  const registry = new ToolRegistry();
  const hooks = new Hooks();
  const deps: PipelineDeps = {
    registry,
    hooks,
    approval: options.approval,
    resolveTool: (name, agent) => registry.resolve(name, agent),
    directCallRefusal: () => undefined,
  };
  return {
    register: (tool, o) => registry.register(tool, o),
    createAgent: (id, o) => registry.createAgent(id, o),
    restrict: (agent, r) => registry.restrict(agent, r),
    guard: (g, o) => registry.guard(g, o),
    on: (name, handler) => hooks.on(name, handler),
    schemas: (o = {}) => registry.visible(registry.agentId(o.agent)).map(projectSchema),
    tool: (name, o = {}) => deps.resolveTool(name, registry.agentId(o.agent)),
    execute: (request) => executeTool(deps, request),
  };
}
