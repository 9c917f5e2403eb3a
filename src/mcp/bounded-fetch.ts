// A fetch for the MCP SDK's Streamable HTTP client whose responses cannot carry one
// message larger than a bound: a JSON body is cut off past `maxMessageBytes`, and so is
// one server-sent event (the bytes between two blank lines) of an event stream. The
// SDK would otherwise read a hostile server's response whole, however large — the
// same bound its stdio transport has (one line of at most 10 MiB).
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** One message from an MCP server was over the bound. */
export class McpMessageTooLargeError extends Error {
  readonly maxMessageBytes: number;
  constructor(maxMessageBytes: number) {
    super(
      `the MCP server sent a message larger than ${maxMessageBytes} bytes (limits.maxMessageBytes); it was not read`,
    );
    this.name = 'McpMessageTooLargeError';
    this.maxMessageBytes = maxMessageBytes;
  }
}

const LF = 0x0a;

/** Counts bytes per message and errors the stream past `max`. */
function boundedBody(
  body: ReadableStream<Uint8Array>,
  max: number,
  eventStream: boolean,
  tooLarge: () => McpMessageTooLargeError,
): ReadableStream<Uint8Array> {
  let run = 0;
  let lastByte = -1;
  let beforeLast = -1;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        let over = false;
        if (!eventStream) {
          run += chunk.length;
          over = run > max;
        } else {
          // An event ends at a blank line ("\n\n"; "\r\n\r\n" ends in "\n\r\n", counted alike).
          for (let i = 0; i < chunk.length && !over; i += 1) {
            const byte = chunk[i]!;
            run += 1;
            over = run > max;
            if (byte === LF && (lastByte === LF || (lastByte === 0x0d && beforeLast === LF))) run = 0;
            beforeLast = lastByte;
            lastByte = byte;
          }
        }
        if (over) {
          controller.error(tooLarge());
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

/** The shortest time between two GET (server-to-client stream) requests: a server's `retry: 0` must not make the client reconnect in a loop. */
export const MIN_RECONNECT_MS = 1_000;

export interface BoundedFetchOptions {
  /** Told when a response was over the bound (before its reader sees the error). */
  readonly onOversized?: (error: McpMessageTooLargeError) => void;
  /** Floor between GET requests. @default MIN_RECONNECT_MS */
  readonly minReconnectMs?: number;
}

export function boundedFetch(
  maxMessageBytes: number,
  base: FetchLike = fetch,
  options: BoundedFetchOptions = {},
): FetchLike {
  const minReconnectMs = options.minReconnectMs ?? MIN_RECONNECT_MS;
  let lastGet = Number.NEGATIVE_INFINITY;
  const tooLarge = (): McpMessageTooLargeError => {
    const error = new McpMessageTooLargeError(maxMessageBytes);
    options.onOversized?.(error);
    return error;
  };
  return async (url, init) => {
    if ((init?.method ?? 'GET').toUpperCase() === 'GET') {
      const wait = lastGet + minReconnectMs - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      lastGet = performance.now();
      if (init?.signal?.aborted) throw init.signal.reason;
    }
    const response = await base(url, init);
    if (response.body === null) return response;
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > maxMessageBytes) {
      await response.body.cancel().catch(() => {});
      throw tooLarge();
    }
    const eventStream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    return new Response(boundedBody(response.body, maxMessageBytes, eventStream, tooLarge), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
