// print() output of a Python program, as log lines: Monty hands over pieces ("hi", " ",
// "x", "\n"); a line goes to the run's LogBuffer at its newline (or when the run ends).
import type { LogBuffer } from '../log-buffer.ts';

export class PrintLines {
  readonly #logs: LogBuffer;
  readonly #maxLineChars: number;
  #line = '';

  /**
   * `maxLineChars`: a longer line is cut (the buffer would cut it anyway; the cut bounds what
   * is held). `partial`: the start of a line printed before (in another process).
   */
  constructor(logs: LogBuffer, maxLineChars: number, partial = '') {
    this.#logs = logs;
    this.#maxLineChars = maxLineChars + 1;
    this.#line = partial.slice(0, this.#maxLineChars);
  }

  /** The line printed so far without its newline. */
  get partial(): string {
    return this.#line;
  }

  add(text: string): void {
    if (this.#logs.truncated) return;
    let rest = text;
    for (let newline = rest.indexOf('\n'); newline !== -1; newline = rest.indexOf('\n')) {
      this.#append(rest.slice(0, newline));
      this.#logs.add(this.#line);
      this.#line = '';
      rest = rest.slice(newline + 1);
    }
    this.#append(rest);
  }

  /** A last line without its newline. */
  flush(): void {
    if (this.#line !== '') this.#logs.add(this.#line);
    this.#line = '';
  }

  #append(text: string): void {
    if (this.#line.length < this.#maxLineChars) this.#line += text.slice(0, this.#maxLineChars - this.#line.length);
  }
}
