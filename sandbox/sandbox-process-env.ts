// The environment a sandbox process starts with: the host's, less what is meant for the
// host alone.

/**
 * The host's environment for a sandbox process. NODE_OPTIONS (e.g. jest's) is the host's
 * own. Malloc is left to its defaults (no `glibc.malloc.hugetlb`): its transparent huge
 * pages cost a sandbox process more CPU per isolate once many are alive (a burst of runs:
 * 2 MiB pages zeroed, often memory the kernel had to take back from elsewhere first) than
 * they saved a fresh process (bench/README "Start CPU per run"). A GLIBC_TUNABLES the host
 * sets reaches the sandbox processes as it is.
 */
export function sandboxProcessEnv(hostEnv: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = { ...hostEnv };
  delete env['NODE_OPTIONS'];
  return env;
}
