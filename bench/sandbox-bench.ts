// Sandbox benchmark: run latency (cold vs pooled), compile time, per-call bridge
// overhead, and RSS over 1,000 runs, each beside a baseline measured in the same
// process: bare isolated-vm (a context on a warm isolate + eval) and bare
// esbuild.transform. Run: node --no-node-snapshot bench/sandbox-bench.ts
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import ivm from 'isolated-vm';
import { compileProgram, createSandbox, InProcessSandbox } from '../sandbox/index.ts';
import type { HostCall, Sandbox } from '../sandbox/types.ts';
import { summarize } from './stats.ts';

interface Stats {
  readonly median: number;
  readonly p90: number;
  readonly samples: number;
}

export interface BenchRow {
  readonly metric: string;
  readonly unit: string;
  readonly ptc: Stats;
  readonly baseline: Stats;
  readonly baselineName: string;
  /** ptc median / baseline median. */
  readonly ratio: number;
}

const now = (): number => performance.now();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function stats(values: number[]): Stats {
  const { p50, p90, n } = summarize(values);
  return { median: p50, p90, samples: n };
}

async function sample(times: number, fn: () => Promise<number>, between?: () => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < times; i++) {
    out.push(await fn());
    if (between) await between();
  }
  return out;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = now();
  await fn();
  return now() - start;
}

const echo: HostCall = (request) => Promise.resolve({ ok: true, valueJson: request.argsJson });

function row(metric: string, unit: string, ptc: number[], baselineName: string, baseline: number[]): BenchRow {
  const a = stats(ptc);
  const b = stats(baseline);
  return { metric, unit, ptc: a, baseline: b, baselineName, ratio: a.median / b.median };
}

/** A model-style program of about `bytes` bytes. */
function programOfSize(bytes: number): string {
  const chunk = [
    'interface Item { id: number; name: string; tags: string[] }',
    'const items: Item[] = await tools.search({ query: "report", limit: 20 }) as Item[];',
    'const byTag = new Map<string, number>();',
    'for (const item of items) { for (const tag of item.tags) byTag.set(tag, (byTag.get(tag) ?? 0) + 1); }',
    'console.log(`found ${items.length} items`, Object.fromEntries(byTag));',
  ].join('\n');
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const block = `{\n${chunk.replaceAll('items', `items${i}`).replaceAll('byTag', `byTag${i}`)}\n}\n`;
    parts.push(block);
    size += block.length;
  }
  return `${parts.join('')}return 1;`;
}

// ---- baselines: bare isolated-vm ---------------------------------------------------

async function bareWarmRun(isolate: ivm.Isolate): Promise<number> {
  return timed(async () => {
    const context = await isolate.createContext();
    await context.eval('1 + 1');
    context.release();
  });
}

async function bareColdRun(): Promise<number> {
  return timed(async () => {
    const isolate = new ivm.Isolate({ memoryLimit: 128 });
    const context = await isolate.createContext();
    await context.eval('1 + 1');
    isolate.dispose();
  });
}

/** The usual isolated-vm bridge: a host function reached through Reference.apply with a promise result. */
async function bareCalls(isolate: ivm.Isolate, concurrent: boolean): Promise<number> {
  const context = await isolate.createContext();
  await context.global.set('__call', new ivm.Reference((json: string) => Promise.resolve(json)));
  const body = concurrent
    ? 'await Promise.all(Array.from({ length: 1000 }, (_, i) => __call.apply(undefined, [JSON.stringify({ i })], { arguments: { copy: true }, result: { promise: true, copy: true } })));'
    : 'for (let i = 0; i < 1000; i++) await __call.apply(undefined, [JSON.stringify({ i })], { arguments: { copy: true }, result: { promise: true, copy: true } });';
  const elapsed = await timed(() => context.eval(`(async () => { ${body} })()`, { promise: true }));
  context.release();
  return elapsed / 1000;
}

function rssMb(pid?: number): number {
  if (pid === undefined) return process.memoryUsage().rss / 1_048_576;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

// ---- the benchmark -----------------------------------------------------------------

export interface SandboxBenchOptions {
  /** Samples per latency figure. @default 40 */
  readonly iterations?: number;
  /** Runs in the RSS figure. @default 1000 */
  readonly rssRuns?: number;
}

export async function runSandboxBench(options: SandboxBenchOptions = {}): Promise<Record<string, unknown>> {
  const iterations = options.iterations ?? 40;
  const rssRuns = options.rssRuns ?? 1000;
  const rows: BenchRow[] = [];
  const trivial = { code: 'return 1;', toolNames: [], hostCall: echo };
  const warmIsolate = new ivm.Isolate({ memoryLimit: 128 });
  await bareWarmRun(warmIsolate); // JIT warm-up

  // Compile: bare esbuild.transform of the same text vs compileProgram.
  for (const [label, bytes] of [
    ['1 KB', 1024],
    ['20 KB', 20 * 1024],
  ] as const) {
    const code = programOfSize(bytes);
    // The bare baseline transforms the same body in a minimal async wrapper.
    const bareText = `(async () => {\n${code}\n})();`;
    await compileProgram(code);
    await transform(bareText, { loader: 'ts' });
    const ptc = await sample(iterations, () => timed(() => compileProgram(code)));
    const bare = await sample(iterations, () => timed(() => transform(bareText, { loader: 'ts' })));
    rows.push(row(`compile ${label} program`, 'ms', ptc, 'esbuild.transform', bare));
  }

  const baselineCold = await sample(iterations, bareColdRun);
  const baselineWarm = await sample(iterations, () => bareWarmRun(warmIsolate));
  const baselineSeq = await sample(5, () => bareCalls(warmIsolate, false));
  const baselineConc = await sample(5, () => bareCalls(warmIsolate, true));

  for (const isolation of ['in-process', 'process'] as const) {
    // Cold: no pool, every run creates its isolate (and evaluates the prelude).
    const cold = createSandbox({ isolation, poolSize: 0 });
    await cold.run(trivial);
    const coldSamples = await sample(iterations, () => timed(() => cold.run(trivial)));
    await cold.close();
    rows.push(
      row(`${isolation}: trivial run, cold isolate`, 'ms', coldSamples, 'new Isolate + context + eval', baselineCold),
    );

    // Pooled: a pre-warmed isolate is ready for every run (pause lets the pool refill).
    const pooled = createSandbox({ isolation, poolSize: 2 });
    await pooled.run(trivial);
    await sleep(200);
    const refill = async (): Promise<void> => {
      if (pooled instanceof InProcessSandbox) await pooled.warm();
      else await sleep(30);
    };
    const pooledSamples = await sample(iterations, () => timed(() => pooled.run(trivial)), refill);
    rows.push(
      row(
        `${isolation}: trivial run, pooled isolate`,
        'ms',
        pooledSamples,
        'context on warm isolate + eval',
        baselineWarm,
      ),
    );

    // Bridge: 1,000 calls that return at once, sequential and concurrent.
    const limits = { maxCalls: 2000, maxConcurrentCalls: 1000 };
    const seqCode = 'for (let i = 0; i < 1000; i++) await tools.a({ i }); return 1;';
    const concCode = 'await Promise.all(Array.from({ length: 1000 }, (_, i) => tools.a({ i }))); return 1;';
    const perCall = (code: string) => async (): Promise<number> =>
      (await timed(() => pooled.run({ code, toolNames: ['a'], hostCall: echo, limits }))) / 1000;
    const seq = await sample(5, perCall(seqCode), refill);
    rows.push(
      row(`${isolation}: per call, 1,000 sequential`, 'ms', seq, 'Reference.apply, promise result', baselineSeq),
    );
    const conc = await sample(5, perCall(concCode), refill);
    rows.push(
      row(`${isolation}: per call, 1,000 concurrent`, 'ms', conc, 'Reference.apply, promise result', baselineConc),
    );
    await pooled.close();
  }

  // RSS over 1,000 runs: growth between run 100 and run 1,000 (host, and the sandbox process).
  const rss: Record<string, unknown> = {};
  {
    const bare: number[] = [];
    for (let i = 0; i < rssRuns; i++) {
      await bareColdRun();
      if (i === 99 || i === rssRuns - 1) bare.push(rssMb());
    }
    rss['bare isolated-vm (new isolate per run), host MiB at 100 / end'] = bare.map(round);
    for (const isolation of ['in-process', 'process'] as const) {
      const sandbox: Sandbox = createSandbox({ isolation, poolSize: 2 });
      const points: number[] = [];
      const childPoints: number[] = [];
      for (let i = 0; i < rssRuns; i++) {
        await sandbox.run({
          code: 'console.log("x"); return (await tools.a({ i: 1 })).i;',
          toolNames: ['a'],
          hostCall: echo,
        });
        if (i === 99 || i === rssRuns - 1) {
          points.push(rssMb());
          const pid = (sandbox as { childPid?: number }).childPid;
          if (pid !== undefined) childPoints.push(rssMb(pid));
        }
      }
      rss[`${isolation}: host MiB at 100 / end`] = points.map(round);
      if (childPoints.length > 0) rss[`${isolation}: sandbox process MiB at 100 / end`] = childPoints.map(round);
      await sandbox.close();
    }
  }
  warmIsolate.dispose();
  return { rows, rss, rssRuns, iterations, node: process.version };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function printTable(result: Record<string, unknown>): void {
  const rows = result['rows'] as BenchRow[];
  const fmt = (value: number): string => (value < 1 ? value.toFixed(3) : value.toFixed(2));
  const lines = [
    '| metric | ptc median | ptc p90 | baseline | baseline median | baseline p90 | ratio |',
    '|---|---:|---:|---|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.metric} (${r.unit}) | ${fmt(r.ptc.median)} | ${fmt(r.ptc.p90)} | ${r.baselineName} | ${fmt(r.baseline.median)} | ${fmt(r.baseline.p90)} | ${r.ratio.toFixed(1)}x |`,
    ),
  ];
  console.log(lines.join('\n'));
  console.log(`\nRSS over ${String(result['rssRuns'])} runs (MiB at run 100 / at the end):`);
  for (const [key, value] of Object.entries(result['rss'] as Record<string, unknown>))
    console.log(`- ${key}: ${JSON.stringify(value)}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runSandboxBench();
  printTable(result);
}
