// What a sandbox process writes on stderr before it reports ready, kept (bounded) so that
// a process that dies at start says why in its runs' failures: a broken install (an
// isolated-vm built for another Node.js version) otherwise reads only "exit code 1".
// After ready its stderr is read and dropped, as 'ignore' would.
import type { Readable } from 'node:stream';

const MAX_KEPT_CHARS = 4_096;
const MAX_REASON_CHARS = 300;

export class StartupStderr {
  #text = '';
  #keeping = true;
  #ended = false;
  readonly #onEnd: Array<() => void> = [];

  constructor(stream: Readable) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      if (this.#keeping && this.#text.length < MAX_KEPT_CHARS)
        this.#text += chunk.slice(0, MAX_KEPT_CHARS - this.#text.length);
    });
    const end = (): void => {
      if (this.#ended) return;
      this.#ended = true;
      for (const then of this.#onEnd.splice(0)) then();
    };
    stream.on('end', end);
    stream.on('close', end);
    stream.on('error', end);
    // Never what keeps the host alive.
    (stream as Readable & { unref?: () => void }).unref?.();
  }

  /** The process is ready: what it writes from now on is dropped. */
  stop(): void {
    this.#keeping = false;
    this.#text = '';
  }

  /** The line that says why it stopped (an `…Error: …` line, else the first one), or ''. */
  get reason(): string {
    const lines = this.#text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    const line = lines.find((each) => /^[A-Za-z]*Error\b/.test(each)) ?? lines[0] ?? '';
    return line.length > MAX_REASON_CHARS ? `${line.slice(0, MAX_REASON_CHARS)}...` : line;
  }

  /**
   * Calls `then` once everything written was read (the stream ended), or after `ms`.
   * `keepAlive`: the bounded wait holds the host's event loop open — when runs wait for
   * `then` to fail them, the process's exit may be seen before its stderr ends, and with
   * the stream unref'd nothing else would keep the host alive until it does.
   */
  afterEnd(ms: number, then: () => void, keepAlive = false): void {
    if (this.#ended) {
      then();
      return;
    }
    let called = false;
    const once = (): void => {
      if (called) return;
      called = true;
      clearTimeout(timer);
      then();
    };
    const timer = setTimeout(once, ms);
    if (!keepAlive) timer.unref();
    this.#onEnd.push(once);
  }
}
