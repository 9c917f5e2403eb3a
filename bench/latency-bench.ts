// Section 1: run_code latency end to end through rt.execute, for a trivial program and
// a 1 KB program with 3 nested calls, against the physical floor (physical-floor.ts)
// sampled interleaved with it in the same process. A short idle gap before each sample
// lets the isolate pool refill, as it does between a model's turns; the back-to-back
// rate is the throughput section's business. `return 1` is also set against the bare
// floor of a fresh isolate (new Isolate + context + eval), sampled in the same rounds.
import { setTimeout as sleep } from 'node:timers/promises';
import { KB_PROGRAM, TRIVIAL_PROGRAM } from './bench-programs.ts';
import { createBenchRuntime, type Isolation } from './bench-runtime.ts';
import { freshIsolateFloorMs, PhysicalFloor, type FloorSample } from './physical-floor.ts';
import { summarize, timeMs, type Summary } from './stats.ts';

export interface LatencyResult {
  readonly isolation: Isolation;
  readonly program: 'trivial' | 'kb';
  readonly programChars: number;
  readonly runtime: Summary;
  readonly floor: Summary;
  /** Floor components (p50, ms): esbuild.transform, new context + bridge, eval. */
  readonly floorParts: { readonly transformMs: number; readonly contextMs: number; readonly evalMs: number };
  readonly ratioP50: number;
  readonly ratioP90: number;
  /** `return 1` only: a bare fresh isolate, new Isolate + context + eval (physical-floor.ts), same rounds. */
  readonly freshIsolateFloor?: Summary;
}

export interface LatencyOptions {
  readonly isolations?: readonly Isolation[];
  readonly warmup?: number;
  readonly iterations?: number;
  readonly gapMs?: number;
}

/** The floor's bare `lookup`: the same record shape the bench tool returns. */
export const floorLookup = (argsJson: string): string => {
  const { id } = JSON.parse(argsJson) as { id: number };
  return JSON.stringify({
    id,
    name: `item-${id}`,
    score: (id * 37) % 100,
    tags: id % 2 === 0 ? ['even', 'bench'] : ['odd', 'bench'],
  });
};

export async function runLatencyBench(options: LatencyOptions = {}): Promise<LatencyResult[]> {
  const isolations = options.isolations ?? ['process', 'in-process'];
  const warmup = options.warmup ?? 20;
  const iterations = options.iterations ?? 150;
  const gapMs = options.gapMs ?? 5;
  const programs = [
    ['trivial', TRIVIAL_PROGRAM],
    ['kb', KB_PROGRAM],
  ] as const;
  const floor = new PhysicalFloor({ lookup: floorLookup });
  const results: LatencyResult[] = [];
  try {
    for (const isolation of isolations) {
      const bench = createBenchRuntime({ isolation });
      try {
        for (let i = 0; i < warmup; i += 1) {
          for (const [, code] of programs) {
            await bench.runCode(code);
            await floor.run(code);
          }
        }
        const rt = new Map<string, number[]>(programs.map(([name]) => [name, []]));
        const fl = new Map<string, FloorSample[]>(programs.map(([name]) => [name, []]));
        const fresh: number[] = [];
        for (let i = 0; i < iterations; i += 1) {
          for (const [name, code] of programs) {
            await sleep(gapMs);
            if (name === 'trivial') {
              fresh.push(await freshIsolateFloorMs());
              await sleep(gapMs);
            }
            fl.get(name)!.push(await floor.run(code));
            await sleep(gapMs);
            rt.get(name)!.push(await timeMs(() => bench.runCode(code)));
          }
        }
        for (const [name, code] of programs) {
          const floorSamples = fl.get(name)!;
          const runtime = summarize(rt.get(name)!);
          const floorSummary = summarize(floorSamples.map((s) => s.totalMs));
          results.push({
            isolation,
            program: name,
            programChars: code.length,
            runtime,
            floor: floorSummary,
            floorParts: {
              transformMs: summarize(floorSamples.map((s) => s.transformMs)).p50,
              contextMs: summarize(floorSamples.map((s) => s.contextMs)).p50,
              evalMs: summarize(floorSamples.map((s) => s.evalMs)).p50,
            },
            ratioP50: runtime.p50 / floorSummary.p50,
            ratioP90: runtime.p90 / floorSummary.p90,
            ...(name === 'trivial' ? { freshIsolateFloor: summarize(fresh) } : {}),
          });
        }
      } finally {
        await bench.close();
      }
    }
  } finally {
    floor.dispose();
  }
  return results;
}
