// Who made a call: the model directly, a program (a local run_code run, or a program a
// provider ran in its own sandbox: Anthropic's code execution tool, OpenAI's
// programmatic tool calling), or a composite tool's body (`exec.callTool`). Hooks,
// guards and bodies read it as `exec.caller`.
import { RUN_CODE } from '../registry/reserved-names.ts';

/** Where a program ran: our sandbox (`run_code`), or a provider's (hosted mode). */
export type ProgramProvider = 'local' | 'anthropic' | 'openai';

/** The providers whose hosted programs the runtime can take calls from. */
export type HostedProvider = Exclude<ProgramProvider, 'local'>;

/** How a tool may be called in hosted mode: by the model directly, from a hosted program, or both. */
export type ToolCallerKind = 'direct' | 'program';

/**
 * The caller of one execution. `{ type: 'program' }` is a call a program made: its
 * `programId` is the parent call id (the run_code call, or the provider's program id —
 * Anthropic's `server_tool_use` id, OpenAI's program item `call_id`).
 */
export type ToolCaller =
  | { readonly type: 'direct' }
  | { readonly type: 'program'; readonly programId: string; readonly provider: ProgramProvider }
  | { readonly type: 'tool'; readonly callId: string };

export const DIRECT_CALLER: ToolCaller = Object.freeze({ type: 'direct' });

/** A hosted program's caller. */
export const hostedCaller = (provider: HostedProvider, programId: string): ToolCaller =>
  Object.freeze({ type: 'program', programId, provider });

/**
 * The caller of a nested call whose parent is known: a run_code run is a local
 * program, a hosted program's execution is that program, anything else is a tool.
 */
export function nestedCaller(parent: {
  readonly callId: string;
  readonly name: string;
  readonly caller: ToolCaller;
  readonly hostedProgram?: HostedProvider | undefined;
}): ToolCaller {
  if (parent.hostedProgram !== undefined) return hostedCaller(parent.hostedProgram, parent.callId);
  if (parent.name === RUN_CODE && parent.caller.type === 'direct')
    return Object.freeze({ type: 'program', programId: parent.callId, provider: 'local' });
  return Object.freeze({ type: 'tool', callId: parent.callId });
}
