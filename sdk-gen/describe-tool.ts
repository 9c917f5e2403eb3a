import { allocateTypeNames, RESERVED_TYPE_NAMES } from './allocate-type-names.ts';
import { toolDeclarations } from './tool-declarations.ts';
import type { ToolSchema } from './tool-schema.ts';

/**
 * One tool's full signature as TypeScript text — its types and its `tools` member,
 * as `generateSdk` would write them for a loaded tool — whether or not it is deferred.
 * What `tools.$describe` answers, so a model can read a deferred tool in one program
 * and call it, typed, in the next.
 */
export function describeTool(tool: ToolSchema, maxDepth = 16): string {
  const taken = new Set(RESERVED_TYPE_NAMES);
  const [base = 'Tool'] = allocateTypeNames([tool.name], taken);
  const { types, method } = toolDeclarations(tool, base, taken, maxDepth);
  return `${types.join('\n')}\ndeclare const tools: {\n${method}\n};\n`;
}
