// `npm run bench`: every figure of issue 7 in one run, each against a baseline measured
// in the same run on the same machine (a shared machine is noisy; ratios survive).
//   --json          one JSON object on stdout (progress goes to stderr either way)
//   --markdown      the table as Markdown (as in the README's Performance section)
//   --quick         fewer iterations and 1,000 instead of 10,000 memory runs (a smoke run)
//   --only=a,b      sections: latency, nested, sandbox, concurrency, throughput, peers, context, typecheck, capacity, python
//   --no-peer-install  peers: do not install the UTCP peer when absent (bench/peers/install-utcp.sh;
//                   Node 22 + @utcp/code-mode into .tools/peers/utcp/ from the npm registry, ~30 s once)
// Run: npm run bench [-- --json]   (node --no-node-snapshot bench/run.ts)
import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import {
  allRows,
  formatHeader,
  formatMarkdown,
  formatTable,
  type BenchMachine,
  type BenchReport,
  type BenchSections,
} from './bench-rows.ts';
import { affinityAvailable } from '../sandbox/thread-affinity.ts';
import { slicesAvailable } from '../sandbox/thread-slice.ts';
import { runCapacityBench } from './capacity-bench.ts';
import { runConcurrencyBench } from './concurrency-bench.ts';
import { measureDefinitionCost, runContextSavingsBench } from './context-savings-bench.ts';
import { runLatencyBench } from './latency-bench.ts';
import { runNestedCallBench } from './nested-call-bench.ts';
import { runPeerBench } from './peer-bench.ts';
import { runPythonGuestBench } from './python-guest-bench.ts';
import { runSandboxBench, type BenchRow as SandboxBenchRow } from './sandbox-bench.ts';
import { runSchedulerBench } from './scheduler-bench.ts';
import { measureSdkSize } from './sdk-size.ts';
import { runThroughputBench } from './throughput-bench.ts';
import { runTypecheckBench } from './typecheck-bench.ts';

const SECTIONS = [
  'latency',
  'nested',
  'sandbox',
  'concurrency',
  'throughput',
  'peers',
  'context',
  'typecheck',
  'capacity',
  'python',
] as const;
type Section = (typeof SECTIONS)[number];

function parseOptions(argv: readonly string[]): {
  json: boolean;
  markdown: boolean;
  quick: boolean;
  peerInstall: boolean;
  only: readonly Section[];
} {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      json: { type: 'boolean', default: false },
      markdown: { type: 'boolean', default: false },
      quick: { type: 'boolean', default: false },
      'no-peer-install': { type: 'boolean', default: false },
      only: { type: 'string' },
    },
    strict: true,
  });
  const only = values.only === undefined ? [...SECTIONS] : values.only.split(',').map((s) => s.trim());
  for (const name of only) {
    if (!(SECTIONS as readonly string[]).includes(name)) {
      throw new TypeError(`bench: unknown section "${name}" in --only; known sections: ${SECTIONS.join(', ')}`);
    }
  }
  return {
    json: values.json === true,
    markdown: values.markdown === true,
    quick: values.quick === true,
    peerInstall: values['no-peer-install'] !== true,
    only: only as Section[],
  };
}

/** The commit measured (a bench figure means little without it). */
function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}

const progress = (text: string): void => {
  process.stderr.write(`[bench ${(performance.now() / 1000).toFixed(0).padStart(3)}s] ${text}\n`);
};

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const q = options.quick;
  const started = performance.now();
  const loadBefore = loadavg();
  const sections: BenchSections = {};
  const want = (s: Section): boolean => options.only.includes(s);

  if (want('latency')) {
    progress('1/6 run_code latency against the physical floor (process and in-process)');
    const latency = await runLatencyBench(q ? { warmup: 5, iterations: 30 } : {});
    sections.latency = latency;
  }
  if (want('nested')) {
    progress('2/6 nested-call overhead');
    const nested = await runNestedCallBench(q ? { iterations: 3 } : {});
    const scheduler = await runSchedulerBench({ calls: 1000, runs: q ? 3 : 7 });
    sections.nested = nested;
    sections.scheduler = scheduler;
  }
  if (want('sandbox')) {
    progress('2b/6 the sandbox layer alone (bench/sandbox-bench.ts)');
    // Its own RSS series is short here: the throughput section runs the long one.
    const sandboxLayer = await runSandboxBench({ iterations: q ? 8 : 20, rssRuns: q ? 100 : 200 });
    sections.sandboxLayer = { ...sandboxLayer, rows: sandboxLayer['rows'] as SandboxBenchRow[] };
  }
  if (want('concurrency')) {
    progress('3/6 concurrency: 100 × wait(10 ms)');
    const concurrency = await runConcurrencyBench(q ? { safeIterations: 3, exclusiveIterations: 1 } : {});
    sections.concurrency = concurrency;
  }
  if (want('throughput')) {
    progress('4/6 throughput at 1, 4, 16 in flight, then RSS over the memory series (the long pole)');
    const { throughput, memory } = await runThroughputBench({
      ...(q ? { runsPerPoint: 40, rounds: 2, memoryRuns: 1_000, sampleEvery: 100 } : {}),
      memoryInFlight: 16,
      onProgress: progress,
    });
    sections.throughput = throughput;
    sections.memory = memory;
  }
  if (want('peers')) {
    progress('5/6 peers: worker per run, isolate per run without a pool, UTCP code-mode');
    const { peers, utcp } = await runPeerBench({
      ...(q ? { iterations: 6, nestedIterations: 3, marginalIterations: 5, waitAllIterations: 2 } : {}),
      installUtcp: options.peerInstall,
      onProgress: progress,
    });
    sections.peers = peers;
    sections.utcp = utcp;
  }
  if (want('context')) {
    progress('6/6 context savings: three scenarios, native against run_code');
    const context = await runContextSavingsBench();
    const definitions = await measureDefinitionCost();
    const sdk = await measureSdkSize();
    sections.context = context;
    sections.definitions = definitions;
    sections.sdkSize = sdk;
  }
  if (want('typecheck')) {
    progress('typecheck: run_code with typecheck warn against off');
    sections.typecheck = await runTypecheckBench(q ? { warmup: 3, iterations: 15 } : {});
  }

  if (want('capacity')) {
    progress(
      'capacity: 100 and 1,000 runs awaiting a 1 s tool (100 with --quick), the largest once more with a 6 s tool (its start alone); an ordinary run under 50 CPU-bound runaways',
    );
    sections.capacity = await runCapacityBench(q ? { runCounts: [100], samples: 7, bareIsolates: 200 } : {});
  }

  if (want('python')) {
    progress('python: the Python guest (Monty) beside the TypeScript one');
    sections.python = await runPythonGuestBench(q ? { iterations: 15, slowIterations: 2, heldRuns: 100 } : {});
  }

  const rows = allRows(sections);
  const seconds = (performance.now() - started) / 1000;
  const machine: BenchMachine = {
    commit: gitCommit(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    loadAvgBefore: loadBefore.map((n) => Number(n.toFixed(2))),
    loadAvgAfter: loadavg().map((n) => Number(n.toFixed(2))),
    threadCalls: { affinity: affinityAvailable(), slices: slicesAvailable() },
  };
  if (options.json) {
    const report: BenchReport = { date: new Date().toISOString(), seconds, quick: q, machine, rows, sections };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } else {
    const header = formatHeader(machine, seconds, q);
    process.stdout.write(`${header}\n${options.markdown ? `\n${formatMarkdown(rows)}` : formatTable(rows)}\n`);
  }
  const missed = rows.filter((r) => r.met === false).length;
  progress(
    `done in ${seconds.toFixed(0)} s: ${rows.filter((r) => r.met === true).length} targets met, ${missed} missed`,
  );
}

await main();
