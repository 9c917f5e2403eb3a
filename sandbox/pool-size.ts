// Default sizes of the pool of pre-warmed isolates (isolate-pool.ts), apart so that the
// host side of the process mode can read them without loading isolated-vm.

/**
 * Isolates kept ready per sandbox process (SandboxOptions.poolSize). With the default
 * two processes a burst of about 30 runs starts on ready isolates, each ~10 ms of CPU
 * less to start; a ready isolate holds ~1.6 MiB. Beyond the first two, the pool fills
 * in idle time only (isolate-pool.ts).
 */
export const DEFAULT_POOL_SIZE = 16;

/** Isolates kept ready in-process: as many as the two default sandbox processes hold. */
export const DEFAULT_IN_PROCESS_POOL_SIZE = 32;
