// Captured console output of one run, capped in UTF-8 bytes: the prefix is kept, then
// one marker line. The guest enforces the same cap; this is the host's own check.
// An optional listener sees each kept line (and the marker) as it is added, so a caller
// can stream a run's logs live; the lines it sees are exactly the run's final logs.

export function truncationMarker(maxBytes: number): string {
  return `[log output truncated: more than ${maxBytes} bytes]`;
}

export class LogBuffer {
  readonly #maxBytes: number;
  readonly #lines: string[] = [];
  #bytes = 0;
  readonly #onLine: ((line: string) => void) | undefined;
  #truncated = false;

  constructor(maxBytes: number, onLine?: (line: string) => void) {
    this.#maxBytes = maxBytes;
    this.#onLine = onLine;
  }

  /** Adds one line; returns the part that was kept (possibly cut), or undefined when full. */
  add(text: string): string | undefined {
    if (this.#truncated) return undefined;
    const room = this.#maxBytes - this.#bytes;
    const size = Buffer.byteLength(text, 'utf8');
    if (size <= room) {
      this.#lines.push(text);
      this.#bytes += size;
      this.#onLine?.(text);
      return text;
    }
    const kept = utf8Prefix(text, room);
    if (kept !== '') {
      this.#lines.push(kept);
      this.#onLine?.(kept);
    }
    this.#bytes = this.#maxBytes;
    this.markTruncated();
    return kept === '' ? undefined : kept;
  }

  markTruncated(): void {
    if (this.#truncated) return;
    this.#truncated = true;
    this.#onLine?.(truncationMarker(this.#maxBytes));
  }

  get truncated(): boolean {
    return this.#truncated;
  }

  /** The kept lines, then the marker if anything was dropped. */
  lines(): string[] {
    return this.#truncated ? [...this.#lines, truncationMarker(this.#maxBytes)] : [...this.#lines];
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
