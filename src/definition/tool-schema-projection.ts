// What a model provider receives for one tool, and the native projection of a definition
// (hosted mode adds its callers and output schema: hosted/hosted-schemas.ts).
import type { ToolCallerKind } from '../pipeline/tool-caller.ts';
import type { JsonSchema } from './compile-schema.ts';
import type { Tool } from './tool.ts';

/** What a model provider receives for one tool: never callbacks, timeouts or renderers. */
export interface ToolSchemaProjection {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly deferLoading?: true;
  /** Hosted mode only: who may call the tool (`['program']` unless the tool declares `callers`). */
  readonly callers?: readonly ToolCallerKind[];
  /** Hosted mode only: the output schema, when it describes an object (OpenAI sends it as `output_schema`). */
  readonly outputSchema?: JsonSchema;
}

/** The native projection of `tool`: its name, description, parameters and deferral. Frozen. */
export function projectSchema(tool: Tool): ToolSchemaProjection {
  return Object.freeze({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    ...(tool.deferLoading ? { deferLoading: true as const } : {}),
  });
}
