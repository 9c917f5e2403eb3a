// Compiled programs by their exact source text, least recently used first out. Agents
// send the same program again and again (a retry, the same step for each user), and
// esbuild costs ~1 ms of this thread plus ~2 ms of its service per compile: a hit skips
// both. Only successful compiles are kept (a failure is compiled again, so a compiler
// that died on an input is still restarted for it), and the cache is bounded by entries
// and by characters held, so hostile programs cannot grow it.
import type { CompiledProgram } from './compiled-program.ts';

export interface CompileCacheOptions {
  /** Programs kept. @default 256 */
  readonly maxEntries?: number;
  /** Characters kept in all (source, script and source map); an entry over a quarter of it is not kept. @default 16 MiB */
  readonly maxChars?: number;
}

interface Entry {
  readonly program: CompiledProgram;
  readonly chars: number;
}

export class CompileCache {
  readonly maxEntries: number;
  readonly maxChars: number;
  readonly #entries = new Map<string, Entry>();
  #chars = 0;

  constructor(options: CompileCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 256;
    this.maxChars = options.maxChars ?? 16 * 1_048_576;
  }

  /** The program compiled from exactly `code`, if kept (it becomes the most recently used). */
  get(code: string): CompiledProgram | undefined {
    const entry = this.#entries.get(code);
    if (entry === undefined) return undefined;
    this.#entries.delete(code);
    this.#entries.set(code, entry);
    return entry.program;
  }

  set(code: string, program: CompiledProgram): void {
    const chars = code.length + program.js.length + program.sourceMap.length;
    if (chars > this.maxChars / 4 || this.#entries.has(code)) return;
    this.#entries.set(code, { program, chars });
    this.#chars += chars;
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size <= this.maxEntries && this.#chars <= this.maxChars) break;
      this.#entries.delete(oldest);
      this.#chars -= entry.chars;
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Characters held now. */
  get chars(): number {
    return this.#chars;
  }
}
