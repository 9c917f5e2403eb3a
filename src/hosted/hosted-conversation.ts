// One conversation in hosted mode: the programs the provider ran in it, and the calls
// they made. The adapters report what a response shows — a program starts (Anthropic's
// code-execution `server_tool_use`, OpenAI's `program` item), a program ends (its
// `code_execution_tool_result` / `program_output`), the container — and mark each
// program-made call with its caller. `rt.executeTurn(calls, { conversation })` then runs
// a program-made call as a nested call of that program's execution (see
// hosted-program-tool.ts), or refuses it (DENIED, before any policy) when the program
// never appeared in this conversation, has ended or was itself refused, when the tool
// may not be called from programs, or when the agent is not in hosted mode.
import type { NestedExecuteRequest } from '../pipeline/execute-request.ts';
import type { PipelineDeps } from '../pipeline/pipeline-deps.ts';
import { executeTool } from '../pipeline/execute-tool.ts';
import { hostedCaller, type HostedProvider, type ToolCaller, type ToolCallerKind } from '../pipeline/tool-caller.ts';
import type { ContextMessage, ToolResult } from '../pipeline/tool-result.ts';
import type { ToolMode } from '../ptc/mode-declarations.ts';
import { deferred, type Deferred } from '../scheduler/deferred.ts';
import { executeJournaled } from '../scheduler/execute-journaled.ts';
import type { TurnCall } from '../scheduler/turn-call.ts';
import type { Journal } from '../journal/journal.ts';
import { REFUSED_PROGRAMS_KEPT, resolveHostedLimits, type HostedLimits } from './hosted-limits.ts';
import { HOSTED_PROGRAM, hostedProgramTool, type HostedProgramOutcome } from './hosted-program-tool.ts';

/** A program the provider ran in this conversation. */
export interface HostedProgramInfo {
  readonly provider: HostedProvider;
  /** Anthropic: the code-execution `server_tool_use` id; OpenAI: the program item's `call_id`. */
  readonly programId: string;
  /** `running`: its calls are taken; `refused`: policy denied the program, so its calls are too; `ended`: the provider reported its end. */
  readonly state: 'starting' | 'running' | 'refused' | 'ended';
}

/**
 * The state of one hosted-mode conversation; make one per conversation with
 * `rt.hostedConversation({ agent })` and pass it to the adapters' `from…` and `to…`
 * functions and to `rt.executeTurn(calls, { agent, conversation })`.
 */
export interface HostedConversation {
  /** The agent whose conversation this is (its calls run as this agent). */
  readonly agent: string | undefined;
  /** Anthropic: the container id the last response named; send it back as `container` (the adapter's request builder does). */
  readonly container: string | undefined;
  /** Every program seen so far, in the order seen. */
  programs(): readonly HostedProgramInfo[];
  /**
   * Contexts held back from a message that may carry only tool results (while a hosted
   * program waits for its calls); the adapters add them to the next message that may
   * carry them. Taking them empties the list.
   */
  takeHeldContexts(): ContextMessage[];
  /** Ends every program still open (its execution fails: the conversation closed first) and waits for them. */
  close(): Promise<void>;
}

interface ProgramEntry {
  readonly provider: HostedProvider;
  readonly programId: string;
  state: HostedProgramInfo['state'];
  /** A response reported its end: it takes no more calls. */
  endReported: boolean;
  /** The program execution's token once its body runs, or the result that refused it. */
  readonly running: Deferred<{ readonly token: symbol } | { readonly refused: ToolResult }>;
  readonly ended: Deferred<HostedProgramOutcome>;
  settled: Promise<unknown>;
  /** Calls taken from it so far (bounded by callsPerProgram). */
  calls: number;
}

interface ConversationState {
  readonly deps: PipelineDeps;
  readonly journal: Journal | undefined;
  readonly agent: string | undefined;
  readonly modeOf: (agent: string | undefined) => ToolMode;
  readonly limits: HostedLimits;
  readonly programs: Map<string, ProgramEntry>;
  /** Programs taken (run through the pipeline), against programsPerConversation. */
  taken: number;
  /** Programs refused by a bound and remembered, against REFUSED_PROGRAMS_KEPT. */
  refusedKept: number;
  /** callId → caller, for the program-made calls of this conversation (results are shaped by it). */
  readonly callers: Map<string, ToolCaller>;
  container: string | undefined;
  held: ContextMessage[];
  closed: boolean;
}

const states = new WeakMap<HostedConversation, ConversationState>();
const key = (provider: HostedProvider, programId: string): string => `${provider}\u0000${programId}`;

export interface HostedConversationDeps {
  readonly deps: PipelineDeps;
  readonly journal: Journal | undefined;
  readonly agent: string | undefined;
  readonly modeOf: (agent: string | undefined) => ToolMode;
  /** Bounds over DEFAULT_HOSTED_LIMITS. */
  readonly limits?: Partial<HostedLimits> | undefined;
}

export function createHostedConversation(options: HostedConversationDeps): HostedConversation {
  const state: ConversationState = {
    deps: options.deps,
    journal: options.journal,
    agent: options.agent,
    modeOf: options.modeOf,
    limits: resolveHostedLimits(options.limits),
    taken: 0,
    refusedKept: 0,
    programs: new Map(),
    callers: new Map(),
    container: undefined,
    held: [],
    closed: false,
  };
  const conversation: HostedConversation = Object.freeze({
    agent: options.agent,
    get container() {
      return state.container;
    },
    programs: () =>
      [...state.programs.values()].map((p) =>
        Object.freeze({ provider: p.provider, programId: p.programId, state: p.state }),
      ),
    takeHeldContexts() {
      const held = state.held;
      state.held = [];
      return held;
    },
    async close() {
      state.closed = true;
      for (const entry of state.programs.values()) {
        entry.endReported = true;
        if (entry.state === 'running') entry.state = 'ended';
        entry.ended.resolve({
          ok: false,
          output: 'the conversation was closed before the program ended',
          detail: null,
        });
      }
      await Promise.all([...state.programs.values()].map((p) => p.settled));
    },
  });
  states.set(conversation, state);
  return conversation;
}

function stateOf(conversation: HostedConversation): ConversationState {
  const state = states.get(conversation);
  if (state === undefined) throw new TypeError('not a hosted conversation: make one with rt.hostedConversation()');
  return state;
}

/** A response showed a program starting: its execution starts (write-ahead record, policy, span). Seen twice, once. */
function observeProgramStart(
  conversation: HostedConversation,
  provider: HostedProvider,
  programId: string,
  code: string,
  inResponse: number,
): void {
  const state = stateOf(conversation);
  const id = key(provider, programId);
  if (state.programs.has(id) || state.closed) return;
  const entry: ProgramEntry = {
    provider,
    programId,
    state: 'starting',
    endReported: false,
    running: deferred(),
    ended: deferred(),
    settled: Promise.resolve(),
    calls: 0,
  };
  const overBound = boundRefusal(state, code, inResponse);
  if (overBound !== undefined) {
    // Refused before any journal write, policy or span: a bounded cost per block.
    if (state.refusedKept >= REFUSED_PROGRAMS_KEPT) return;
    state.refusedKept += 1;
    entry.state = 'refused';
    entry.running.resolve({
      refused: { callId: programId, name: HOSTED_PROGRAM, isError: true, content: [{ type: 'text', text: overBound }] },
    });
    state.programs.set(id, entry);
    return;
  }
  state.taken += 1;
  state.programs.set(id, entry);
  const tool = hostedProgramTool(async (exec) => {
    entry.state = entry.endReported ? 'ended' : 'running';
    entry.running.resolve({ token: exec.token });
    return entry.ended.promise;
  });
  // The program's own view of the pipeline: only here does its name resolve.
  const deps: PipelineDeps = {
    ...state.deps,
    resolveTool: (name, agent) => (name === HOSTED_PROGRAM ? tool : state.deps.resolveTool(name, agent)),
    directCallRefusal: (name, agent) =>
      name === HOSTED_PROGRAM ? undefined : state.deps.directCallRefusal(name, agent),
  };
  const request: NestedExecuteRequest = {
    callId: programId,
    name: HOSTED_PROGRAM,
    arguments: { provider, code },
    ...(state.agent === undefined ? {} : { agent: state.agent }),
    hostedProgram: provider,
  };
  const run = state.journal === undefined ? executeTool(deps, request) : executeJournaled(deps, request, state.journal);
  entry.settled = run.then(
    (result) => {
      if (entry.state === 'starting') {
        entry.state = 'refused';
        entry.running.resolve({ refused: result });
      } else entry.state = 'ended';
    },
    (error: unknown) => {
      entry.state = entry.state === 'starting' ? 'refused' : 'ended';
      entry.running.resolve({
        refused: {
          callId: programId,
          name: HOSTED_PROGRAM,
          isError: true,
          content: [{ type: 'text', text: String(error) }],
        },
      });
    },
  );
}

/**
 * The programs one response starts, in the order shown: each is observed with its place
 * among the response's new programs, so those past programsPerResponse are refused.
 */
export function observeResponsePrograms(
  conversation: HostedConversation,
  provider: HostedProvider,
  starts: Iterable<{ readonly programId: string; readonly code: string }>,
): void {
  const state = stateOf(conversation);
  let fresh = 0;
  for (const { programId, code } of starts) {
    if (state.programs.has(key(provider, programId))) continue;
    observeProgramStart(conversation, provider, programId, code, fresh);
    fresh += 1;
  }
}

/** Why a new program is refused by the conversation's bounds (fresh: its place among its response's new programs), or undefined. */
function boundRefusal(state: ConversationState, code: string, fresh: number): string | undefined {
  const { limits } = state;
  if (fresh >= limits.programsPerResponse)
    return `refused: the response started more than ${limits.programsPerResponse} programs (programsPerResponse); run fewer programs per response`;
  if (state.taken >= limits.programsPerConversation)
    return `refused: the conversation has started ${limits.programsPerConversation} programs, its bound (programsPerConversation); start a new conversation`;
  if (code.length > limits.programCodeChars)
    return `refused: the program's code is ${code.length} characters, more than the ${limits.programCodeChars} allowed (programCodeChars)`;
  return undefined;
}

/** A response showed a program's end. An end of a program never seen is ignored. */
export function observeProgramEnd(
  conversation: HostedConversation,
  provider: HostedProvider,
  programId: string,
  outcome: HostedProgramOutcome,
): void {
  const entry = stateOf(conversation).programs.get(key(provider, programId));
  if (entry === undefined) return;
  // Its later calls are refused from now on, not nested under a body about to end.
  entry.endReported = true;
  if (entry.state === 'running') entry.state = 'ended';
  entry.ended.resolve(outcome);
}

/** A response named its container (Anthropic): later requests must send it back. */
export function observeContainer(conversation: HostedConversation, id: string): void {
  stateOf(conversation).container = id;
}

/** Contexts a tool-results-only message cannot carry: held for the next message. */
export function holdContexts(conversation: HostedConversation, contexts: readonly ContextMessage[]): void {
  stateOf(conversation).held.push(...contexts);
}

/** The caller of a program-made call this conversation ran, or undefined for a direct call. */
export function programCallerOf(
  conversation: HostedConversation | undefined,
  callId: string,
): (ToolCaller & { readonly type: 'program' }) | undefined {
  if (conversation === undefined) return undefined;
  const caller = stateOf(conversation).callers.get(callId);
  return caller?.type === 'program' ? caller : undefined;
}

const isHostedProvider = (value: unknown): value is HostedProvider => value === 'anthropic' || value === 'openai';

const callableFromPrograms = (callers: readonly ToolCallerKind[] | undefined): boolean =>
  callers === undefined || callers.includes('program');

/**
 * The request for one call of a turn. A direct call is passed on as it is; a
 * program-made call becomes a nested call of its program's execution, or carries the
 * reason it is refused.
 */
export async function hostedCallRequest(
  call: TurnCall,
  agent: string | undefined,
  conversation: HostedConversation | undefined,
): Promise<NestedExecuteRequest> {
  const base = { callId: call.callId, name: call.name, arguments: call.arguments };
  const caller = call.caller as { type?: unknown; programId?: unknown; provider?: unknown } | undefined;
  if (caller === undefined || caller === null || caller.type === 'direct') return base;
  const provider = isHostedProvider(caller.provider) ? caller.provider : undefined;
  const programId = typeof caller.programId === 'string' ? caller.programId : '';
  const asCaller: ToolCaller = hostedCaller(provider ?? 'anthropic', programId);
  const refuse = (reason: string): NestedExecuteRequest => ({ ...base, caller: asCaller, callerRefusal: reason });
  if (caller.type !== 'program' || provider === undefined || programId === '')
    return refuse(`call "${call.callId}" names a caller the runtime does not take: ${JSON.stringify(call.caller)}`);
  const program = `${provider} program "${programId}"`;
  if (conversation === undefined)
    return refuse(
      `call "${call.callId}" was made by ${program}, but the turn has no hosted conversation to know it from (rt.executeTurn(calls, { conversation }))`,
    );
  const state = stateOf(conversation);
  state.callers.set(call.callId, asCaller);
  if (state.agent !== agent)
    return refuse(`call "${call.callId}" was made by ${program} of another agent's conversation`);
  if (state.modeOf(agent) !== 'hosted')
    return refuse(`call "${call.callId}" was made by ${program}, but the agent is not in hosted mode`);
  const entry = state.programs.get(key(provider, programId));
  if (entry === undefined)
    return refuse(
      `call "${call.callId}" names ${program}, which never appeared in this conversation; refused as forged`,
    );
  if (entry.endReported) return refuse(`${program} has already ended`);
  const tool = state.deps.resolveTool(call.name, agent);
  if (tool !== undefined && !callableFromPrograms(tool.callers))
    return refuse(`tool "${call.name}" may not be called from programs (callers: ${JSON.stringify(tool.callers)})`);
  const running = await entry.running.promise;
  if ('refused' in running) {
    const text = running.refused.content.map((b) => (b.type === 'text' ? b.text : '')).join(' ');
    return refuse(`${program} was refused, so its calls are too: ${text}`);
  }
  if (entry.endReported || entry.state !== 'running') return refuse(`${program} has already ended`);
  if (entry.calls >= state.limits.callsPerProgram)
    return refuse(
      `${program} has made ${state.limits.callsPerProgram} calls, its bound (callsPerProgram); this call is refused`,
    );
  entry.calls += 1;
  return { ...base, parent: running.token, rootCallId: programId };
}

export type { HostedProgramOutcome } from './hosted-program-tool.ts';
