// Captured console output of one run, capped in UTF-8 bytes and in lines: the prefix is
// kept, then one marker line. Every line costs at least LOG_LINE_MIN_BYTES, so a flood of
// empty lines hits the cap as surely as a flood of long ones. The guest enforces the
// same caps; this is the host's own check.
// An optional listener sees each kept line (and the marker) as it is added, so a caller
// can stream a run's logs live; the lines it sees are exactly the run's final logs.

/** What one line costs at least against the byte cap (an empty line is not free to carry or keep). */
export const LOG_LINE_MIN_BYTES = 16;

export interface LogCaps {
  readonly maxBytes: number;
  readonly maxLines: number;
}

export function truncationMarker(caps: LogCaps, by: 'bytes' | 'lines' = 'bytes'): string {
  return by === 'bytes'
    ? `[log output truncated: more than ${caps.maxBytes} bytes]`
    : `[log output truncated: more than ${caps.maxLines} lines]`;
}

/** Bytes a line of `size` UTF-8 bytes counts for. */
export const logLineCost = (size: number): number => Math.max(size, LOG_LINE_MIN_BYTES);

export class LogBuffer {
  readonly #caps: LogCaps;
  readonly #lines: string[] = [];
  #bytes = 0;
  readonly #onLine: ((line: string) => void) | undefined;
  #truncated: 'bytes' | 'lines' | undefined;

  constructor(caps: LogCaps, onLine?: (line: string) => void) {
    this.#caps = caps;
    this.#onLine = onLine;
  }

  /** Adds one line; returns the part that was kept (possibly cut), or undefined when full. */
  add(text: string): string | undefined {
    if (this.#truncated !== undefined) return undefined;
    if (this.#lines.length >= this.#caps.maxLines) {
      this.markTruncated('lines');
      return undefined;
    }
    const room = this.#caps.maxBytes - this.#bytes;
    // A long string is measured only as far as the cap can reach (its UTF-16 length bounds its UTF-8 size from below).
    const size = text.length > room ? room + 1 : Buffer.byteLength(text, 'utf8');
    if (logLineCost(size) <= room) {
      this.#lines.push(text);
      this.#bytes += logLineCost(size);
      this.#onLine?.(text);
      return text;
    }
    const kept = room >= LOG_LINE_MIN_BYTES ? utf8Prefix(text, room) : '';
    if (kept !== '') {
      this.#lines.push(kept);
      this.#onLine?.(kept);
    }
    this.#bytes = this.#caps.maxBytes;
    this.markTruncated();
    return kept === '' ? undefined : kept;
  }

  markTruncated(by: 'bytes' | 'lines' = 'bytes'): void {
    if (this.#truncated !== undefined) return;
    this.#truncated = by;
    this.#onLine?.(truncationMarker(this.#caps, by));
  }

  get truncated(): boolean {
    return this.#truncated !== undefined;
  }

  /** Which cap dropped lines, if any. */
  get truncatedBy(): 'bytes' | 'lines' | undefined {
    return this.#truncated;
  }

  /** The kept lines, then the marker if anything was dropped. */
  lines(): string[] {
    return this.#truncated !== undefined
      ? [...this.#lines, truncationMarker(this.#caps, this.#truncated)]
      : [...this.#lines];
  }
}

/** The longest prefix of `text` (whole code points) that fits in `budget` UTF-8 bytes. */
export function utf8Prefix(text: string, budget: number): string {
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const code = text.codePointAt(end) ?? 0;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > budget) break;
    bytes += size;
    end += code >= 0x10000 ? 2 : 1;
  }
  return text.slice(0, end);
}
