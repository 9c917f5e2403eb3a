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
function boundedBody(body: ReadableStream<Uint8Array>, max: number, eventStream: boolean): ReadableStream<Uint8Array> {
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
          controller.error(new McpMessageTooLargeError(max));
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

export function boundedFetch(maxMessageBytes: number, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (response.body === null) return response;
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > maxMessageBytes) {
      await response.body.cancel().catch(() => {});
      throw new McpMessageTooLargeError(maxMessageBytes);
    }
    const eventStream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    return new Response(boundedBody(response.body, maxMessageBytes, eventStream), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
