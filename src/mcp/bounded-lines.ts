// Caps the length of each line of a newline-delimited stream (MCP's stdio framing).
// A longer line is dropped whole — its bytes never reach the JSON parser — and reported
// with its first and last bytes, so that the server can answer the request it carried.
// Without it the MCP SDK's stdio transport closes the connection on one line over its
// buffer size, and every later request of the client is lost.
import { Transform, type TransformCallback } from 'node:stream';

/** A line that was over a limit: which one, how long it was, and its edges (for the request id). */
export interface OversizedLine {
  /** `bytes`: longer than maxLineBytes; `depth`: JSON nested deeper than maxDepth. */
  readonly over: 'bytes' | 'depth';
  readonly bytes: number;
  readonly head: string;
  readonly tail: string;
}

const EDGE = 256;
const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export class BoundedLines extends Transform {
  readonly #maxLineBytes: number;
  readonly #onOversized: (line: OversizedLine) => void;
  /** Bytes of the current line passed on so far (while it is within the limit). */
  #passed = 0;
  /** The current line is over the limit: these are its bytes so far (edges kept only). */
  #dropping: { bytes: number; head: Buffer; tail: Buffer } | undefined;
  /** The start of the current line, held back (at most maxLineBytes) until it ends or overflows. */
  #held: Buffer[] = [];
  // JSON nesting of the current line, tracked outside strings: parsing a line of a few
  // MiB of `[[[[…` costs the parser hundreds of MiB, so such a line is dropped unread too.
  readonly #maxDepth: number;
  #depth = 0;
  #inString = false;
  #escaped = false;
  #over: OversizedLine['over'] = 'bytes';

  constructor(maxLineBytes: number, onOversized: (line: OversizedLine) => void, maxDepth = Number.POSITIVE_INFINITY) {
    super();
    this.#maxLineBytes = maxLineBytes;
    this.#onOversized = onOversized;
    this.#maxDepth = maxDepth;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      const piece = chunk.subarray(start, end);
      if (this.#dropping !== undefined) {
        this.#drop(piece);
      } else if (this.#passed + piece.length > this.#maxLineBytes || this.#tooDeep(piece)) {
        // Over a limit: what was held back is dropped with the rest of the line.
        if (this.#passed + piece.length > this.#maxLineBytes) this.#over = 'bytes';
        const held = Buffer.concat([...this.#held, piece]);
        this.#held = [];
        this.#passed = 0;
        this.#dropping = { bytes: 0, head: Buffer.alloc(0), tail: Buffer.alloc(0) };
        this.#drop(held);
      } else {
        this.#held.push(piece);
        this.#passed += piece.length;
      }
      if (newline === -1) break;
      // The line ends here.
      if (this.#dropping !== undefined) {
        const { bytes, head, tail } = this.#dropping;
        this.#dropping = undefined;
        this.#onOversized({ over: this.#over, bytes, head: head.toString('utf8'), tail: tail.toString('utf8') });
      } else {
        this.#held.push(chunk.subarray(newline, newline + 1));
        this.push(Buffer.concat(this.#held));
        this.#held = [];
        this.#passed = 0;
      }
      this.#depth = 0;
      this.#inString = false;
      this.#escaped = false;
      this.#over = 'bytes';
      start = newline + 1;
    }
    callback();
  }

  /** Follows the JSON nesting through `piece`; true once it goes deeper than maxDepth. */
  #tooDeep(piece: Buffer): boolean {
    if (this.#maxDepth === Number.POSITIVE_INFINITY) return false;
    for (let i = 0; i < piece.length; i++) {
      const byte = piece[i]!;
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (byte === BACKSLASH) this.#escaped = true;
        else if (byte === QUOTE) this.#inString = false;
      } else if (byte === QUOTE) this.#inString = true;
      else if (byte === 0x5b || byte === 0x7b) {
        this.#depth += 1;
        if (this.#depth > this.#maxDepth) {
          this.#over = 'depth';
          return true;
        }
      } else if (byte === 0x5d || byte === 0x7d) this.#depth -= 1;
    }
    return false;
  }

  override _flush(callback: TransformCallback): void {
    if (this.#held.length > 0) this.push(Buffer.concat(this.#held));
    this.#held = [];
    callback();
  }

  #drop(piece: Buffer): void {
    const d = this.#dropping!;
    if (d.head.length < EDGE) d.head = Buffer.concat([d.head, piece.subarray(0, EDGE - d.head.length)]);
    d.tail = Buffer.concat([d.tail, piece]).subarray(-EDGE);
    d.bytes += piece.length;
  }
}

/** The JSON-RPC id of a request line, read from its edges only; null when it cannot be told. */
export function requestIdOf(line: OversizedLine): string | number | null {
  // Our own clients and the MCP SDK write `"id"` first or last at the top level.
  const last = /"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")\s*\}\s*$/u.exec(line.tail);
  const first = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")\s*,/u.exec(
    line.head,
  );
  const raw = last?.[1] ?? first?.[1];
  if (raw === undefined) return null;
  try {
    const id: unknown = JSON.parse(raw);
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
}
