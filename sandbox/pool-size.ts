// Default sizes of the pool of pre-warmed isolates (isolate-pool.ts), apart so that the
// host side of the process mode can read them without loading isolated-vm.

/**
 * Most isolates kept ready per sandbox process (SandboxOptions.poolSize). With the default
 * two processes, after a burst of about 60 runs the next one as large starts on ready
 * isolates, each ~8-10 ms of CPU less to start; a ready isolate holds ~1.6 MiB (~100 MiB
 * for the two full pools). Beyond the first two, the pool grows in idle time only, to the
 * most runs seen at once (isolate-pool.ts).
 */
export const DEFAULT_POOL_SIZE = 32;

/** Isolates kept ready in-process: as many as the two default sandbox processes hold. */
export const DEFAULT_IN_PROCESS_POOL_SIZE = 64;
