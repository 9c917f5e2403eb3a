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
  route
    .send({
      method: 'notifications/progress',
      params: { progressToken: route.token, progress: route.progress, message },
    })
    .catch(() => {
      // The client went away; the call itself still ends normally.
    });
}

/** Sends the progress of the execution `callId` (and of anything nested in it) until the returned stop is called. */
export function streamRunProgress(
  rt: ToolRuntime,
  callId: string,
  token: ProgressToken,
  send: SendProgress,
): () => void {
  const routes = routerOf(rt);
  const route: Route = { token, send, progress: 0, started: 0, finished: 0 };
  routes.set(callId, route);
  return () => {
    if (routes.get(callId) === route) routes.delete(callId);
  };
}
