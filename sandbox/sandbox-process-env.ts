// The environment a sandbox process starts with: the host's, less what is meant for the
// host alone, plus a malloc setting that makes a fresh process cheaper to fill.

/** The glibc tunable that backs malloc's heaps with transparent huge pages (glibc >= 2.35). */
export const HUGE_PAGES_TUNABLE = 'glibc.malloc.hugetlb=1';

/**
 * The host's environment for a sandbox process. NODE_OPTIONS (e.g. jest's) is the host's
 * own. malloc is asked for transparent huge pages where the kernel grants them on request
 * (`madvise` mode): a fresh process faults in the memory of its first isolates in 2 MiB
 * pages rather than 4 KiB ones, ~10% less CPU for a burst of runs on a cold sandbox
 * (bench/README). Where THP is off, or glibc is older or absent, the setting does nothing.
 * A tunable the host already sets for malloc's huge pages is kept as it is.
 */
export function sandboxProcessEnv(hostEnv: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = { ...hostEnv };
  delete env['NODE_OPTIONS'];
  const tunables = env['GLIBC_TUNABLES'];
  if (tunables === undefined || tunables === '') env['GLIBC_TUNABLES'] = HUGE_PAGES_TUNABLE;
  else if (!tunables.includes('glibc.malloc.hugetlb=')) env['GLIBC_TUNABLES'] = `${tunables}:${HUGE_PAGES_TUNABLE}`;
  return env;
}
