// Shared fixtures for the core suite: small tools, a deferred promise, deep-freeze
// checks and a direct pipeline (for nested calls, which the public API does not start).
import type { ContentBlock, JsonValue, Tool, ToolExecution, ToolResult, ToolRuntimeOptions } from '../../src/index.ts';
import { createToolRuntime, defineTool } from '../../src/index.ts';
import { executeTool, type NestedExecuteRequest, type PipelineDeps } from '../../src/pipeline/execute-tool.ts';
import { Hooks } from '../../src/pipeline/hooks.ts';
import { ToolRegistry } from '../../src/registry/tool-registry.ts';

export const text = (t: string): ContentBlock[] => [{ type: 'text', text: t }];

export interface EchoOptions {
  readonly name?: string;
  readonly body?: (args: { readonly q: string }, exec: ToolExecution) => JsonValue | Promise<JsonValue>;
  readonly projectContent?: Tool['projectContent'];
  readonly finalizeContent?: Tool['finalizeContent'];
  readonly presentationMeta?: (args: { readonly q: string }, value: JsonValue) => JsonValue;
}

/**
 * `echo`-style tool: args `{ q: string }` (required), output `{ echoed: string }`
 * (closed object), rendered as `echo:<echoed>`. `calls` counts body runs.
 */
export function echoTool(options: EchoOptions = {}): { tool: Tool; calls: { count: number } } {
  const calls = { count: 0 };
  const tool = defineTool({
    name: options.name ?? 'echo',
    description: 'Echoes q.',
    parameters: { q: { type: 'string', required: true } },
    output: {
      schema: {
        type: 'object',
        additionalProperties: false,
        properties: { echoed: { type: 'string', required: true } },
      },
      render: (_args, value) => text(`echo:${value.echoed}`),
    },
    execute: async (args, exec) => {
      calls.count += 1;
      if (options.body !== undefined) return options.body(args, exec) as never;
      return { echoed: args.q };
    },
    ...(options.projectContent === undefined ? {} : { projectContent: options.projectContent }),
    ...(options.finalizeContent === undefined ? {} : { finalizeContent: options.finalizeContent }),
    ...(options.presentationMeta === undefined ? {} : { presentationMeta: options.presentationMeta as never }),
  });
  return { tool, calls };
}

/** A runtime with one registered echo tool. */
export function echoRuntime(options: EchoOptions & { readonly runtime?: ToolRuntimeOptions } = {}) {
  const rt = createToolRuntime(options.runtime ?? {});
  const { tool, calls } = echoTool(options);
  const dispose = rt.register(tool);
  return { rt, tool, calls, dispose };
}

export const call = (name = 'echo', args: unknown = { q: 'hi' }, callId = 'c1') => ({ callId, name, arguments: args });

export { deferred, type Deferred } from '../../src/scheduler/deferred.ts';

/** Every object reachable from `value` is frozen. */
export function isDeepFrozen(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (!Object.isFrozen(v)) return false;
    for (const key of Object.keys(v)) stack.push((v as Record<string, unknown>)[key]);
  }
  return true;
}

/** A bare pipeline over a registry and hooks, to start nested calls (with a parent token). */
export function barePipeline(options: { readonly directCallRefusal?: PipelineDeps['directCallRefusal'] } = {}) {
  const registry = new ToolRegistry();
  const hooks = new Hooks();
  const deps: PipelineDeps = {
    registry,
    hooks,
    approval: undefined,
    resolveTool: (name, agent) => registry.resolve(name, agent),
    directCallRefusal: options.directCallRefusal ?? (() => undefined),
  };
  return {
    registry,
    hooks,
    execute: (request: NestedExecuteRequest): Promise<ToolResult> => executeTool(deps, request),
  };
}

/** The error code of a result, or 'ok'. */
export const codeOf = (result: ToolResult): string => (result.isError ? (result.error?.code ?? '?') : 'ok');
