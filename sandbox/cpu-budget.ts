// What a run's CPU budget is checked against. isolated-vm's `isolate.cpuTime`, read while
// guest code is running, is not CPU time: on Linux the running stretch is counted with
// the steady (wall) clock, and the thread's real CPU time is added only when the stretch
// ends. A long synchronous stretch (a loop, a heap bomb's allocations and the full GCs
// near its heap limit) on a starved machine, or on a demoted thread (cpu-lanes.ts), thus
// "uses" its CPU budget in wall time: a heap bomb needing ~0.5 s of CPU read 5-7 s with
// three other busy threads on its core, and ended as `cpu` before its heap limit tripped.
// This process's CPU time over the same span is also an upper bound of the isolate's
// (its thread is one of the process's), exact when the process runs little else (one
// run in a sandbox process); the smaller of the two is still an upper bound, so a run
// that really used its budget is always stopped, and one that only waited for a core is not.

/** This process's CPU time (user + system, all threads) in microseconds. */
export function processCpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** The CPU a run is charged: the smaller of isolated-vm's reading (ns) and the process's CPU over the run (µs). */
export function budgetCpuNs(isolateNs: bigint, processMicros: number): bigint {
  const processNs = BigInt(Math.max(0, Math.floor(processMicros))) * 1_000n;
  return processNs < isolateNs ? processNs : isolateNs;
}
