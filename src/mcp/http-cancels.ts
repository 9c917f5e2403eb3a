// Cancels over Streamable HTTP. The server is stateless: each POST gets a fresh MCP server,
// so a client's `notifications/cancelled` (sent when its request is aborted or times out)
// arrives at a server that never saw the request, and the SDK's own handling finds
// nothing to cancel. The HTTP server therefore hands every response an `Mcp-Session-Id`
// (a random cancel scope the official clients echo on every later request; no state is
// kept for it) and keeps the calls in flight per scope and request id, so the cancel
// reaches the run as it does over stdio. Several processes behind a balancer: the cancel
// reaches the run when it lands on the same process (route by Mcp-Session-Id).

/** Longest Mcp-Session-Id taken from a client (visible ASCII only); anything else gets a fresh one. */
export const MAX_SESSION_ID_CHARS = 128;

/** A session id from a request header, when it is a usable one. */
export function sessionIdFrom(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string' || header.length === 0 || header.length > MAX_SESSION_ID_CHARS) return undefined;
  return /^[\x21-\x7e]+$/u.test(header) ? header : undefined;
}

/** The calls in flight of a stateless HTTP server, by cancel scope (Mcp-Session-Id) and request id. */
export interface HttpCancels {
  /** Registers a call; the returned signal aborts when the client cancels it. `done()` unregisters. */
  track(
    session: string,
    requestId: string | number,
  ): {
    readonly signal: AbortSignal;
    /** Unregisters the call (it answered). */
    done(): void;
  };
  /** Aborts the call `requestId` of `session`, if it is in flight. */
  cancel(session: string, requestId: string | number, reason: unknown): void;
  /** Calls in flight (bounded by the requests in flight). */
  readonly size: number;
}

/** A fresh registry of calls in flight, for one HTTP server (see the file comment). */
export function createHttpCancels(): HttpCancels {
  const calls = new Map<string, AbortController>();
  const key = (session: string, requestId: string | number): string =>
    `${session}\u0000${typeof requestId}:${String(requestId)}`;
  return {
    track(session, requestId) {
      const k = key(session, requestId);
      const controller = new AbortController();
      calls.set(k, controller);
      return {
        signal: controller.signal,
        done() {
          if (calls.get(k) === controller) calls.delete(k);
        },
      };
    },
    cancel(session, requestId, reason) {
      calls.get(key(session, requestId))?.abort(reason);
    },
    get size() {
      return calls.size;
    },
  };
}
