// Section 2: the cost of one nested call. A program making 1,000 sequential calls to
// the trivial `noop` tool (its run time less a trivial run's, per call) against 1,000
// direct rt.execute calls of the same tool (the pipeline's own cost), the bare
// transports it crosses (bare-round-trips.ts) and the host side alone (host-side-bench.ts).
// In-process also a medium program (16 calls) with the placement of its blocking streak
// on against off, in alternated pairs: what the placement's sampling costs such a program.
import { bareIpcRoundTripUs, bareIsolateRoundTripUs } from './bare-round-trips.ts';
import { CROSSING_FLOORS, type CrossingDesign } from './crossing-floors.ts';
import { createHostSideBench } from './host-side-bench.ts';
import {
  MEDIUM_STREAK_CALLS,
  MEDIUM_STREAK_PROGRAM,
  NESTED_CALLS,
  NESTED_CALLS_PROGRAM,
  TRIVIAL_PROGRAM,
} from './bench-programs.ts';
import { InProcessSandbox } from '../sandbox/index.ts';
import { type BenchRuntime, createBenchRuntime, type Isolation } from './bench-runtime.ts';
import { summarize, timeMs, type Summary } from './stats.ts';

export interface NestedCallResult {
  readonly isolation: Isolation;
  /** Microseconds per nested call. */
  readonly nestedUs: Summary;
  /** Microseconds per direct rt.execute call. */
  readonly directUs: Summary;
  /** Microseconds per bare isolated-vm host round trip. */
  readonly bareIsolateUs: Summary;
  /** Microseconds per bare IPC round trip (process isolation only). */
  readonly bareIpcUs?: Summary;
  /** The same nested call with `blockingCalls: false` (every call asynchronous: the design before), interleaved. */
  readonly asyncNestedUs?: Summary;
  /** Microseconds per HostCall driven from plain JS: the host side alone (absent in runs before it was measured). */
  readonly hostSideUs?: Summary;
  /**
   * Bare floor (crossing-floors.ts, µs per call, no pipeline) of the design the sandbox
   * uses for a call the program awaits alone, and the lowest of any design tried for this
   * isolation (absent in runs before they were measured).
   */
  readonly designFloorUs?: Summary;
  readonly lowestFloorUs?: Summary;
  readonly designFloor?: string;
  readonly lowestFloor?: string;
  /** In-process: MEDIUM_STREAK_PROGRAM's run (ms) with the placement on and off, alternated pairs. */
  readonly mediumStreak?: MediumStreakResult;
  /** 2 × direct + bare isolate round trip (+ bare IPC in process isolation), at p50. */
  readonly budgetUs: number;
  readonly ratioToBudget: number;
}

export interface MediumStreakResult {
  readonly calls: number;
  readonly placedMs: Summary;
  readonly unplacedMs: Summary;
  /** Each pair's placed less unplaced run. */
  readonly differenceMs: Summary;
}

/** Pairs of medium-program runs per iteration (a run is a few ms: the pairs are cheap, and many). */
const MEDIUM_STREAK_PAIRS = 15;

/**
 * One run's time, the pool refilled first: in-process the isolate that replaces the last
 * run's is made on this thread (~3 ms), which would land in a run of a few ms at random.
 */
async function timeSettled(bench: BenchRuntime, code: string): Promise<number> {
  if (bench.sandbox instanceof InProcessSandbox) await bench.sandbox.warm();
  return timeMs(() => bench.runCode(code));
}

export interface NestedCallOptions {
  readonly isolations?: readonly Isolation[];
  readonly iterations?: number;
}

export async function runNestedCallBench(options: NestedCallOptions = {}): Promise<NestedCallResult[]> {
  const isolations = options.isolations ?? ['process', 'in-process'];
  const iterations = options.iterations ?? 7;
  const results: NestedCallResult[] = [];
  for (const isolation of isolations) {
    const design: CrossingDesign = isolation === 'process' ? 'process-blocking-read' : 'in-process-blocking';
    const lowest: CrossingDesign = isolation === 'process' ? 'process-inline-read' : 'in-process-blocking';
    const bench = createBenchRuntime({ isolation });
    const asyncBench = createBenchRuntime({ isolation, blockingCalls: false });
    const hostSide = createHostSideBench();
    const unplaced =
      isolation === 'in-process' ? createBenchRuntime({ isolation, placeBlockingStreaks: false }) : undefined;
    try {
      const direct = async (): Promise<void> => {
        for (let n = 0; n < NESTED_CALLS; n += 1) await bench.execute('noop', { n });
      };
      // Warm-up: every path once (JIT, esbuild service, pool).
      await bench.runCode(NESTED_CALLS_PROGRAM);
      await asyncBench.runCode(NESTED_CALLS_PROGRAM);
      await direct();
      await hostSide.perCallUs();
      await unplaced?.runCode(MEDIUM_STREAK_PROGRAM);
      const placedMedium: number[] = [];
      const unplacedMedium: number[] = [];
      const mediumDifferences: number[] = [];
      const nested: number[] = [];
      const directs: number[] = [];
      const trivials: number[] = [];
      const bareIsolate: number[] = [];
      const bareIpc: number[] = [];
      const hostSides: number[] = [];
      const asyncNested: number[] = [];
      const asyncTrivials: number[] = [];
      const designFloors: number[] = [];
      const lowestFloors: number[] = [];
      for (let i = 0; i < iterations; i += 1) {
        trivials.push(await timeMs(() => bench.runCode(TRIVIAL_PROGRAM)));
        nested.push(await timeMs(() => bench.runCode(NESTED_CALLS_PROGRAM)));
        asyncTrivials.push(await timeMs(() => asyncBench.runCode(TRIVIAL_PROGRAM)));
        asyncNested.push(await timeMs(() => asyncBench.runCode(NESTED_CALLS_PROGRAM)));
        directs.push(((await timeMs(direct)) * 1000) / NESTED_CALLS);
        bareIsolate.push(await bareIsolateRoundTripUs(NESTED_CALLS));
        if (isolation === 'process') bareIpc.push(await bareIpcRoundTripUs(NESTED_CALLS));
        hostSides.push(await hostSide.perCallUs());
        designFloors.push(await CROSSING_FLOORS[design].measure());
        if (lowest !== design) lowestFloors.push(await CROSSING_FLOORS[lowest].measure());
        for (let pair = 0; unplaced !== undefined && pair < MEDIUM_STREAK_PAIRS; pair += 1) {
          // Alternated order: neither side always runs right after the other's run.
          const placedFirst = pair % 2 === 0;
          const first = await timeSettled(placedFirst ? bench : unplaced, MEDIUM_STREAK_PROGRAM);
          const second = await timeSettled(placedFirst ? unplaced : bench, MEDIUM_STREAK_PROGRAM);
          const [placedMs, unplacedMs] = placedFirst ? [first, second] : [second, first];
          placedMedium.push(placedMs);
          unplacedMedium.push(unplacedMs);
          mediumDifferences.push(placedMs - unplacedMs);
        }
      }
      const trivialMs = summarize(trivials).p50;
      const nestedUs = summarize(nested.map((ms) => ((ms - trivialMs) * 1000) / NESTED_CALLS));
      const asyncTrivialMs = summarize(asyncTrivials).p50;
      const asyncNestedUs = summarize(asyncNested.map((ms) => ((ms - asyncTrivialMs) * 1000) / NESTED_CALLS));
      const directUs = summarize(directs);
      const bareIsolateUs = summarize(bareIsolate);
      const bareIpcUs = isolation === 'process' ? summarize(bareIpc) : undefined;
      const budgetUs = 2 * directUs.p50 + bareIsolateUs.p50 + (bareIpcUs?.p50 ?? 0);
      results.push({
        isolation,
        nestedUs,
        directUs,
        bareIsolateUs,
        ...(bareIpcUs === undefined ? {} : { bareIpcUs }),
        hostSideUs: summarize(hostSides),
        asyncNestedUs,
        designFloorUs: summarize(designFloors),
        lowestFloorUs: summarize(lowest === design ? designFloors : lowestFloors),
        designFloor: CROSSING_FLOORS[design].label,
        lowestFloor: CROSSING_FLOORS[lowest].label,
        budgetUs,
        ratioToBudget: nestedUs.p50 / budgetUs,
        ...(unplaced === undefined
          ? {}
          : {
              mediumStreak: {
                calls: MEDIUM_STREAK_CALLS,
                placedMs: summarize(placedMedium),
                unplacedMs: summarize(unplacedMedium),
                differenceMs: summarize(mediumDifferences),
              },
            }),
      });
    } finally {
      await Promise.all([bench.close(), asyncBench.close(), hostSide.close(), unplaced?.close()]);
    }
  }
  return results;
}
