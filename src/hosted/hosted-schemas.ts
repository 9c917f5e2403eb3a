// What hosted mode sends for each visible tool, and which direct calls it refuses. A
// tool is callable from the provider's programs only, unless it declares `callers`
// (`['direct']`: the model calls it itself; `['direct', 'program']`: both).
import type { Tool } from '../definition/define-tool.ts';
import type { ToolCallerKind } from '../pipeline/tool-caller.ts';
import type { ToolSchemaProjection } from '../definition/tool-schema-projection.ts';

const PROGRAM_ONLY: readonly ToolCallerKind[] = Object.freeze(['program']);

/** Who may call `tool` in hosted mode. */
export const hostedCallers = (tool: Pick<Tool, 'callers'>): readonly ToolCallerKind[] => tool.callers ?? PROGRAM_ONLY;

const describesObject = (schema: unknown): boolean =>
  typeof schema === 'object' && schema !== null && (schema as { type?: unknown }).type === 'object';

/** The projection of one tool in hosted mode: the native one, with its callers and (for objects) its output schema. */
export function projectHostedSchema(tool: Tool): ToolSchemaProjection {
  return Object.freeze({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    ...(tool.deferLoading ? { deferLoading: true as const } : {}),
    callers: hostedCallers(tool),
    ...(describesObject(tool.outputSchema) ? { outputSchema: tool.outputSchema } : {}),
  });
}

/** A direct call of a program-only tool in hosted mode: the refusal text; otherwise undefined. */
export function hostedDirectCallRefusal(tool: Tool | undefined): string | undefined {
  if (tool === undefined || hostedCallers(tool).includes('direct')) return undefined;
  return `tool "${tool.name}" may be called only from the provider's code execution (hosted mode): call it from a program`;
}
