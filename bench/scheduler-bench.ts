// The scheduler's cost per call: one turn of N trivial calls through rt.executeTurn
// (concurrency-safe calls through the p-queue pool, and exclusive calls as barriers)
// against a plain sequential loop of rt.execute. Median of several runs. Figures
// only; no test depends on them.
// Run: node --no-node-snapshot bench/scheduler-bench.ts
import { pathToFileURL } from 'node:url';
import { createToolRuntime, defineTool } from '../src/index.ts';
import type { ToolRuntime } from '../src/runtime/create-tool-runtime.ts';
import { summarize } from './stats.ts';

export interface SchedulerBenchReport {
  readonly callsPerRun: number;
  readonly runs: number;
  /** Median microseconds per call. */
  readonly sequentialUs: number;
  readonly turnParallelUs: number;
  readonly turnExclusiveUs: number;
  /** turn / sequential, per call. */
  readonly parallelRatio: number;
  readonly exclusiveRatio: number;
  /** Extra microseconds per call the pool adds over the sequential loop. */
  readonly parallelOverheadUs: number;
}

const median = (values: readonly number[]): number => summarize(values).p50;

function benchRuntime(): ToolRuntime {
  const rt = createToolRuntime({ sandbox: false, concurrency: 8 });
  rt.register(
    defineTool({
      name: 'noop',
      description: 'Returns its number.',
      parameters: { n: { type: 'integer', required: true }, safe: { type: 'boolean', required: true } },
      output: { schema: { type: 'integer' }, render: (_args, value) => [{ type: 'text', text: String(value) }] },
      isConcurrencySafe: (args) => args.safe,
      execute: (args) => args.n,
    }),
  );
  return rt;
}

export async function runSchedulerBench(
  options: { readonly calls?: number; readonly runs?: number } = {},
): Promise<SchedulerBenchReport> {
  const callsPerRun = options.calls ?? 1000;
  const runs = options.runs ?? 9;
  const rt = benchRuntime();
  let id = 0;
  const batch = (safe: boolean) =>
    Array.from({ length: callsPerRun }, (_, n) => ({ callId: `c${(id += 1)}`, name: 'noop', arguments: { n, safe } }));

  const time = async (run: () => Promise<void>): Promise<number> => {
    const start = performance.now();
    await run();
    return ((performance.now() - start) * 1000) / callsPerRun;
  };
  const sequential = async (): Promise<void> => {
    for (const call of batch(true)) await rt.execute(call);
  };
  const turn = (safe: boolean) => async (): Promise<void> => {
    const { results } = await rt.executeTurn(batch(safe));
    if (results.length !== callsPerRun || results.some((r) => r.isError)) throw new Error('bench: a call failed');
  };

  // Warm up every path once, then interleave the measured runs.
  await time(sequential);
  await time(turn(true));
  await time(turn(false));
  const seq: number[] = [];
  const par: number[] = [];
  const exc: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    seq.push(await time(sequential));
    par.push(await time(turn(true)));
    exc.push(await time(turn(false)));
  }
  const sequentialUs = median(seq);
  const turnParallelUs = median(par);
  const turnExclusiveUs = median(exc);
  return {
    callsPerRun,
    runs,
    sequentialUs,
    turnParallelUs,
    turnExclusiveUs,
    parallelRatio: turnParallelUs / sequentialUs,
    exclusiveRatio: turnExclusiveUs / sequentialUs,
    parallelOverheadUs: turnParallelUs - sequentialUs,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await runSchedulerBench();
  const f = (n: number): string => n.toFixed(1);
  console.log(`scheduler: ${r.callsPerRun} trivial calls per turn, median of ${r.runs} runs`);
  console.log(`  sequential rt.execute loop:        ${f(r.sequentialUs)} µs/call`);
  console.log(
    `  executeTurn, concurrency-safe:     ${f(r.turnParallelUs)} µs/call  (x${r.parallelRatio.toFixed(2)}, ${f(r.parallelOverheadUs)} µs/call overhead)`,
  );
  console.log(
    `  executeTurn, exclusive (barriers): ${f(r.turnExclusiveUs)} µs/call  (x${r.exclusiveRatio.toFixed(2)})`,
  );
}
