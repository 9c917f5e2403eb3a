// Section 8: capacity of one host with the default admission (src/ptc/run-admission.ts).
//  - N runs started at once, each awaiting one 1-second tool call: the wall time until the
//    last finishes (ideal 1 s: a run awaiting tools holds no CPU slot), how many were
//    refused, and the sandbox's resident memory per waiting run (runs per GiB). Once more
//    with 50 isolates pre-warmed per sandbox process (poolSize): the burst then skips
//    preparing them, which is what the fresh-isolate-per-run floor costs; and once with a
//    distinct program text per run (the other rows repeat one, compiled once).
//    Once more with no pool (poolSize 0) at 100 and at 1,000 runs: every run then starts on
//    an isolate prepared in the burst, so the two rows' CPU per run say whether a run costs
//    more when more are in flight (the default rows cannot: at 100 runs most start on the
//    isolates the pool prepared before the burst, at 1,000 few do).
//    Each row also reads the CPU time (host + sandbox processes + compiler, from /proc)
//    spent until every run awaits its tool: that CPU over the cores, plus the tool's
//    second, is the earliest the last run could finish on idle cores. The floor of any
//    design that gives each run a fresh isolate: a bare new Isolate + context + eval, all
//    kept alive as in a burst, CPU per isolate (measured on 1,000). And the 1,000-run burst
//    once more with a 6 s tool, longer than the burst: no run finishes while others start
//    (with 1 s tools the first runs' finishing work overlaps the last ones' start), so when
//    every tool call had started is the start alone, measured: plus 1 s, the earliest the
//    last of 1,000 runs awaiting a 1 s tool can end on this machine.
//  - The same 100 runs fired at a runtime created just before, in a fresh Node process
//    (cold-burst.ts): the default sandbox is made by the first run, so the burst also
//    waits for the sandbox processes to boot and every isolate to be prepared.
//  - An ordinary 3-call run (the 1 KB program) while 50 CPU-bound runaways are in flight,
//    against the same run on an idle runtime: its fair share of 2 cores shared by 51
//    CPU-bound runs would stretch it (51 / cores)×; less is better than fair.
import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import ivm from 'isolated-vm';
import { KB_PROGRAM } from './bench-programs.ts';
import type { ColdBurstResult } from './cold-burst.ts';
import { createBenchRuntime, type Isolation, showBurst, waitGauge } from './bench-runtime.ts';
import { summarize, type Summary } from './stats.ts';
import { childrenCpuMs, mainThreadCpuMs, ownCpuMs, spent } from './proc-cpu.ts';

export interface WaitingRunsResult {
  readonly isolation: Isolation;
  /** Pre-warmed isolates per sandbox process; undefined = the default (sandbox/pool-size.ts). */
  readonly poolSize?: number;
  /** Every run's program text differs (no compiled program is reused); else all runs send the same program. */
  readonly distinct: boolean;
  readonly runs: number;
  readonly toolMs: number;
  readonly wallMs: number;
  readonly refused: number;
  readonly failed: number;
  /** Sandbox resident memory (as the sandbox measures it) while all runs were waiting, less before. */
  readonly rssPerRunMb: number | undefined;
  /** CPU ms (host + sandbox processes + compiler) from the burst until every run's tool call started, per run. */
  readonly startCpuMsPerRun: number;
  /**
   * Of it, CPU ms per run on the host's main thread. In-process that thread makes every
   * isolate (`new ivm.Isolate` is synchronous on the calling thread), so the burst cannot
   * start its runs faster than one after another there.
   */
  readonly startMainThreadMsPerRun: number;
  /** When every run's tool call had started (ms after the burst began); the whole burst when some were refused. */
  readonly allWaitingMs: number;
  readonly cores: number;
  /** The burst measured with a tool longer than itself, so that its start stands alone. */
  readonly startOnly?: true;
}

/** A bare fresh isolate in a burst: new Isolate + context + eval, all kept alive, CPU per isolate. */
export interface BareIsolateFloor {
  readonly isolates: number;
  readonly cpuMsPerIsolate: number;
}

export interface RunawayResult {
  readonly isolation: Isolation;
  readonly runaways: number;
  readonly idleMs: Summary;
  readonly loadedMs: Summary;
  readonly cores: number;
}

export interface CapacityResult {
  readonly waiting: WaitingRunsResult[];
  /** Runs fired at a runtime created just before (cold-burst.ts), per isolation. */
  readonly cold?: ColdBurstResult[];
  readonly runaway: RunawayResult[];
  readonly bareIsolateFloor?: BareIsolateFloor;
}

export interface CapacityOptions {
  readonly isolations?: readonly Isolation[];
  readonly runCounts?: readonly number[];
  readonly runaways?: number;
  readonly samples?: number;
  /** Bare isolates kept alive to measure the fresh-isolate floor. @default 1000 */
  readonly bareIsolates?: number;
  /** Also run the 100-run row with this many pre-warmed isolates per sandbox process (0 = not). @default 50 */
  readonly prewarmedPool?: number;
  /** The burst measured once more with a tool longer than itself (0: not). @default the largest of runCounts */
  readonly startOnlyRuns?: number;
  /** Also run these run counts with no pool (process mode), to compare their CPU per run. @default [100, 1000] */
  readonly noPoolRunCounts?: readonly number[];
}

const TOOL_MS = 1_000;
/** Longer than any burst here takes to start (~2-4 s for 1,000 runs on 2 cores). */
const START_ONLY_TOOL_MS = 6_000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function runCapacityBench(options: CapacityOptions = {}): Promise<CapacityResult> {
  const waiting: WaitingRunsResult[] = [];
  const runaway: RunawayResult[] = [];
  const cold: ColdBurstResult[] = [];
  for (const isolation of options.isolations ?? ['process', 'in-process']) {
    cold.push(await coldBurstInFreshProcess(isolation, 100));
    const runCounts = options.runCounts ?? [100, 1_000];
    for (const runs of runCounts) waiting.push(await waitingRuns(isolation, runs));
    // The largest burst's start alone (a --quick run has only 100-run bursts).
    const startOnly = options.startOnlyRuns ?? Math.max(0, ...runCounts);
    if (startOnly > 0) waiting.push(await waitingRuns(isolation, startOnly, { startOnly: true }));
    // A burst's isolates prepared before it comes: what the fresh-isolate floor costs (see bench/README).
    const pool = options.prewarmedPool ?? 50;
    if (isolation === 'process' && pool > 0) waiting.push(await waitingRuns(isolation, 100, { poolSize: pool }));
    // The rows above send one program text 100 times (compiled once, see compile-cache.ts).
    if (isolation === 'process') waiting.push(await waitingRuns(isolation, 100, { distinct: true }));
    // Every run on an isolate prepared in the burst: CPU per run against runs in flight.
    if (isolation === 'process') {
      for (const runs of options.noPoolRunCounts ?? [100, 1_000]) {
        waiting.push(await waitingRuns(isolation, runs, { poolSize: 0 }));
      }
    }
    runaway.push(await underRunaways(isolation, options.runaways ?? 50, options.samples ?? 15));
  }
  return { waiting, cold, runaway, bareIsolateFloor: await bareIsolateFloor(options.bareIsolates ?? 1_000) };
}

const COLD_BURST_SCRIPT = fileURLToPath(new URL('./cold-burst.ts', import.meta.url));

/** cold-burst.ts in a fresh Node process: nothing of this process's sandboxes or caches is reused. */
function coldBurstInFreshProcess(isolation: Isolation, runs: number): Promise<ColdBurstResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--no-node-snapshot', COLD_BURST_SCRIPT, isolation, String(runs)],
      { timeout: 120_000, maxBuffer: 1_048_576 },
      (error, stdout) => {
        if (error !== null) reject(error);
        else resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as ColdBurstResult);
      },
    );
  });
}

async function bareIsolateFloor(isolates: number): Promise<BareIsolateFloor> {
  const alive: ivm.Isolate[] = [];
  const before = ownCpuMs();
  try {
    for (let i = 0; i < isolates; i += 1) {
      const isolate = new ivm.Isolate({ memoryLimit: 128 });
      alive.push(isolate);
      const context = await isolate.createContext();
      await context.eval('1');
    }
    return { isolates, cpuMsPerIsolate: (ownCpuMs() - before) / isolates };
  } finally {
    for (const isolate of alive) isolate.dispose();
  }
}

async function waitingRuns(
  isolation: Isolation,
  runs: number,
  {
    poolSize,
    distinct = false,
    startOnly = false,
  }: { poolSize?: number; distinct?: boolean; startOnly?: boolean } = {},
): Promise<WaitingRunsResult> {
  const toolMs = startOnly ? START_ONLY_TOOL_MS : TOOL_MS;
  const bench = createBenchRuntime({ isolation, ...(poolSize === undefined ? {} : { poolSize }) });
  try {
    await bench.runCode('return await tools.wait({ ms: 1, safe: true })'); // sandbox up
    // The pool grows to the bursts it has seen: one as large as this one first.
    if (poolSize !== 0) await showBurst(bench, runs);
    // A heartbeat reports the sandbox's memory at rest; a large pool gets time to fill
    // (~15 ms of CPU per isolate, one at a time in each process).
    await sleep(poolSize === undefined ? 1_500 : 1_500 + poolSize * 40);
    const before = bench.sandbox.memoryInUse?.();
    let peak = before;
    const sampler = setInterval(() => {
      const now = bench.sandbox.memoryInUse?.();
      if (now !== undefined && (peak === undefined || now > peak)) peak = now;
    }, 50);
    waitGauge.reset();
    const cpuBefore = { host: ownCpuMs(), mainThread: mainThreadCpuMs(), children: childrenCpuMs() };
    const cpuSince = (): number => {
      const children = childrenCpuMs();
      return (
        ownCpuMs() -
        cpuBefore.host +
        spent(cpuBefore.children.sandbox, children.sandbox) +
        spent(cpuBefore.children.compiler, children.compiler)
      );
    };
    let allWaiting: { ms: number; cpuMs: number; mainThreadMs: number } | undefined;
    const started = performance.now();
    const watch = setInterval(() => {
      if (allWaiting === undefined && waitGauge.started >= runs) {
        allWaiting = {
          ms: performance.now() - started,
          cpuMs: cpuSince(),
          mainThreadMs: mainThreadCpuMs() - cpuBefore.mainThread,
        };
      }
    }, 5);
    let id = 0;
    const results = await Promise.all(
      Array.from({ length: runs }, () =>
        bench.rt.execute({
          callId: `waiting-${(id += 1)}`,
          name: 'run_code',
          arguments: {
            description: 'bench',
            code: `return await tools.wait({ ms: ${toolMs}, safe: true })${distinct ? `\n// run ${id}` : ''}`,
          },
        }),
      ),
    );
    const wallMs = performance.now() - started;
    clearInterval(sampler);
    clearInterval(watch);
    const refused = results.filter((r) => r.isError && r.error?.info?.['kind'] === 'busy').length;
    // Runs refused never wait: then the whole burst's CPU, per admitted run.
    const admitted = Math.max(1, runs - refused);
    const start = allWaiting ?? {
      ms: wallMs,
      cpuMs: cpuSince(),
      mainThreadMs: mainThreadCpuMs() - cpuBefore.mainThread,
    };
    const failed = results.filter((r) => r.isError).length - refused;
    return {
      isolation,
      ...(poolSize === undefined ? {} : { poolSize }),
      distinct,
      runs,
      toolMs,
      ...(startOnly ? { startOnly: true as const } : {}),
      wallMs,
      refused,
      failed,
      rssPerRunMb:
        before === undefined || peak === undefined ? undefined : (peak - before) / 1_048_576 / Math.max(1, runs),
      startCpuMsPerRun: start.cpuMs / admitted,
      startMainThreadMsPerRun: start.mainThreadMs / admitted,
      allWaitingMs: start.ms,
      cores: availableParallelism(),
    };
  } finally {
    await bench.close();
  }
}

async function underRunaways(isolation: Isolation, runaways: number, samples: number): Promise<RunawayResult> {
  const bench = createBenchRuntime({ isolation });
  const stop = new AbortController();
  try {
    const ordinary = async (): Promise<number> => {
      const start = performance.now();
      await bench.runCode(KB_PROGRAM);
      return performance.now() - start;
    };
    for (let i = 0; i < 3; i += 1) await ordinary();
    const idle: number[] = [];
    for (let i = 0; i < samples; i += 1) {
      idle.push(await ordinary());
      await sleep(5);
    }
    let id = 0;
    const loops = Array.from({ length: runaways }, () =>
      bench.rt.execute({
        callId: `runaway-${(id += 1)}`,
        name: 'run_code',
        arguments: { description: 'bench runaway', code: 'while (true) {}' },
        signal: stop.signal,
      }),
    );
    await sleep(3_000); // every runaway admitted, spinning, and its process demoted (cpu-lanes.ts)
    const loaded: number[] = [];
    for (let i = 0; i < samples; i += 1) {
      loaded.push(await ordinary());
      await sleep(5);
    }
    stop.abort();
    await Promise.all(loops);
    return {
      isolation,
      runaways,
      idleMs: summarize(idle),
      loadedMs: summarize(loaded),
      cores: availableParallelism(),
    };
  } finally {
    stop.abort();
    await bench.close();
  }
}
