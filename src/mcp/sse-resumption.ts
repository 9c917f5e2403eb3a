// Resumable SSE streams for the stateless HTTP server. Every POST that answers with an
// event stream gets a priming event (an id, a `retry` field, no data) and an id on each
// event; a client whose stream breaks while its call is still running reconnects with
// `GET` + `Last-Event-ID` and receives what it missed, then the rest of the call live.
// Each POST has its own MCP transport, so this one store (per HTTP server) keeps the
// events of every stream, and a resume is answered here, not by a fresh transport that
// never saw the call. A broken stream's call keeps running for `windowMs`; no resume by
// then and it is cancelled, as a disconnect always was. Bounded: events and bytes per
// stream, streams kept, and how long a finished stream can still be replayed.
import type { ServerResponse } from 'node:http';
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Bounds and timings of resumable SSE streams (`serveMcpHttp`'s `sseResume`). */
export interface SseResumeLimits {
  /** How long a broken stream's call waits for its client to resume, and a finished stream stays replayable (ms). @default 5000 */
  readonly windowMs: number;
  /** Events kept per stream (the newest); a resume from before them is refused. @default 1000 */
  readonly maxEventsPerStream: number;
  /** Bytes of events kept per stream (the newest). @default 4194304 */
  readonly maxBytesPerStream: number;
  /** Streams kept at once; past it the oldest finished one is forgotten first. @default 1000 */
  readonly maxStreams: number;
  /** The `retry` field of the priming event: how long a client waits before it reconnects (ms). @default 1000 */
  readonly retryMs: number;
}

/** The defaults of SseResumeLimits. */
export const DEFAULT_SSE_RESUME_LIMITS: SseResumeLimits = {
  windowMs: 5_000,
  maxEventsPerStream: 1_000,
  maxBytesPerStream: 4 * 1_048_576,
  maxStreams: 1_000,
  retryMs: 1_000,
};

interface StoredEvent {
  readonly seq: number;
  readonly message: JSONRPCMessage;
  readonly bytes: number;
}

interface Stream {
  readonly id: string;
  /** Who made the call (role and Mcp-Session-Id): only they may resume. */
  readonly scope: string;
  readonly events: StoredEvent[];
  bytes: number;
  nextSeq: number;
  /** Events before this seq were dropped (bounds). */
  firstKept: number;
  /** The response went out (to the stream, or into the store). */
  finished: boolean;
  /** The resume response reading the stream live, if any. */
  reader: ServerResponse | undefined;
  /** Running while nobody reads a stream whose call is in flight; on expiry the call is cancelled. */
  timer: NodeJS.Timeout | undefined;
  /** What to do when the stream's call is over or given up (closes its transport and server). */
  release: (() => void) | undefined;
}

const isResponse = (message: JSONRPCMessage): boolean => 'id' in message && ('result' in message || 'error' in message);
const isPriming = (message: JSONRPCMessage): boolean => Object.keys(message).length === 0;

/** Event ids are `<stream id>.<seq>`; stream ids are random UUIDs (the SDK's), so ids cannot be guessed. */
function parseEventId(eventId: string): { stream: string; seq: number } | undefined {
  const dot = eventId.lastIndexOf('.');
  if (dot <= 0 || eventId.length > 200) return undefined;
  const seq = Number(eventId.slice(dot + 1));
  return Number.isSafeInteger(seq) && seq >= 0 ? { stream: eventId.slice(0, dot), seq } : undefined;
}

function writeEvent(res: ServerResponse, streamId: string, event: StoredEvent): void {
  res.write(`event: message\nid: ${streamId}.${event.seq}\ndata: ${JSON.stringify(event.message)}\n\n`);
}

export class SseResumption {
  readonly limits: SseResumeLimits;
  readonly #streams = new Map<string, Stream>();

  constructor(limits: Partial<SseResumeLimits> = {}) {
    this.limits = { ...DEFAULT_SSE_RESUME_LIMITS, ...limits };
    for (const [key, value] of Object.entries(this.limits)) {
      if (!Number.isSafeInteger(value) || value < 1)
        throw new TypeError(`serveMcpHttp: sseResume.${key} must be a positive integer, got ${String(value)}`);
    }
  }

  /** Streams kept now (in flight, or finished and still replayable). */
  get size(): number {
    return this.#streams.size;
  }

  /** The event store for one POST: its events go into this store under the POST's cancel scope. */
  eventStoreFor(scope: string): EventStore & { readonly streamId: string | undefined } {
    let streamId: string | undefined;
    return {
      get streamId() {
        return streamId;
      },
      storeEvent: async (id, message) => {
        streamId ??= id;
        return this.#store(id, scope, message);
      },
      // Resumes are answered by resume(), never by a POST's transport.
      replayEventsAfter: async () => {
        throw new Error('resumes are answered by the HTTP server');
      },
    };
  }

  #store(streamId: string, scope: string, message: JSONRPCMessage): string {
    let stream = this.#streams.get(streamId);
    if (stream === undefined) {
      this.#makeRoom();
      stream = {
        id: streamId,
        scope,
        events: [],
        bytes: 0,
        nextSeq: 0,
        firstKept: 0,
        finished: false,
        reader: undefined,
        timer: undefined,
        release: undefined,
      };
      this.#streams.set(streamId, stream);
    }
    const event: StoredEvent = { seq: stream.nextSeq++, message, bytes: JSON.stringify(message).length };
    stream.events.push(event);
    stream.bytes += event.bytes;
    while (
      stream.events.length > this.limits.maxEventsPerStream ||
      (stream.bytes > this.limits.maxBytesPerStream && stream.events.length > 1)
    ) {
      const dropped = stream.events.shift()!;
      stream.bytes -= dropped.bytes;
      stream.firstKept = dropped.seq + 1;
    }
    if (stream.reader !== undefined && !isPriming(message)) writeEvent(stream.reader, stream.id, event);
    if (isResponse(message)) this.#finish(stream);
    return `${streamId}.${event.seq}`;
  }

  /** Forgets the oldest finished streams (then the oldest at all) until one more fits. */
  #makeRoom(): void {
    while (this.#streams.size >= this.limits.maxStreams) {
      const victim = [...this.#streams.values()].find((s) => s.finished) ?? this.#streams.values().next().value!;
      this.#forget(victim);
    }
  }

  #finish(stream: Stream): void {
    stream.finished = true;
    stream.reader?.end();
    stream.reader = undefined;
    clearTimeout(stream.timer);
    const release = stream.release;
    stream.release = undefined;
    // After the transport has finished sending the response this event is part of.
    if (release !== undefined) setImmediate(release);
    // Still replayable for a while: the stream may have broken just before the response.
    stream.timer = setTimeout(() => this.#forget(stream), this.limits.windowMs);
    stream.timer.unref();
  }

  #forget(stream: Stream): void {
    if (this.#streams.get(stream.id) !== stream) return;
    this.#streams.delete(stream.id);
    clearTimeout(stream.timer);
    stream.reader?.end();
    stream.reader = undefined;
    const release = stream.release;
    stream.release = undefined;
    release?.();
  }

  /**
   * The POST's response closed. When its stream was primed (the client can resume) and its
   * call is still running, the call is kept for `windowMs` and `release` runs when it ends
   * or nobody resumed in time: returns true. Otherwise returns false (release it now).
   */
  hold(streamId: string | undefined, release: () => void): boolean {
    const stream = streamId === undefined ? undefined : this.#streams.get(streamId);
    if (stream === undefined || stream.finished) return false;
    stream.release = release;
    this.#detach(stream);
    return true;
  }

  #detach(stream: Stream): void {
    stream.reader = undefined;
    clearTimeout(stream.timer);
    stream.timer = setTimeout(() => this.#forget(stream), this.limits.windowMs);
    stream.timer.unref();
  }

  /** Gives up every held call now (the server is closing): each is released (cancelled). */
  releaseAll(): void {
    for (const stream of [...this.#streams.values()]) if (stream.release !== undefined) this.#forget(stream);
  }

  /**
   * Answers `GET` with `Last-Event-ID`: the events after it, then (while the call runs) the
   * rest live; the response ends after the call's response. Returns an error to send
   * instead when the id is unknown, expired or not this scope's, or the stream has a reader.
   */
  resume(
    lastEventId: string,
    scope: string | undefined,
    res: ServerResponse,
  ): { status: number; message: string } | undefined {
    const parsed = parseEventId(lastEventId);
    const stream = parsed === undefined ? undefined : this.#streams.get(parsed.stream);
    if (parsed === undefined || stream === undefined || stream.scope !== scope)
      return {
        status: 404,
        message: `Not Found: no stream to resume for Last-Event-ID ${JSON.stringify(lastEventId.slice(0, 200))} (unknown, from another Mcp-Session-Id, or over ${this.limits.windowMs} ms old)`,
      };
    if (parsed.seq + 1 < stream.firstKept)
      return {
        status: 410,
        message: `Gone: the events after ${lastEventId} are no longer kept (a stream keeps its newest ${this.limits.maxEventsPerStream} events, ${this.limits.maxBytesPerStream} bytes)`,
      };
    if (stream.reader !== undefined)
      return { status: 409, message: 'Conflict: this stream is already being read by another resume' };
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // The client learns at once that the resume was taken, even when nothing is due yet.
    res.flushHeaders();
    for (const event of stream.events)
      if (event.seq > parsed.seq && !isPriming(event.message)) writeEvent(res, stream.id, event);
    if (stream.finished) {
      res.end();
      return undefined;
    }
    clearTimeout(stream.timer);
    stream.timer = undefined;
    stream.reader = res;
    res.once('close', () => {
      if (stream.reader === res && !stream.finished) this.#detach(stream);
    });
    return undefined;
  }
}
