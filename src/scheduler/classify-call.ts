// Concurrency is a declaration and a per-call runtime decision.
// Default exclusive; parallel only if the latest visible definition says exactly
// `true` for these arguments without throwing.
import type { JsonValue } from '../json/json-value.ts';
import type { PipelineDeps } from '../pipeline/pipeline-deps.ts';

export type CallMode = 'parallel' | 'exclusive';

/** `args` is undefined when the arguments are not lossless JSON (such a call never runs a body). */
export function classifyCall(
  deps: PipelineDeps,
  name: string,
  agent: string | undefined,
  args: JsonValue | undefined,
): CallMode {
  if (args === undefined) return 'exclusive';
  try {
    // Read now, not at submission: an earlier call may have changed the registry.
    const tool = deps.resolveTool(name, agent);
    return tool !== undefined && tool.isConcurrencySafe(args) === true ? 'parallel' : 'exclusive';
  } catch {
    return 'exclusive';
  }
}
