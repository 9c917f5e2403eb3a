// Approval by MCP elicitation, without tasks: when run_code pauses for approval and the
// client declared the `elicitation` capability (form mode), the server asks inside the
// same tools/call request — one form listing every pending call, approve or deny each —
// and on an answer resumes the run there and then (rt.resume), asking again if it
// pauses again. Decline, cancel, a timeout or a disconnect leave the run paused in the
// journal, and the client gets today's paused result.
// The question is a JSON-RPC request this module numbers itself (a random id): over
// stateless HTTP the answer comes in a POST of its own, to another MCP server object,
// so answers are routed here, by id and cancel scope, before any server reads them.
import { randomUUID } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type ClientCapabilities,
  ElicitResultSchema,
  type ElicitRequest,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '../pipeline/tool-result.ts';
import type { PausedRun } from '../ptc/paused-run-text.ts';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';
import type { RunsScope } from '../runtime/durable-runs.ts';

/** How long the server waits for a client's answer before the run stays paused. @default 300000 */
export const DEFAULT_ELICITATION_TIMEOUT_MS = 300_000;
/** Questions a single tools/call may ask (a run that pauses again and again), then it answers paused. */
export const MAX_ELICITATION_ROUNDS = 100;
/** Questions waiting for an answer in this process; past it a paused run is not asked about (it stays paused). */
export const MAX_PENDING_ELICITATIONS = 10_000;

const ID_PREFIX = 'ptc-elicit-';

interface Pending {
  /** The cancel scope whose client may answer; null: any (a task's question, delivered only to its owner). */
  readonly scope: string | undefined | null;
  readonly settle: (message: JSONRPCMessage) => void;
}

const pending = new Map<string, Pending>();

/** Where a connection's (or cancel scope's) client capabilities, read at initialize, are kept. */
export interface ClientCapabilitiesSlot {
  /** The capabilities the client declared, if its initialize was seen. */
  get(): ClientCapabilities | undefined;
  /** Keeps the capabilities of an initialize request. */
  set(capabilities: ClientCapabilities): void;
}

/** A slot of its own, for a server that lives as long as its connection (stdio). */
export function ownClientCapabilities(): ClientCapabilitiesSlot {
  let capabilities: ClientCapabilities | undefined;
  return {
    get: () => capabilities,
    set: (next) => {
      capabilities = next;
    },
  };
}

/** Cancel scopes whose capabilities are remembered; past it the oldest is forgotten (its paused runs are not asked about). */
export const MAX_CAPABILITY_SCOPES = 10_000;

/** Capabilities by cancel scope (Mcp-Session-Id), bounded (the least recently initialized go first). */
export function clientCapabilitiesTable(max = MAX_CAPABILITY_SCOPES): {
  slot(scope: string): ClientCapabilitiesSlot;
} {
  const table = new Map<string, ClientCapabilities>();
  return {
    slot: (scope) => ({
      get: () => table.get(scope),
      set: (capabilities) => {
        table.delete(scope);
        table.set(scope, capabilities);
        while (table.size > max) table.delete(table.keys().next().value as string);
      },
    }),
  };
}

/** Whether the client can answer a form: `elicitation: {}` (form implied) or with `form`. */
export function asksByForm(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation;
  if (elicitation === undefined) return false;
  const modes = Object.keys(elicitation);
  return modes.length === 0 || 'form' in elicitation;
}

/**
 * Reads a message before the MCP server does: an initialize (its capabilities go to
 * `capabilities`) and an answer to one of our questions (taken: returns true).
 */
export function interceptMessage(
  message: JSONRPCMessage,
  scope: string | undefined,
  capabilities: ClientCapabilitiesSlot,
): boolean {
  if ('method' in message && message.method === 'initialize' && 'id' in message) {
    const declared = (message.params as { capabilities?: ClientCapabilities } | undefined)?.capabilities;
    if (typeof declared === 'object' && declared !== null) capabilities.set(declared);
    return false;
  }
  if ('method' in message || !('id' in message) || typeof message.id !== 'string' || !message.id.startsWith(ID_PREFIX))
    return false;
  const waiting = pending.get(message.id);
  // Another scope's answer (or a late one) is dropped, never delivered.
  if (waiting === undefined || (waiting.scope !== null && waiting.scope !== scope)) return true;
  pending.delete(message.id);
  waiting.settle(message);
  return true;
}

/** Wraps a connected transport's `onmessage` with interceptMessage. */
export function interceptTransport(
  transport: Transport,
  scope: string | undefined,
  capabilities: ClientCapabilitiesSlot,
): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (interceptMessage(message, scope, capabilities)) return;
    deliver?.call(transport, message, extra);
  };
}

/** Form property names (`call_1`, …) for the pending calls, in order. */
const fieldOf = (index: number): string => `call_${index + 1}`;

const MAX_ARGS_SHOWN = 300;

/** The form: one approve/deny field per pending call, each titled and described. */
export function approvalForm(paused: PausedRun): ElicitRequest['params'] {
  const n = paused.pending.length;
  const properties: Record<string, { type: 'string'; title: string; description: string; enum: string[] }> = {};
  paused.pending.forEach((call, index) => {
    const args = JSON.stringify(call.arguments);
    properties[fieldOf(index)] = {
      type: 'string',
      title: call.title,
      description: `tools.${call.name}(${args.length > MAX_ARGS_SHOWN ? `${args.slice(0, MAX_ARGS_SHOWN)}…` : args})`,
      enum: ['approve', 'deny'],
    };
  });
  return {
    mode: 'form',
    message: `The program is paused (run ${paused.runId}): ${n === 1 ? '1 tool call awaits' : `${n} tool calls await`} your approval. Approve or deny each.`,
    requestedSchema: {
      type: 'object',
      properties,
      required: Object.keys(properties),
    },
  };
}

/** The decisions a form answer carries, or undefined when it does not decide every call with approve/deny. */
export function decisionsOf(
  paused: PausedRun,
  content: Readonly<Record<string, unknown>> | undefined,
): Record<string, 'approve' | 'deny'> | undefined {
  if (content === undefined) return undefined;
  const decisions: Record<string, 'approve' | 'deny'> = {};
  for (const [index, call] of paused.pending.entries()) {
    const answer = content[fieldOf(index)];
    if (answer !== 'approve' && answer !== 'deny') return undefined;
    decisions[call.callId] = answer;
  }
  return decisions;
}

/**
 * Asks the client (`send` delivers the question: on the call's own stream, or into a
 * task's queue) and resolves with the decisions, or undefined when the client declined,
 * cancelled, answered something else, did not answer in `timeoutMs`, or `signal` aborted.
 */
export async function askApproval(
  send: (question: JSONRPCRequest) => Promise<void>,
  paused: PausedRun,
  options: {
    /** Whose answer is taken: the cancel scope of the client asked; null: any client that has the question's id. */
    readonly scope: string | undefined | null;
    /** Extra `_meta` of the question (a task's related-task key). */
    readonly meta?: Readonly<Record<string, unknown>>;
    readonly timeoutMs: number;
    readonly signal: AbortSignal;
    /** @default MAX_PENDING_ELICITATIONS */
    readonly maxPending?: number;
  },
): Promise<Record<string, 'approve' | 'deny'> | undefined> {
  if (pending.size >= (options.maxPending ?? MAX_PENDING_ELICITATIONS) || options.signal.aborted) return undefined;
  const id = `${ID_PREFIX}${randomUUID()}`;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const answer = new Promise<JSONRPCMessage | undefined>((resolve) => {
    pending.set(id, { scope: options.scope, settle: resolve });
    timer = setTimeout(() => resolve(undefined), options.timeoutMs);
    onAbort = () => resolve(undefined);
    options.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const form = approvalForm(paused);
    await send({
      jsonrpc: '2.0',
      id,
      method: 'elicitation/create',
      params: options.meta === undefined ? form : { ...form, _meta: { ...options.meta } },
    });
    const message = await answer;
    if (message === undefined || !('result' in message)) return undefined;
    const parsed = ElicitResultSchema.safeParse(message.result);
    if (!parsed.success || parsed.data.action !== 'accept') return undefined;
    return decisionsOf(paused, parsed.data.content);
  } catch {
    return undefined;
  } finally {
    pending.delete(id);
    clearTimeout(timer);
    if (onAbort !== undefined) options.signal.removeEventListener('abort', onAbort);
  }
}

/** The paused run of a run_code result, if it paused. */
export function pausedOf(result: ToolResult): PausedRun | undefined {
  if (result.isError || typeof result.value !== 'object' || result.value === null) return undefined;
  const paused = (result.value as { paused?: unknown }).paused;
  return typeof paused === 'object' && paused !== null ? (paused as PausedRun) : undefined;
}

/**
 * While `result` is a paused run and `ask` gets decisions for it, resumes the run with
 * them (`rt.resume`, in `scope`); returns the first result that is final, or paused and
 * not decided (declined, timed out, the client gone), after at most MAX_ELICITATION_ROUNDS.
 */
export async function resumeWhileDecided(
  rt: ToolRuntime,
  result: ToolResult,
  ask: (paused: PausedRun) => Promise<Record<string, 'approve' | 'deny'> | undefined>,
  scope: RunsScope,
): Promise<ToolResult> {
  let current = result;
  for (let round = 0; round < MAX_ELICITATION_ROUNDS; round += 1) {
    const paused = pausedOf(current);
    if (paused === undefined) return current;
    const decisions = await ask(paused);
    if (decisions === undefined) return current;
    current = await rt.resume(paused.runId, decisions, scope);
  }
  return current;
}
