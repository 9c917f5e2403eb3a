// Section 4: back-to-back run_code executions of the 1 KB / 3-call program, 1, 4 and 16
// in flight (runs per second, against the floor's sequential rate on one warm isolate),
// then RSS of the host and of the sandbox process across a long series of runs: the
// slope from run 1,000 to the end says whether anything grows per run.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KB_PROGRAM } from './bench-programs.ts';
import { createBenchRuntime, type BenchRuntime, type Isolation } from './bench-runtime.ts';
import { floorLookup } from './latency-bench.ts';
import { PhysicalFloor } from './physical-floor.ts';
import { childrenCpuMs, cpuMs, spent } from './proc-cpu.ts';
import { slope, summarize } from './stats.ts';

export { childrenCpuMs, spent };

export interface ThroughputResult {
  readonly isolation: Isolation;
  readonly inFlight: number;
  readonly runs: number;
  readonly runsPerSecond: number;
  /** Sequential floor runs per second (1000 / floor p50), measured between the samples. */
  readonly floorRunsPerSecond: number;
  readonly ratioToFloor: number;
  /** runsPerSecond / the 1-in-flight rate of the same mode. (Both medians of `rounds` samples.) */
  readonly scaling: number;
  /**
   * CPU time per run at this level, by process (from /proc, Linux only): this host, its
   * child processes (the sandbox processes and the esbuild service), and their sum.
   */
  readonly cpuMsPerRun?: { readonly host: number; readonly sandbox: number; readonly compiler: number };
  /** Cores of this machine (os.availableParallelism()). */
  readonly cores?: number;
}

export interface MemoryPoint {
  readonly runs: number;
  /** Host RSS right after a full GC of the host (the sandbox process cannot be collected from here). */
  readonly hostRssMb: number;
  /** Host JS heap in use after that GC: what a leak in the host's own objects would grow. */
  readonly hostHeapMb: number;
  /** Sandbox process VmRSS (process isolation only). */
  readonly childRssMb?: number;
}

export interface MemoryResult {
  readonly isolation: Isolation;
  readonly inFlight: number;
  readonly totalRuns: number;
  readonly points: readonly MemoryPoint[];
  /** Where the fit starts: 1,000 runs (half the series when it is shorter), past start-up growth. */
  readonly fitFromRuns: number;
  readonly hostRssAtFitFromMb: number;
  readonly hostRssAtEndMb: number;
  readonly childRssAtFitFromMb?: number;
  readonly childRssAtEndMb?: number;
  /** Least-squares slope from `fitFromRuns` on, in MiB per 1,000 runs. */
  readonly hostSlopeMbPer1k: number;
  readonly childSlopeMbPer1k?: number;
  /**
   * The same slope over the second half of the series only. V8 grows its heaps in
   * steps until they reach their working size; a leak keeps the slope up to the end.
   */
  readonly tailFromRuns: number;
  readonly hostTailSlopeMbPer1k: number;
  /** Slope of the host heap after GC, from `fitFromRuns`. */
  readonly hostHeapSlopeMbPer1k: number;
  readonly childTailSlopeMbPer1k?: number;
  readonly seconds: number;
}

export interface ThroughputOptions {
  readonly isolations?: readonly Isolation[];
  readonly inFlight?: readonly number[];
  /** Runs per throughput sample. @default 100 */
  readonly runsPerPoint?: number;
  /** Samples per level (median). @default 3 */
  readonly rounds?: number;
  readonly memoryIsolations?: readonly Isolation[];
  /** @default 10000 */
  readonly memoryRuns?: number;
  readonly memoryInFlight?: number;
  readonly sampleEvery?: number;
  readonly onProgress?: (text: string) => void;
}

/** VmRSS of a process in MiB, from /proc (undefined where /proc is not readable). */
export function processRssMb(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? undefined : Number(match[1]) / 1024;
  } catch {
    return undefined;
  }
}

/** A full GC of this process, so host RSS samples do not follow V8's lazy heap growth. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** Runs `total` programs with `inFlight` workers pulling from one counter; returns ms. */
async function runMany(bench: BenchRuntime, total: number, inFlight: number): Promise<number> {
  let started = 0;
  const begin = performance.now();
  const worker = async (): Promise<void> => {
    while (started < total) {
      started += 1;
      await bench.runCode(KB_PROGRAM);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return performance.now() - begin;
}

async function floorRate(floor: PhysicalFloor, runs: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) samples.push((await floor.run(KB_PROGRAM)).totalMs);
  return 1000 / summarize(samples).p50;
}

export async function runThroughputBench(
  options: ThroughputOptions = {},
): Promise<{ throughput: ThroughputResult[]; memory: MemoryResult[] }> {
  const isolations = options.isolations ?? ['process', 'in-process'];
  const levels = options.inFlight ?? [1, 4, 16];
  const runsPerPoint = options.runsPerPoint ?? 100;
  const rounds = options.rounds ?? 3;
  const throughput: ThroughputResult[] = [];
  const memory: MemoryResult[] = [];
  const floor = new PhysicalFloor({ lookup: floorLookup });
  try {
    for (const isolation of isolations) {
      const bench = createBenchRuntime({ isolation });
      try {
        await runMany(bench, 30, 4); // warm-up
        // Rounds interleave the levels and the floor, so a burst of load from elsewhere
        // on the machine does not land on one level only; each figure is a median.
        const rates = new Map<number, number[]>(levels.map((level) => [level, []]));
        const floors = new Map<number, number[]>(levels.map((level) => [level, []]));
        const cpu = new Map<number, { host: number; sandbox: number; compiler: number; runs: number }>();
        for (let round = 0; round < rounds; round += 1) {
          for (const inFlight of levels) {
            floors.get(inFlight)!.push(await floorRate(floor, 30));
            const hostBefore = cpuMs(process.pid);
            const childrenBefore = childrenCpuMs();
            const ms = await runMany(bench, runsPerPoint, inFlight);
            const childrenAfter = childrenCpuMs();
            const sum = cpu.get(inFlight) ?? { host: 0, sandbox: 0, compiler: 0, runs: 0 };
            cpu.set(inFlight, {
              host: sum.host + cpuMs(process.pid) - hostBefore,
              sandbox: sum.sandbox + spent(childrenBefore.sandbox, childrenAfter.sandbox),
              compiler: sum.compiler + spent(childrenBefore.compiler, childrenAfter.compiler),
              runs: sum.runs + runsPerPoint,
            });
            rates.get(inFlight)!.push((runsPerPoint * 1000) / ms);
          }
        }
        const single = summarize(rates.get(levels[0]!)!).p50;
        for (const inFlight of levels) {
          const runsPerSecond = summarize(rates.get(inFlight)!).p50;
          const floorRunsPerSecond = summarize(floors.get(inFlight)!).p50;
          const used = cpu.get(inFlight);
          throughput.push({
            isolation,
            inFlight,
            runs: runsPerPoint * rounds,
            runsPerSecond,
            floorRunsPerSecond,
            ratioToFloor: runsPerSecond / floorRunsPerSecond,
            scaling: runsPerSecond / single,
            cores: availableParallelism(),
            ...(used === undefined || used.host === 0
              ? {}
              : {
                  cpuMsPerRun: {
                    host: used.host / used.runs,
                    sandbox: used.sandbox / used.runs,
                    compiler: used.compiler / used.runs,
                  },
                }),
          });
        }
      } finally {
        await bench.close();
      }
    }
  } finally {
    floor.dispose();
  }

  const totalRuns = options.memoryRuns ?? 10_000;
  const inFlight = options.memoryInFlight ?? 4;
  const every = options.sampleEvery ?? 500;
  for (const isolation of options.memoryIsolations ?? ['process']) {
    const bench = createBenchRuntime({ isolation });
    try {
      const points: MemoryPoint[] = [];
      const sample = (runs: number): void => {
        collectGarbage();
        const pid = bench.childPid();
        const childRssMb = pid === undefined ? undefined : processRssMb(pid);
        const { rss, heapUsed } = process.memoryUsage();
        points.push({
          runs,
          hostRssMb: rss / 1_048_576,
          hostHeapMb: heapUsed / 1_048_576,
          ...(childRssMb === undefined ? {} : { childRssMb }),
        });
      };
      // Batches of `every` runs; each sample is taken with no run in flight and the pool
      // refilled, so samples compare like with like.
      let ms = 0;
      for (let done = 0; done < totalRuns; ) {
        const batch = Math.min(every, totalRuns - done);
        ms += await runMany(bench, batch, inFlight);
        done += batch;
        await new Promise((resolve) => setTimeout(resolve, 20));
        sample(done);
        if (done % (every * 4) === 0) options.onProgress?.(`memory (${isolation}): ${done}/${totalRuns} runs`);
      }
      const fitFromRuns = Math.min(1000, Math.floor(totalRuns / 2));
      const from1k = points.filter((p) => p.runs >= fitFromRuns);
      const at1k = from1k[0];
      const atEnd = points[points.length - 1];
      const tailFromRuns = Math.floor(totalRuns / 2);
      const tail = points.filter((p) => p.runs >= tailFromRuns);
      const fit = (of: readonly MemoryPoint[], pick: (p: MemoryPoint) => number | undefined): number =>
        slope(of.filter((p) => pick(p) !== undefined).map((p) => ({ x: p.runs / 1000, y: pick(p)! })));
      const hasChild = points.some((p) => p.childRssMb !== undefined);
      memory.push({
        isolation,
        inFlight,
        totalRuns,
        points,
        fitFromRuns,
        hostRssAtFitFromMb: at1k?.hostRssMb ?? Number.NaN,
        hostRssAtEndMb: atEnd?.hostRssMb ?? Number.NaN,
        ...(at1k?.childRssMb === undefined ? {} : { childRssAtFitFromMb: at1k.childRssMb }),
        ...(atEnd?.childRssMb === undefined ? {} : { childRssAtEndMb: atEnd.childRssMb }),
        hostSlopeMbPer1k: fit(from1k, (p) => p.hostRssMb),
        ...(hasChild ? { childSlopeMbPer1k: fit(from1k, (p) => p.childRssMb) } : {}),
        tailFromRuns,
        hostTailSlopeMbPer1k: fit(tail, (p) => p.hostRssMb),
        hostHeapSlopeMbPer1k: fit(from1k, (p) => p.hostHeapMb),
        ...(hasChild ? { childTailSlopeMbPer1k: fit(tail, (p) => p.childRssMb) } : {}),
        seconds: ms / 1000,
      });
    } finally {
      await bench.close();
    }
  }
  return { throughput, memory };
}
