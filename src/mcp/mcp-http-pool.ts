// The HTTP side of one remote MCP connection: its own pool of sockets (so that closing
// the connection closes every socket it opened, idle keep-alive ones included, and none
// holds the host open), and one abort per JSON-RPC request. A server that answers a call
// with event-stream headers and then nothing would otherwise keep that call's socket open
// past the call's timeout: the MCP SDK gives up on the call (and sends
// `notifications/cancelled`) but keeps reading the stream until the connection closes.
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Agent, EnvHttpProxyAgent, fetch as poolFetch, type RequestInit as PoolRequestInit } from 'undici';

/** How long a request's stream may stay open after its response arrived before it is ended (a server should end it at once). */
export const RESPONDED_STREAM_GRACE_MS = 1_000;

type RequestId = string | number;

export interface McpHttpPool {
  /** The fetch to give the SDK's transport. */
  readonly fetch: FetchLike;
  /** The response to request `id` arrived: its stream is ended if the server keeps it open. */
  responded(id: RequestId): void;
  /** Ends every request and closes every socket. */
  close(): Promise<void>;
}

/** The JSON-RPC message a POST carries, read for its id and method only. */
function postedMessage(
  init: RequestInit | undefined,
): { id?: unknown; method?: unknown; params?: unknown } | undefined {
  if ((init?.method ?? 'GET').toUpperCase() !== 'POST' || typeof init?.body !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(init.body);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

const isRequestId = (value: unknown): value is RequestId => typeof value === 'string' || typeof value === 'number';

/** Node's own fetch goes through HTTP(S)_PROXY only when asked to; so does this pool. */
const usesEnvProxy = (): boolean =>
  process.env.NODE_USE_ENV_PROXY === '1' || process.execArgv.includes('--use-env-proxy');

export function createMcpHttpPool(): McpHttpPool {
  const agent = usesEnvProxy() ? new EnvHttpProxyAgent() : new Agent();
  /** The fetch of each request in flight, by JSON-RPC id. */
  const requests = new Map<RequestId, AbortController>();
  const graces = new Set<NodeJS.Timeout>();
  let closed = false;

  const end = (id: RequestId, which = requests.get(id)): void => {
    if (which === undefined || requests.get(id) !== which) return;
    requests.delete(id);
    which.abort(new Error(`MCP request ${String(id)} ended`));
  };

  const poolFetchLike: FetchLike = async (url, init) => {
    if (closed) throw new Error('the MCP connection is closed');
    const message = postedMessage(init);
    // The SDK cancels a call (its timeout, its abort) with this notification: that call's stream ends here.
    if (message?.method === 'notifications/cancelled') {
      const cancelled = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (isRequestId(cancelled)) end(cancelled);
    }
    const id =
      message !== undefined && typeof message.method === 'string' && isRequestId(message.id) ? message.id : undefined;
    const own = new AbortController();
    if (id !== undefined) requests.set(id, own);
    const signal = init?.signal ? AbortSignal.any([init.signal, own.signal]) : own.signal;
    const forget = (): void => {
      if (id !== undefined && requests.get(id) === own) requests.delete(id);
    };
    let response: Response;
    try {
      // undici's own fetch, so that requests go through this connection's pool; its types are undici's.
      const poolInit = { ...init, signal, dispatcher: agent } as unknown as PoolRequestInit;
      response = (await poolFetch(url, poolInit)) as unknown as Response;
    } catch (error) {
      forget();
      throw error;
    }
    if (id === undefined || response.body === null) {
      forget();
      return response;
    }
    // Forgotten when its body ends, however it ends.
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({ flush: forget, cancel: forget }),
    );
    own.signal.addEventListener('abort', forget, { once: true });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  return {
    fetch: poolFetchLike,
    responded(id) {
      // The same controller only: after a reconnect, a new client numbers its requests from 0 again.
      const which = requests.get(id);
      if (which === undefined) return;
      const timer = setTimeout(() => {
        graces.delete(timer);
        end(id, which);
      }, RESPONDED_STREAM_GRACE_MS);
      timer.unref();
      graces.add(timer);
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const timer of graces) clearTimeout(timer);
      graces.clear();
      for (const id of [...requests.keys()]) end(id);
      await agent.destroy().catch(() => {});
    },
  };
}
