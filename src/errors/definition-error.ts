import { ToolRuntimeError } from './tool-runtime-error.ts';

/**
 * A caller mistake at definition or registration time (bad schema, duplicate name,
 * reserved name, bad restriction). Thrown at once; never a tool result.
 * Code `UNSUPPORTED_SCHEMA` for schema problems, `INVALID_DEFINITION` otherwise.
 */
export class DefinitionError extends ToolRuntimeError {}
