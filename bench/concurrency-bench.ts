// Section 3: 100 calls to a tool that waits 10 ms, issued at once with Promise.all
// inside one run_code program. Concurrency-safe calls overlap up to the nested
// concurrency limit (SandboxLimits.maxConcurrentCalls, default 10): ideal
// ceil(100 / limit) × 10 ms. Exclusive calls must serialize: ideal 100 × 10 ms, and
// never more than one in flight. The same 100 calls as one model turn
// (rt.executeTurn, pool of `concurrency`, default 8) for comparison.
import { DEFAULT_LIMITS } from '../sandbox/index.ts';
import { DEFAULT_CONCURRENCY } from '../src/index.ts';
import { waitAllProgram } from './bench-programs.ts';
import { createBenchRuntime, waitGauge, type Isolation } from './bench-runtime.ts';
import { summarize, timeMs, type Summary } from './stats.ts';

export interface ConcurrencyResult {
  readonly path: 'run_code' | 'executeTurn';
  readonly isolation: Isolation;
  readonly mode: 'concurrency-safe' | 'exclusive';
  readonly calls: number;
  readonly waitMs: number;
  readonly limit: number;
  readonly wallMs: Summary;
  readonly idealMs: number;
  readonly ratioP50: number;
  /** Most calls seen running at once (must be 1 for exclusive calls). */
  readonly maxInFlight: number;
}

export interface ConcurrencyOptions {
  readonly isolation?: Isolation;
  readonly safeIterations?: number;
  readonly exclusiveIterations?: number;
}

const CALLS = 100;
const WAIT_MS = 10;

export async function runConcurrencyBench(options: ConcurrencyOptions = {}): Promise<ConcurrencyResult[]> {
  const isolation = options.isolation ?? 'process';
  const bench = createBenchRuntime({ isolation });
  const results: ConcurrencyResult[] = [];
  try {
    const cases = [
      { mode: 'concurrency-safe', safe: true, iterations: options.safeIterations ?? 7 },
      { mode: 'exclusive', safe: false, iterations: options.exclusiveIterations ?? 3 },
    ] as const;
    let turnId = 0;
    const paths = [
      {
        path: 'run_code',
        limit: DEFAULT_LIMITS.maxConcurrentCalls,
        run: (safe: boolean) => bench.runCode(waitAllProgram(CALLS, WAIT_MS, safe)),
      },
      {
        path: 'executeTurn',
        limit: DEFAULT_CONCURRENCY,
        run: async (safe: boolean) => {
          const calls = Array.from({ length: CALLS }, () => ({
            callId: `turn-${(turnId += 1)}`,
            name: 'wait',
            arguments: { ms: WAIT_MS, safe },
          }));
          const { results: turn } = await bench.rt.executeTurn(calls);
          if (turn.some((r) => r.isError)) throw new Error('bench: a turn call failed');
        },
      },
    ] as const;
    for (const { path, limit, run } of paths) {
      await run(true); // warm-up
      for (const { mode, safe, iterations } of cases) {
        waitGauge.reset();
        const samples: number[] = [];
        for (let i = 0; i < iterations; i += 1) samples.push(await timeMs(() => run(safe)));
        const wallMs = summarize(samples);
        const idealMs = safe ? Math.ceil(CALLS / limit) * WAIT_MS : CALLS * WAIT_MS;
        results.push({
          path,
          isolation,
          mode,
          calls: CALLS,
          waitMs: WAIT_MS,
          limit: safe ? limit : 1,
          wallMs,
          idealMs,
          ratioP50: wallMs.p50 / idealMs,
          maxInFlight: waitGauge.maxInFlight,
        });
      }
    }
  } finally {
    await bench.close();
  }
  return results;
}
