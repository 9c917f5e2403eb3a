import { sdkParts } from './generate-sdk.ts';
import type { ToolSchema } from './tool-schema.ts';

/**
 * One tool's full signature as TypeScript text — its types and its `tools` member,
 * as `generateSdk` would write them for a loaded tool — whether or not it is deferred.
 * What `tools.$describe` answers, so a model can read a deferred tool in one program
 * and call it, typed, in the next.
 */
export function describeTool(tool: ToolSchema, maxDepth = 16): string {
  const parts = sdkParts([{ ...tool, deferLoading: false }], { maxDepth });
  const types = [...parts.shared.map((shared) => shared.text), ...parts.tools.flatMap((own) => own.types)];
  const members = parts.tools.map((own) => own.member);
  return `${[...types, 'declare const tools: {', ...members, '};'].join('\n')}\n`;
}
