// Type feedback's cost: run_code latency of the ~1 KB program with typecheck 'warn'
// (the check runs before every run, in the worker) against 'off', interleaved, after a
// warm-up; and the first check (TypeScript loading in the worker). Process isolation.
// Run alone: node --no-node-snapshot bench/typecheck-bench.ts
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSandbox } from '../sandbox/index.ts';
import { createToolRuntime } from '../src/index.ts';
import type { ToolRuntime } from '../src/runtime/create-tool-runtime.ts';
import { KB_PROGRAM } from './bench-programs.ts';
import { benchTools } from './bench-runtime.ts';
import { summarize, timeMs, type Summary } from './stats.ts';

export interface TypecheckBenchResult {
  readonly programChars: number;
  /** The first run with typecheck on: TypeScript loads in the worker. */
  readonly firstRunMs: number;
  readonly off: Summary;
  readonly warn: Summary;
  /** warn p50 − off p50: what the check adds to one run after warm-up. */
  readonly addedP50Ms: number;
  readonly addedP90Ms: number;
}

export async function runTypecheckBench(
  options: { readonly warmup?: number; readonly iterations?: number } = {},
): Promise<TypecheckBenchResult> {
  const warmup = options.warmup ?? 10;
  const iterations = options.iterations ?? 60;
  const sandbox = createSandbox({ isolation: 'process' });
  const make = (typecheck: 'off' | 'warn'): ToolRuntime => {
    const rt = createToolRuntime({ mode: 'ptc', sandbox, typecheck });
    for (const tool of benchTools()) rt.register(tool);
    return rt;
  };
  const off = make('off');
  const warn = make('warn');
  let id = 0;
  const run = async (rt: ToolRuntime): Promise<void> => {
    const result = await rt.execute({
      callId: `tc-${++id}`,
      name: 'run_code',
      arguments: { description: 'bench', code: KB_PROGRAM },
    });
    if (result.isError) throw new Error(`typecheck bench: run failed: ${result.error?.message}`);
  };
  try {
    await run(off);
    const firstRunMs = await timeMs(() => run(warn));
    for (let i = 0; i < warmup; i += 1) {
      await run(off);
      await run(warn);
    }
    const offSamples: number[] = [];
    const warnSamples: number[] = [];
    for (let i = 0; i < iterations; i += 1) {
      await sleep(5);
      offSamples.push(await timeMs(() => run(off)));
      await sleep(5);
      warnSamples.push(await timeMs(() => run(warn)));
    }
    const offSummary = summarize(offSamples);
    const warnSummary = summarize(warnSamples);
    return {
      programChars: KB_PROGRAM.length,
      firstRunMs,
      off: offSummary,
      warn: warnSummary,
      addedP50Ms: warnSummary.p50 - offSummary.p50,
      addedP90Ms: warnSummary.p90 - offSummary.p90,
    };
  } finally {
    await off.close();
    await warn.close();
    await sandbox.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await runTypecheckBench();
  console.log(
    `typecheck: ${r.programChars}-char program, first run with the check ${r.firstRunMs.toFixed(0)} ms (TypeScript loads)`,
  );
  console.log(
    `typecheck: off p50 ${r.off.p50.toFixed(2)} ms / p90 ${r.off.p90.toFixed(2)}; warn p50 ${r.warn.p50.toFixed(2)} ms / p90 ${r.warn.p90.toFixed(2)}; added p50 ${r.addedP50Ms.toFixed(2)} ms`,
  );
}
