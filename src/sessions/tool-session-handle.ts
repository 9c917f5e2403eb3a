// The `exec.session` of a tool call made with `rt.execute({ session })`: read and write
// the session's state from a tool's body. Each write is one atomic step of the store: it
// takes the session (SESSION_BUSY while a program runs on it), checks the version this
// call read (a save in between refuses the write: never a lost update) and saves over it.
import { ERROR_CODES } from '../errors/error-codes.ts';
import { ToolRuntimeError } from '../errors/tool-runtime-error.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { ExecuteRequest } from '../pipeline/execute-request.ts';
import type { ToolSession } from '../pipeline/tool-session.ts';
import type { AgentRef } from '../registry/tool-registry.ts';
import type { RuntimeSessions, SessionOwner } from './runtime-sessions.ts';

/** How long a write holds the session at most (a host that dies mid-write frees it then). */
export const TOOL_SESSION_HOLD_MS = 60_000;
/** Nesting a written state may have. */
const MAX_DEPTH = 1000;

type JsonObject = { readonly [key: string]: JsonValue };

/** The state as JSON text, or a TypeError naming the path of what cannot be saved. */
function encode(state: unknown): string {
  const check = (value: unknown, path: string, depth: number): void => {
    if (depth > MAX_DEPTH) throw new TypeError(`exec.session.write: ${path} is nested deeper than ${MAX_DEPTH} levels`);
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
    if (typeof value === 'number') {
      if (!Number.isFinite(value))
        throw new TypeError(`exec.session.write: ${path} is ${value}, which JSON cannot hold`);
      return;
    }
    if (Array.isArray(value)) {
      value.forEach((item, i) => check(item, `${path}[${i}]`, depth + 1));
      return;
    }
    if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
      for (const [key, item] of Object.entries(value)) {
        if (key === '$')
          throw new TypeError(
            `exec.session.write: ${path} has a key "$", which is reserved for the saved form of values`,
          );
        check(item, `${path}.${key}`, depth + 1);
      }
      return;
    }
    throw new TypeError(
      `exec.session.write: ${path} is ${typeof value === 'object' ? 'an instance of a class' : `a ${typeof value}`}: only JSON data can be saved`,
    );
  };
  if (typeof state !== 'object' || state === null || Array.isArray(state))
    throw new TypeError('exec.session.write: state must be a plain object, as a program sees it');
  check(state, 'state', 0);
  return JSON.stringify(state);
}

/** A call's session handle (no store access until `read` or `write`). */
export function createToolSession(sessions: RuntimeSessions, id: string, owner: SessionOwner): ToolSession {
  let readVersion: number | undefined;
  const handle: ToolSession = {
    id,
    async read() {
      const record = await sessions.store.getSession(id, Date.now());
      if (record === undefined || record.agent !== owner.agent || record.principal !== owner.principal)
        throw sessions.expired(id);
      readVersion = record.version;
      return JSON.parse(record.state) as JsonObject;
    },
    async write(state) {
      const text = encode(state);
      const bytes = Buffer.byteLength(text);
      if (bytes > sessions.maxBytes)
        throw new TypeError(
          `exec.session.write: state is ${bytes} bytes serialized, over the session limit of ${sessions.maxBytes} bytes (maxBytes); nothing was saved`,
        );
      const open = await sessions.open(id, owner, TOOL_SESSION_HOLD_MS);
      try {
        if (readVersion !== undefined && open.recorded.version !== readVersion)
          throw new ToolRuntimeError(
            ERROR_CODES.SESSION_BUSY,
            `session "${id}" was saved by another program or call since this call read it: nothing was saved. Read it again, then write.`,
            { session: id },
          );
        const saved = await open.save({ ok: true, text, bytes });
        if (saved.notSaved !== undefined)
          throw new ToolRuntimeError(ERROR_CODES.SESSION_BUSY, `session "${id}": ${saved.notSaved}`, { session: id });
        readVersion = open.recorded.version + 1;
      } finally {
        await open.release();
      }
    },
  };
  return Object.freeze(handle);
}

/**
 * The handle of a call made with `session` (undefined without one). A TypeError when
 * sessions are off or the id is not a string: the caller named a session that cannot be.
 */
export function toolSessionOf(
  request: ExecuteRequest,
  sessions: RuntimeSessions | undefined,
  principal: string | undefined,
  agentId: (ref: AgentRef | undefined) => string | undefined,
): ToolSession | undefined {
  if (typeof request !== 'object' || request === null || request.session === undefined) return undefined;
  if (sessions === undefined)
    throw new TypeError(
      'execute: session was given, but sessions are off on this runtime: createToolRuntime({ sessions: true })',
    );
  if (typeof request.session !== 'string' || request.session.length === 0)
    throw new TypeError(
      `execute: session must be a session id (a non-empty string), got ${JSON.stringify(request.session)}`,
    );
  return createToolSession(sessions, request.session, {
    agent: agentId(request.agent) ?? null,
    principal: principal ?? null,
  });
}
