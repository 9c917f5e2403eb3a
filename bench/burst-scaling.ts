// Does a run cost more when more runs are in flight? N runs at once on a warm runtime,
// each awaiting one tool call of `toolMs`: the CPU per run (host + sandbox processes +
// compiler) until every tool call had started, then the CPU per second while all of them
// wait (work done per tick over live runs would show there: timers, polls, scans), then
// the CPU per run from then to the end (with a `toolMs` longer than the burst: the runs'
// finishing work alone, apart from their start).
// Prints one JSON line. With a poolSize of 0 every run starts on an isolate prepared in
// the burst, so two run counts compare like with like.
//   node --no-node-snapshot --conditions=ptc-source bench/burst-scaling.ts \
//     <process|in-process> <runs> [poolSize|default] [toolMs]
import { createBenchRuntime, type Isolation, showBurst, waitGauge } from './bench-runtime.ts';
import { childrenCpuMs, mainThreadCpuMs, ownCpuMs, spent } from './proc-cpu.ts';

export interface BurstScalingResult {
  readonly isolation: Isolation;
  readonly runs: number;
  readonly poolSize: number | 'default';
  readonly toolMs: number;
  readonly wallMs: number;
  readonly failed: number;
  /** When every tool call had started (ms after the burst began); undefined if some never did. */
  readonly allWaitingMs: number | undefined;
  /** CPU ms per run until then: host (this process) and sandbox processes + compiler apart. */
  readonly cpuMsPerRun: { readonly host: number; readonly children: number } | undefined;
  /** Of the host's, CPU ms per run on its main thread until then (in-process it makes the isolates' work start). */
  readonly mainThreadMsPerRun: number | undefined;
  /**
   * CPU ms per run from then to the end: the runs' waits and their finishing work (the
   * answer delivered, the result, the isolate disposed, the pool refilled). With a `toolMs`
   * longer than the burst this is the finishing work alone plus the waiting seconds'
   * (reported beside); with 1 s tools part of it overlaps the burst's end.
   */
  readonly afterAllWaitingCpuMsPerRun: { readonly host: number; readonly sandbox: number } | undefined;
  /** CPU ms in each whole second while every run waited (host, sandbox processes). */
  readonly waitingSeconds: readonly { readonly host: number; readonly sandbox: number }[];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function burstScaling(
  isolation: Isolation,
  runs: number,
  poolSize: number | undefined,
  toolMs: number,
): Promise<BurstScalingResult> {
  const bench = createBenchRuntime({ isolation, ...(poolSize === undefined ? {} : { poolSize }) });
  try {
    await bench.runCode('return await tools.wait({ ms: 1, safe: true })'); // sandbox up
    if (poolSize !== 0) await showBurst(bench, runs); // the pool grows to the bursts it has seen
    await sleep(1_500 + (poolSize ?? 0) * 40); // the pool fills (as in capacity-bench.ts)
    waitGauge.reset();
    const before = { host: ownCpuMs(), mainThread: mainThreadCpuMs(), children: childrenCpuMs() };
    const started = performance.now();
    let allWaiting: { ms: number; host: number; mainThread: number; children: number } | undefined;
    const waitingSeconds: { host: number; sandbox: number }[] = [];
    let last: { host: number; children: ReturnType<typeof childrenCpuMs> } | undefined;
    let atAllWaiting: typeof last;
    const watch = setInterval(() => {
      if (allWaiting !== undefined || waitGauge.started < runs) return;
      const children = childrenCpuMs();
      allWaiting = {
        ms: performance.now() - started,
        host: ownCpuMs() - before.host,
        mainThread: mainThreadCpuMs() - before.mainThread,
        children: spent(before.children.sandbox, children.sandbox) + spent(before.children.compiler, children.compiler),
      };
      last = { host: ownCpuMs(), children };
      atAllWaiting = last;
    }, 5);
    // Whole seconds only, and only while no run can have finished yet.
    const perSecond = setInterval(() => {
      if (last === undefined || allWaiting === undefined) return;
      if (performance.now() - started + 1_000 > toolMs) return;
      const children = childrenCpuMs();
      const host = ownCpuMs();
      waitingSeconds.push({
        host: Math.round(host - last.host),
        sandbox: spent(last.children.sandbox, children.sandbox),
      });
      last = { host, children };
    }, 1_000);
    let id = 0;
    const results = await Promise.all(
      Array.from({ length: runs }, () =>
        bench.rt.execute({
          callId: `scaling-${(id += 1)}`,
          name: 'run_code',
          arguments: { description: 'bench', code: `return await tools.wait({ ms: ${toolMs}, safe: true })` },
        }),
      ),
    );
    const wallMs = performance.now() - started;
    const end = { host: ownCpuMs(), children: childrenCpuMs() };
    clearInterval(watch);
    clearInterval(perSecond);
    return {
      isolation,
      runs,
      poolSize: poolSize ?? 'default',
      toolMs,
      wallMs: Math.round(wallMs),
      failed: results.filter((r) => r.isError).length,
      allWaitingMs: allWaiting === undefined ? undefined : Math.round(allWaiting.ms),
      cpuMsPerRun:
        allWaiting === undefined
          ? undefined
          : {
              host: Number((allWaiting.host / runs).toFixed(2)),
              children: Number((allWaiting.children / runs).toFixed(2)),
            },
      mainThreadMsPerRun: allWaiting === undefined ? undefined : Number((allWaiting.mainThread / runs).toFixed(2)),
      afterAllWaitingCpuMsPerRun:
        atAllWaiting === undefined
          ? undefined
          : {
              host: Number(((end.host - atAllWaiting.host) / runs).toFixed(2)),
              sandbox: Number((spent(atAllWaiting.children.sandbox, end.children.sandbox) / runs).toFixed(2)),
            },
      waitingSeconds,
    };
  } finally {
    await bench.close();
  }
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  const isolation = process.argv[2] === 'in-process' ? 'in-process' : 'process';
  const runs = Number(process.argv[3] ?? 100);
  const pool = process.argv[4];
  const poolSize = pool === undefined || pool === 'default' ? undefined : Number(pool);
  const toolMs = Number(process.argv[5] ?? 1_000);
  process.stdout.write(`${JSON.stringify(await burstScaling(isolation, runs, poolSize, toolMs))}\n`);
  process.exit(0);
}
