// The system text a request builder sends: the caller's own, then the runtime's prompt
// sections (present only when the SDK is not embedded in run_code's description).
import type { AgentRef } from '../registry/tool-registry.ts';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';

export interface RequestOptions {
  /** The agent whose mode, visible tools and prompt apply. @default the global scope */
  readonly agent?: AgentRef;
  /** Your own system text, placed before the runtime's prompt sections. */
  readonly system?: string;
}

/** The caller's system text and the prompt sections, joined by blank lines; undefined when there is none. */
export function promptText(rt: ToolRuntime, options: RequestOptions): string | undefined {
  const sections = rt.prompt(options.agent === undefined ? {} : { agent: options.agent }).map((s) => s.text);
  const parts = [options.system ?? '', ...sections].filter((text) => text.trim() !== '');
  return parts.length === 0 ? undefined : parts.join('\n\n');
}
