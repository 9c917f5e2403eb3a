// MCP logging (`logging/setLevel`, `notifications/message`) for run_code. A client that
// set a level gets, on the request's own stream, the run's messages at that level or
// above: each console line of the program (info), each nested call's start and end
// (debug) and each nested call that failed (warning). A client that never set a level
// gets none (the spec lets the server choose; these would only duplicate progress).
// Over stateless HTTP each POST has a server of its own, so levels are kept per cancel
// scope (Mcp-Session-Id) by the HTTP server, in a bounded table (see logLevelTable).
import type { LoggingLevel, LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import type { RunCallEndEvent, RunCallStartEvent, RunLogEvent } from '../ptc/run-events.ts';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';

/** Severity order of RFC 5424, as MCP uses it: a message is sent when its level is at least the client's. */
const SEVERITY: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** The `logger` of every message this server sends. */
export const RUN_LOGGER = 'run_code';

/** Where one connection's (or cancel scope's) chosen level lives. */
export interface LogLevelSlot {
  /** The level set, if any (no messages are sent without one). */
  get(): LoggingLevel | undefined;
  /** Keeps the level a client sent with `logging/setLevel`. */
  set(level: LoggingLevel): void;
}

/** A slot of its own, for a server that lives as long as its connection (stdio). */
export function ownLogLevel(): LogLevelSlot {
  let level: LoggingLevel | undefined;
  return {
    get: () => level,
    set: (next) => {
      level = next;
    },
  };
}

/** Cancel scopes whose level is remembered; past it the oldest is forgotten (its messages stop). */
export const MAX_LOG_LEVEL_SCOPES = 10_000;

/** Levels by cancel scope (Mcp-Session-Id), bounded to MAX_LOG_LEVEL_SCOPES (the least recently set go first). */
export function logLevelTable(max = MAX_LOG_LEVEL_SCOPES): {
  slot(scope: string): LogLevelSlot;
  readonly size: number;
} {
  const levels = new Map<string, LoggingLevel>();
  return {
    slot: (scope) => ({
      get: () => levels.get(scope),
      set: (level) => {
        levels.delete(scope);
        levels.set(scope, level);
        while (levels.size > max) levels.delete(levels.keys().next().value as string);
      },
    }),
    get size() {
      return levels.size;
    },
  };
}

type Send = (notification: LoggingMessageNotification) => Promise<void>;

interface Route {
  readonly min: number;
  readonly send: Send;
  lastSend: Promise<void>;
}

const routers = new WeakMap<ToolRuntime, Map<string, Route>>();

function emit(route: Route, level: LoggingLevel, data: string): void {
  if (SEVERITY.indexOf(level) < route.min) return;
  route.lastSend = route
    .send({ method: 'notifications/message', params: { level, logger: RUN_LOGGER, data } })
    .catch(() => {
      // The client went away; the call itself still ends normally.
    });
}

function routerOf(rt: ToolRuntime): Map<string, Route> {
  const known = routers.get(rt);
  if (known !== undefined) return known;
  const table = new Map<string, Route>();
  routers.set(rt, table);
  rt.on('run/log', (e: RunLogEvent) => {
    const route = table.get(e.rootCallId);
    if (route !== undefined) emit(route, 'info', e.line);
  });
  rt.on('run/call-start', (e: RunCallStartEvent) => {
    const route = table.get(e.rootCallId);
    if (route !== undefined) emit(route, 'debug', `call ${e.seq} ${e.name} started`);
  });
  rt.on('run/call-end', (e: RunCallEndEvent) => {
    const route = table.get(e.rootCallId);
    if (route === undefined) return;
    if (e.isError)
      emit(route, 'warning', `call ${e.seq} ${e.name} failed: ${e.error?.code ?? 'error'}: ${e.error?.message ?? ''}`);
    else emit(route, 'debug', `call ${e.seq} ${e.name} finished`);
  });
  return table;
}

/** Sends the log messages of the execution `callId` at `level` or above until `stop()` (which waits for the last one to be written). */
export function streamRunLogMessages(
  rt: ToolRuntime,
  callId: string,
  level: LoggingLevel,
  send: Send,
): { stop(): Promise<void> } {
  const routes = routerOf(rt);
  const route: Route = { min: SEVERITY.indexOf(level), send, lastSend: Promise.resolve() };
  routes.set(callId, route);
  return {
    async stop() {
      if (routes.get(callId) === route) routes.delete(callId);
      await route.lastSend;
    },
  };
}
