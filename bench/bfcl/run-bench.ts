// The whole benchmark over a dataset: every entry natively and through run_code, each on
// its own runtime, with the scripted oracles or a live model; totals per category.
import { createToolRuntime } from '../../src/index.ts';
import type { Dataset, Entry } from './data.ts';
import type { TurnModel } from './model.ts';
import { DeferredNativeOracle, DeferredPtcOracle, NativeOracle, ParallelNativeOracle, PtcOracle } from './oracle.ts';
import { type Aggregate, aggregate, type EntryRuns } from './report.ts';
import { MAX_STEPS, methodIndex, type RunContext, runEntry } from './run-entry.ts';
import { buildTools, type Session } from './tools.ts';

export interface BenchOptions {
  /** A live model for each mode and entry (default: the scripted oracles). */
  readonly model?: (mode: LiveMode) => TurnModel;
  readonly onProgress?: (done: number, total: number) => void;
  /** Also run over `deferLoading` tools: native with tool search, and run_code (scripted oracles only). @default true */
  readonly deferred?: boolean;
}

/** The modes a live model runs in (the deferred-tools runs are scripted only). */
export type LiveMode = 'native' | 'nativeParallel' | 'ptc';

export interface BenchReport extends Aggregate {
  readonly categories: Readonly<Record<string, Aggregate>>;
  readonly failures: readonly {
    readonly id: string;
    readonly mode: 'native' | 'nativeParallel' | 'nativeDeferred' | 'ptc' | 'ptcDeferred';
    readonly failure: string;
  }[];
}

export async function runBenchmark(
  dataset: Dataset,
  entries: readonly Entry[],
  options: BenchOptions = {},
): Promise<BenchReport> {
  const index = methodIndex(dataset.docs);
  const context = (mode: 'native' | 'ptc', deferLoading = false): RunContext => {
    const session: Session = { envs: new Map(), results: [] };
    return {
      rt: createToolRuntime(mode === 'native' ? { mode, sandbox: false } : { mode }),
      ...(mode === 'native' && deferLoading ? { toolSearch: true } : {}),
      tools: buildTools(dataset.docs, session, { deferLoading }),
      session,
      dataset,
      index,
    };
  };
  // The scripted native oracle sends one call per request, and two long-context turns hold
  // more calls than upstream's 20-step limit, which is there to stop a looping live model.
  const steps = { maxSteps: options.model === undefined ? Number.POSITIVE_INFINITY : MAX_STEPS };
  const native = context('native');
  // A live model runs nativeParallel with the provider's parallel calls allowed, native with them off.
  const parallel = context('native');
  const ptc = context('ptc');
  // Deferred tools are measured with the scripted oracles only.
  const measureDeferred = options.model === undefined && options.deferred !== false;
  const nativeDeferred = measureDeferred ? context('native', true) : undefined;
  const deferred = measureDeferred ? context('ptc', true) : undefined;
  const runs: (EntryRuns & { category: string })[] = [];
  try {
    for (const [i, entry] of entries.entries()) {
      runs.push({
        category: entry.category,
        native: await runEntry(native, entry, options.model?.('native') ?? new NativeOracle(), steps),
        nativeParallel: await runEntry(
          parallel,
          entry,
          options.model?.('nativeParallel') ?? new ParallelNativeOracle(),
          steps,
        ),
        ...(nativeDeferred === undefined
          ? {}
          : { nativeDeferred: await runEntry(nativeDeferred, entry, new DeferredNativeOracle(), steps) }),
        ptc: await runEntry(ptc, entry, options.model?.('ptc') ?? new PtcOracle(), steps),
        ...(deferred === undefined
          ? {}
          : { ptcDeferred: await runEntry(deferred, entry, new DeferredPtcOracle(), steps) }),
      });
      options.onProgress?.(i + 1, entries.length);
    }
  } finally {
    await Promise.all([
      native.rt.close(),
      parallel.rt.close(),
      nativeDeferred?.rt.close(),
      ptc.rt.close(),
      deferred?.rt.close(),
    ]);
  }
  const categories: Record<string, Aggregate> = {};
  for (const c of new Set(runs.map((r) => r.category))) categories[c] = aggregate(runs.filter((r) => r.category === c));
  const failures = runs.flatMap((r) =>
    (['native', 'nativeParallel', 'nativeDeferred', 'ptc', 'ptcDeferred'] as const).flatMap((mode) => {
      const run = r[mode];
      return run === undefined || run.passed ? [] : [{ id: run.id, mode, failure: run.failure ?? '' }];
    }),
  );
  return { ...aggregate(runs), categories, failures };
}
