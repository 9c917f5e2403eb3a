// What one run_code run may hold on the host at once, in bytes of JSON text: the
// arguments of its nested calls until they commit, a result on its way back to the
// program, and the contexts ferried onto the run_code result (held to the run's end).
// Without it a program can make the host hold as much as it can send, one call at a
// time (150 calls with 4 MiB arguments once killed a host with a 512 MiB heap).

/** The ToolCallError code a program sees when a call or its result does not fit. */
export const RETENTION_LIMIT = 'RETENTION_LIMIT';

/** @default 64 MiB */
export const DEFAULT_MAX_RETAINED_BYTES = 64 * 1_048_576;

export class RetentionBudget {
  readonly limit: number;
  #used = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  get used(): number {
    return this.#used;
  }

  /** Takes `bytes` from the budget; false (nothing taken) when they do not fit. */
  tryHold(bytes: number): boolean {
    if (this.#used + bytes > this.limit) return false;
    this.#used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}

/** Checks the option at the runtime's creation. */
export function checkMaxRetainedBytes(value: unknown, where: string): number {
  if (value === undefined) return DEFAULT_MAX_RETAINED_BYTES;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`${where}: maxRetainedBytes must be a positive integer (bytes), got ${String(value)}`);
  }
  return value;
}
