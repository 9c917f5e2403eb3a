// MCP progress notifications for run_code: when a tools/call request carries
// `_meta.progressToken`, every console line of the program and every start and end of
// one of its nested calls becomes one `notifications/progress` (progress counts the
// notifications, `message` says what happened and how many calls are done).
// One listener per runtime routes the runtime's run events by rootCallId.
import type { ProgressNotification } from '@modelcontextprotocol/sdk/types.js';
import type { RunCallEndEvent, RunCallStartEvent, RunLogEvent } from '../ptc/run-events.ts';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';

export type ProgressToken = string | number;
type SendProgress = (notification: ProgressNotification) => Promise<void>;

interface Route {
  readonly token: ProgressToken;
  readonly send: SendProgress;
  /** Settles when the latest notification has been handed to the transport. */
  lastSend: Promise<void>;
  /** When the latest notification was sent (performance.now()). */
  lastSentAt: number;
  progress: number;
  started: number;
  finished: number;
}

const routers = new WeakMap<ToolRuntime, Map<string, Route>>();

function routerOf(rt: ToolRuntime): Map<string, Route> {
  let routes = routers.get(rt);
  if (routes !== undefined) return routes;
  const table = new Map<string, Route>();
  routes = table;
  routers.set(rt, table);
  rt.on('run/log', (e: RunLogEvent) => {
    const route = table.get(e.rootCallId);
    if (route !== undefined) notify(route, e.line);
  });
  rt.on('run/call-start', (e: RunCallStartEvent) => {
    const route = table.get(e.rootCallId);
    if (route === undefined) return;
    route.started += 1;
    notify(route, `call ${e.seq} ${e.name} started (${callCounts(route)})`);
  });
  rt.on('run/call-end', (e: RunCallEndEvent) => {
    const route = table.get(e.rootCallId);
    if (route === undefined) return;
    route.finished += 1;
    const how = e.isError ? `failed: ${e.error?.code ?? 'error'}` : 'finished';
    notify(route, `call ${e.seq} ${e.name} ${how} (${callCounts(route)})`);
  });
  return routes;
}

const callCounts = (route: Route): string => `calls: ${route.started} started, ${route.finished} finished`;

function notify(route: Route, message: string): void {
  route.progress += 1;
  route.lastSentAt = performance.now();
  route.lastSend = route
    .send({
      method: 'notifications/progress',
      params: { progressToken: route.token, progress: route.progress, message },
    })
    .catch(() => {
      // The client went away; the call itself still ends normally.
    });
}

/**
 * The MCP SDK's client handles a notification a microtask after reading it but a response
 * at once, and drops progress that arrives after its response: notifications read in the
 * same chunk as the response are lost. So a response that follows a notification closely
 * waits until that notification is written and this much longer, to reach the client in
 * a read of its own. 5 ms was too short on a loaded machine (the client was not scheduled
 * to read in time); 25 ms is paid only by a response within 25 ms of a notification.
 */
export const PROGRESS_SETTLE_MS = 25;

export interface ProgressStream {
  /** Stops sending; resolves once the notifications sent are written and, when the last one was recent, PROGRESS_SETTLE_MS later. */
  stop(): Promise<void>;
}

/** Sends the progress of the execution `callId` (and of anything nested in it) until `stop()`. */
export function streamRunProgress(
  rt: ToolRuntime,
  callId: string,
  token: ProgressToken,
  send: SendProgress,
): ProgressStream {
  const routes = routerOf(rt);
  const route: Route = {
    token,
    send,
    lastSend: Promise.resolve(),
    lastSentAt: Number.NEGATIVE_INFINITY,
    progress: 0,
    started: 0,
    finished: 0,
  };
  routes.set(callId, route);
  return {
    async stop() {
      if (routes.get(callId) === route) routes.delete(callId);
      await route.lastSend;
      const since = performance.now() - route.lastSentAt;
      if (since < PROGRESS_SETTLE_MS) await new Promise((resolve) => setTimeout(resolve, PROGRESS_SETTLE_MS - since));
    },
  };
}
