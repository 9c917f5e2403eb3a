// Default sizes of the pool of pre-warmed isolates (isolate-pool.ts), apart so that the
// host side of the process mode can read them without loading isolated-vm.

/**
 * Isolates kept ready per sandbox process (SandboxOptions.poolSize). With the default
 * two processes a burst of about 60 runs starts on ready isolates, each ~8-10 ms of CPU
 * less to start, so 100 runs awaiting a 1 s tool finish within ~1.4 s on 2 cores; a
 * ready isolate holds ~1.6 MiB (~100 MiB for the two processes). Beyond the first two,
 * the pool fills in idle time only (isolate-pool.ts).
 */
export const DEFAULT_POOL_SIZE = 32;

/** Isolates kept ready in-process: as many as the two default sandbox processes hold. */
export const DEFAULT_IN_PROCESS_POOL_SIZE = 64;
