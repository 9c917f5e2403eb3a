// Global and agent-scoped layers of tools, restrictions that mask the visible view,
// and monotonic guards. Lookups are by own key only (Map), so a tool named
// `toString` or `__proto__` is an ordinary name.
import type { Tool } from '../definition/define-tool.ts';
import { DefinitionError } from '../errors/definition-error.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { ToolExecution } from '../pipeline/tool-execution.ts';
import { DESCRIBE_TOOL, RUN_CODE, SEARCH_TOOL } from './reserved-names.ts';

export { RUN_CODE, DESCRIBE_TOOL, SEARCH_TOOL } from './reserved-names.ts';
const BUILTIN_NAMES: ReadonlySet<string> = new Set([DESCRIBE_TOOL, SEARCH_TOOL]);

export interface Agent {
  readonly id: string;
  readonly parent: string | undefined;
}
export type AgentRef = Agent | string;

export interface Restriction {
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
}

export type GuardVerdict = undefined | { readonly deny: string; readonly info?: { readonly [key: string]: JsonValue } };
export type Guard = (exec: ToolExecution) => GuardVerdict | Promise<GuardVerdict>;

interface AgentScope {
  readonly agent: Agent;
  readonly tools: Map<string, Tool>;
  readonly restrictions: Set<Restriction>;
}

export type Dispose = () => void;

const invalid = (message: string, details?: Record<string, unknown>): DefinitionError =>
  new DefinitionError('INVALID_DEFINITION', message, details);

/** Registration checks, for tools not built (or built and then altered) outside defineTool. */
function checkRegistrable(tool: Tool): void {
  const label = `register(${JSON.stringify(tool.name)})`;
  if (typeof tool.name !== 'string' || tool.name.length === 0)
    throw invalid('register: the tool has no name; define it with defineTool()');
  if (
    typeof tool.outputSchema !== 'object' ||
    tool.outputSchema === null ||
    typeof tool.outputIssues !== 'function' ||
    typeof tool.render !== 'function'
  ) {
    throw invalid(
      `${label}: the tool has no output contract (output.schema and output.render); define it with defineTool()`,
    );
  }
  const { timeoutMs } = tool;
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0)) {
    throw invalid(`${label}: timeoutMs must be a positive finite number of milliseconds, got ${String(timeoutMs)}`);
  }
}

export class ToolRegistry {
  readonly #global = new Map<string, Tool>();
  readonly #agents = new Map<string, AgentScope>();
  readonly #guards = new Set<{ readonly guard: Guard; readonly agent: string | undefined }>();
  readonly #listeners = new Set<() => void>();
  #version = 0;

  /** Increments on every change of tools, agents or restrictions (for caches such as the SDK). */
  get version(): number {
    return this.#version;
  }

  /** Called after every change; returns an unsubscribe function. */
  onChange(listener: () => void): Dispose {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(): void {
    this.#version += 1;
    for (const l of this.#listeners) l();
  }

  createAgent(id: string, options: { readonly parent?: AgentRef } = {}): Agent {
    if (typeof id !== 'string' || id.length === 0) throw invalid('createAgent: id must be a non-empty string');
    if (this.#agents.has(id)) throw invalid(`createAgent: agent "${id}" already exists`);
    const parent = options.parent === undefined ? undefined : this.agentId(options.parent);
    const agent: Agent = Object.freeze({ id, parent });
    this.#agents.set(id, { agent, tools: new Map(), restrictions: new Set() });
    this.#changed();
    return agent;
  }

  /** Resolves an agent reference to its id, or throws with a hint. */
  agentId(ref: AgentRef | undefined): string | undefined {
    if (ref === undefined) return undefined;
    const id = typeof ref === 'string' ? ref : ref?.id;
    if (typeof id !== 'string' || !this.#agents.has(id)) {
      throw invalid(`unknown agent ${JSON.stringify(id)}: create it first with rt.createAgent(id)`);
    }
    return id;
  }

  /** The agent and its ancestors, nearest first. */
  chain(agentId: string | undefined): string[] {
    const ids: string[] = [];
    for (let id = agentId; id !== undefined; id = this.#agents.get(id)?.agent.parent) ids.push(id);
    return ids;
  }

  register(tool: Tool, options: { readonly agent?: AgentRef } = {}): Dispose {
    if (typeof tool !== 'object' || tool === null || typeof tool.invoke !== 'function') {
      throw invalid('register: expected a tool made by defineTool()');
    }
    checkRegistrable(tool);
    if (tool.name === RUN_CODE)
      throw invalid(
        `register: "${RUN_CODE}" is reserved for programmatic tool calling in every mode; choose another name`,
      );
    if (BUILTIN_NAMES.has(tool.name))
      throw invalid(
        `register: "${tool.name}" is reserved for a built-in function of run_code programs; choose another name`,
      );
    const agentId = this.agentId(options.agent);
    const layer = agentId === undefined ? this.#global : this.#agents.get(agentId)!.tools;
    if (layer.has(tool.name)) {
      throw invalid(
        `register: a tool named "${tool.name}" is already registered ${agentId === undefined ? 'globally' : `for agent "${agentId}"`}; dispose it first`,
      );
    }
    layer.set(tool.name, tool);
    this.#changed();
    let disposed = false;
    return () => {
      if (disposed) return;
      disposed = true;
      if (layer.get(tool.name) === tool) layer.delete(tool.name);
      this.#changed();
    };
  }

  /** All tools the agent could see before restrictions, nearest scope winning. */
  #candidates(agentId: string | undefined): Map<string, Tool> {
    const out = new Map<string, Tool>();
    const layers = [...this.chain(agentId).map((id) => this.#agents.get(id)!.tools), this.#global];
    for (const layer of layers) for (const [name, tool] of layer) if (!out.has(name)) out.set(name, tool);
    return out;
  }

  #masked(agentId: string | undefined, name: string): boolean {
    for (const id of this.chain(agentId)) {
      for (const r of this.#agents.get(id)!.restrictions) {
        if (r.allow !== undefined && !r.allow.includes(name)) return true;
        if (r.deny?.includes(name)) return true;
      }
    }
    return false;
  }

  /** The visible tool of that name for the agent, after scope and restrictions. */
  resolve(name: string, agentId: string | undefined): Tool | undefined {
    // The nearest layer holding the name, as in #candidates, without copying every tool: this runs on each call.
    let tool: Tool | undefined;
    for (const id of this.chain(agentId)) {
      tool = this.#agents.get(id)!.tools.get(name);
      if (tool !== undefined) break;
    }
    if (tool !== undefined) return tool; // a scoped override stays in view: restrictions mask global tools
    tool = this.#global.get(name);
    return tool === undefined || this.#masked(agentId, name) ? undefined : tool;
  }

  /** Whether a tool of that name exists for the agent at all (restrictions ignored). */
  exists(name: string, agentId: string | undefined): boolean {
    return this.#candidates(agentId).has(name);
  }

  /** Visible tools, sorted by name. */
  visible(agentId: string | undefined): Tool[] {
    return [...this.#candidates(agentId).values()]
      .filter((t) => this.#global.get(t.name) !== t || !this.#masked(agentId, t.name))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  restrict(agent: AgentRef, restriction: Restriction): Dispose {
    if (agent === undefined || agent === null)
      throw invalid(
        'restrict: a global restriction would affect every agent; restrict an agent (rt.createAgent) instead',
      );
    const agentId = this.agentId(agent)!;
    if (typeof restriction !== 'object' || restriction === null)
      throw invalid('restrict: expected { allow?: string[], deny?: string[] }');
    const { allow, deny } = restriction;
    if (allow === undefined && deny === undefined)
      throw invalid('restrict: an empty restriction {} does nothing; give allow or deny');
    if (allow === undefined && Array.isArray(deny) && deny.length === 0)
      throw invalid('restrict: an empty restriction { deny: [] } does nothing; name the tools to deny');
    const known = this.#candidates(agentId);
    for (const [field, names] of [
      ['allow', allow],
      ['deny', deny],
    ] as const) {
      if (names === undefined) continue;
      if (!Array.isArray(names) || !names.every((n) => typeof n === 'string'))
        throw invalid(`restrict: ${field} must be an array of tool names`);
      for (const name of names) {
        if (name === RUN_CODE)
          throw invalid(`restrict: "${RUN_CODE}" is reserved and cannot be restricted; set the agent's mode instead`);
        if (!known.has(name))
          throw invalid(`restrict: ${field} names unknown tool "${name}" for agent "${agentId}"`, { name });
      }
    }
    const entry: Restriction = Object.freeze({
      ...(allow === undefined ? {} : { allow: Object.freeze([...allow]) }),
      ...(deny === undefined ? {} : { deny: Object.freeze([...deny]) }),
    });
    const scope = this.#agents.get(agentId)!;
    scope.restrictions.add(entry);
    this.#changed();
    return () => {
      if (scope.restrictions.delete(entry)) this.#changed();
    };
  }

  guard(guard: Guard, options: { readonly agent?: AgentRef } = {}): Dispose {
    if (typeof guard !== 'function') throw invalid('guard: expected a function (exec) => undefined | { deny: reason }');
    const entry = { guard, agent: this.agentId(options.agent) };
    this.#guards.add(entry);
    return () => {
      this.#guards.delete(entry);
    };
  }

  /** Guards that apply to a call of this agent: global ones and those of its scope chain. */
  guardsFor(agentId: string | undefined): Guard[] {
    if (this.#guards.size === 0) return []; // the common case, on every call
    const chain = new Set(this.chain(agentId));
    return [...this.#guards].filter((g) => g.agent === undefined || chain.has(g.agent)).map((g) => g.guard);
  }
}
