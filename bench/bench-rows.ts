// Turns section results into the rows of the table `npm run bench` prints: each row a
// measured figure, the baseline measured in the same run, their ratio, and the issue's
// target where it sets one.
import type { CapacityResult, WaitingRunsResult } from './capacity-bench.ts';
import type { ConcurrencyResult } from './concurrency-bench.ts';
import type { ContextSavingsResult, DefinitionCost } from './context-savings-bench.ts';
import type { LatencyResult } from './latency-bench.ts';
import type { PythonGuestBenchResult } from './python-guest-bench.ts';
import type { NestedCallResult } from './nested-call-bench.ts';
import type { PeerResult, UtcpPeerStatus } from './peer-bench.ts';
import type { BenchRow as SandboxBenchRow } from './sandbox-bench.ts';
import type { SchedulerBenchReport } from './scheduler-bench.ts';
import type { TypecheckBenchResult } from './typecheck-bench.ts';
import type { SdkSizeReport } from './sdk-size.ts';
import type { MemoryResult, ThroughputResult } from './throughput-bench.ts';
import { summarize } from './stats.ts';

export interface Row {
  readonly section: string;
  readonly name: string;
  /** The measured figure as shown (p50, and p90 where sampled). */
  readonly value: string;
  readonly baseline: string;
  /** value / baseline (as the row says), or '' where none applies. */
  readonly ratio: string;
  readonly target: string;
  /** true/false against the target; null where the issue sets none (information). */
  readonly met: boolean | null;
}

/** Everything one run measured, as `--json` writes it under `sections` (absent sections were not run). */
export interface BenchSections {
  latency?: LatencyResult[];
  nested?: NestedCallResult[];
  scheduler?: SchedulerBenchReport;
  /** runSandboxBench's result (bench/sandbox-bench.ts). */
  sandboxLayer?: { readonly rows: readonly SandboxBenchRow[] } & Record<string, unknown>;
  concurrency?: ConcurrencyResult[];
  throughput?: ThroughputResult[];
  memory?: MemoryResult[];
  peers?: PeerResult[];
  /** Whether the UTCP peer ran and with what (a plain string in reports from before it could). */
  utcp?: UtcpPeerStatus | string;
  context?: ContextSavingsResult[];
  definitions?: DefinitionCost;
  sdkSize?: SdkSizeReport;
  typecheck?: TypecheckBenchResult;
  capacity?: CapacityResult;
  /** The Python guest beside the TypeScript one (bench/python-guest-bench.ts). */
  python?: PythonGuestBenchResult;
}

export interface BenchMachine {
  readonly commit: string;
  readonly node: string;
  readonly cpus: number;
  readonly cpuModel: string;
  readonly loadAvgBefore: readonly number[];
  readonly loadAvgAfter: readonly number[];
  /**
   * Whether this machine could place threads and set scheduler slices (the optional koffi
   * and the C library loaded): without them the placement of a blocking streak and the
   * runaways' long slice are off, and the in-process crossing and fairness rows read worse.
   * Absent in reports from before it was recorded.
   */
  readonly threadCalls?: { readonly affinity: boolean; readonly slices: boolean };
}

/** What `--json` writes: one object. */
export interface BenchReport {
  readonly date: string;
  readonly seconds: number;
  readonly quick: boolean;
  readonly machine: BenchMachine;
  readonly rows: readonly Row[];
  readonly sections: BenchSections;
}

export function formatHeader(machine: BenchMachine, seconds: number, quick: boolean): string {
  return (
    `ptc-runtime bench @ ${machine.commit}: node ${machine.node}, ${machine.cpus} × ${machine.cpuModel}, ` +
    `load ${machine.loadAvgBefore.join(' ')} -> ${machine.loadAvgAfter.join(' ')}, ${seconds.toFixed(0)} s${quick ? ' (--quick)' : ''}` +
    threadCallsNote(machine.threadCalls)
  );
}

function threadCallsNote(calls: BenchMachine['threadCalls']): string {
  if (calls === undefined) return '';
  if (calls.affinity && calls.slices) return ', thread placement and long slices available';
  const missing = [calls.affinity ? undefined : 'thread placement', calls.slices ? undefined : 'long slices']
    .filter((x) => x !== undefined)
    .join(' and ');
  return `, WITHOUT ${missing} (is the optional koffi installed?): the in-process crossing and fairness rows are not this product's defaults`;
}

/** The table rows of one run, in section order. */
export function allRows(s: BenchSections): Row[] {
  return [
    ...(s.latency === undefined ? [] : latencyRows(s.latency)),
    ...(s.nested === undefined ? [] : nestedRows(s.nested, s.scheduler)),
    ...(s.sandboxLayer === undefined ? [] : sandboxLayerRows(s.sandboxLayer.rows)),
    ...(s.concurrency === undefined ? [] : concurrencyRows(s.concurrency)),
    ...(s.throughput === undefined ? [] : throughputRows(s.throughput)),
    ...(s.memory === undefined ? [] : memoryRows(s.memory)),
    ...(s.peers === undefined ? [] : peerRows(s.peers, s.utcp)),
    ...(s.context === undefined ? [] : contextRows(s.context, s.definitions, s.sdkSize)),
    ...(s.typecheck === undefined ? [] : typecheckRows(s.typecheck)),
    ...(s.capacity === undefined ? [] : capacityRows(s.capacity)),
    ...(s.python?.rows ?? []),
  ];
}

export function typecheckRows(r: TypecheckBenchResult): Row[] {
  return [
    {
      section: '7 typecheck',
      name: `run_code ${r.programChars}-char program, typecheck 'warn' (worker, warm) against 'off' (process)`,
      value: `added p50 ${ms(r.addedP50Ms)} (warn p50 ${ms(r.warn.p50)} / p90 ${ms(r.warn.p90)}); first run ${ms(r.firstRunMs)}`,
      baseline: `off p50 ${ms(r.off.p50)} / p90 ${ms(r.off.p90)}`,
      ratio: x(r.warn.p50 / r.off.p50),
      target: 'added < 50 ms at p50',
      met: r.addedP50Ms < 50,
    },
  ];
}

/** Issue 24: N runs each awaiting a 1 s tool finish within this many ms with the default admission. */
export const WAITING_RUNS_TARGET_MS: Readonly<Record<number, number>> = { 100: 1_500, 1000: 3_000 };

/**
 * A burst whose tool outlasts it: when every tool call had started is its start alone (no
 * run finishing meanwhile), so that plus a 1 s tool is the earliest the last of its runs
 * could end here, against the 1 s rows' target.
 */
function startOnlyRow(w: WaitingRunsResult, all: readonly WaitingRunsResult[]): Row {
  const oneSecond = all.find((o) => o.runs === w.runs && o.isolation === w.isolation && o.startOnly !== true);
  const toolMs = oneSecond?.toolMs ?? 1_000;
  const target = WAITING_RUNS_TARGET_MS[w.runs];
  const floor = w.allWaitingMs + toolMs;
  const runs = w.runs.toLocaleString('en-US');
  // Not the start alone when some run never started (refused or failed: allWaitingMs is
  // then the whole burst, its tool included) or when the start outlasted the tool (the
  // first runs finished meanwhile): no floor is read from it then.
  const notAlone =
    w.refused + w.failed > 0
      ? `${w.refused} refused, ${w.failed} failed: not every run started`
      : w.allWaitingMs >= w.toolMs
        ? `the start outlasted the ${ms(w.toolMs)} tool: runs finished during it`
        : undefined;
  return {
    section: '8 capacity',
    name: `  … its start alone: the same ${runs} runs awaiting a ${w.toolMs} ms tool, so none finishes while others start (${w.isolation})`,
    value: `every tool call started at ${ms(w.allWaitingMs)}; ${ms(w.startCpuMsPerRun)} of CPU per run (host + sandbox processes); ${w.refused} refused, ${w.failed} failed`,
    baseline: `the earliest the last of ${runs} runs awaiting a ${toolMs} ms tool can end here: ${ms(w.allWaitingMs)} + ${ms(toolMs)} = ${ms(floor)}`,
    ratio: x(floor / toolMs),
    target:
      notAlone !== undefined
        ? `no start floor: ${notAlone}`
        : target === undefined
          ? ''
          : floor <= target
            ? `start floor ≤ ${ms(target)}`
            : `start floor > ${ms(target)}: not with a fresh isolate per run on ${w.cores} cores`,
    met: null,
  };
}

export function capacityRows(r: CapacityResult): Row[] {
  const rows: Row[] = [];
  // CPU per run with no pool, at the fewest and the most runs in flight: a run that cost
  // more with more in flight would show here (per-tick work over live runs, GC growing
  // with what runs leave behind, lists scanned per run).
  const noPool = r.waiting.filter((w) => w.poolSize === 0 && w.refused === 0 && w.failed === 0);
  const fewest = noPool.reduce<WaitingRunsResult | undefined>(
    (a, w) => (a === undefined || w.runs < a.runs ? w : a),
    undefined,
  );
  const most = noPool.reduce<WaitingRunsResult | undefined>(
    (a, w) => (a === undefined || w.runs > a.runs ? w : a),
    undefined,
  );
  for (const w of r.waiting) {
    if (w.startOnly === true) {
      rows.push(startOnlyRow(w, r.waiting));
      continue;
    }
    // The issue's targets are for the default settings; a tuned pool is shown beside them.
    const target = w.poolSize === undefined ? WAITING_RUNS_TARGET_MS[w.runs] : undefined;
    const pool =
      w.poolSize === undefined
        ? ''
        : w.poolSize === 0
          ? ', poolSize 0: no isolate prepared before'
          : `, poolSize ${w.poolSize}: isolates pre-warmed`;
    const setting = `${pool}${w.distinct ? ', a distinct program each' : ''}`;
    const perGiB = w.rssPerRunMb === undefined || w.rssPerRunMb <= 0 ? undefined : 1024 / w.rssPerRunMb;
    rows.push({
      section: '8 capacity',
      name: `${w.runs.toLocaleString('en-US')} runs at once, each awaiting one ${w.toolMs} ms tool, default admission (${w.isolation}${setting})`,
      value: `${ms(w.wallMs)} until the last finished; ${w.refused} refused, ${w.failed} failed; sandbox RSS ${w.rssPerRunMb === undefined ? 'n/a' : `${w.rssPerRunMb.toFixed(2)} MiB`} per waiting run${perGiB === undefined ? '' : ` (~${perGiB.toFixed(0)} per GiB)`}`,
      baseline: `ideal ${ms(w.toolMs)} (every run in flight at once)`,
      ratio: x(w.wallMs / w.toolMs),
      target: target === undefined ? '' : `≤ ${ms(target)}, none refused`,
      met: target === undefined ? null : w.wallMs <= target && w.refused === 0 && w.failed === 0,
    });
    if (w === most && fewest !== undefined && most.runs > fewest.runs) {
      rows.push({
        section: '8 capacity',
        name: `  … CPU per run with no pool: ${most.runs.toLocaleString('en-US')} runs in flight against ${fewest.runs.toLocaleString('en-US')} (${most.isolation})`,
        value: `${ms(most.startCpuMsPerRun)} of CPU per run until every tool call had started`,
        baseline: `${ms(fewest.startCpuMsPerRun)} with ${fewest.runs.toLocaleString('en-US')} runs`,
        ratio: x(most.startCpuMsPerRun / fewest.startCpuMsPerRun),
        target: 'about 1× (a run costs the same however many are in flight)',
        met: null,
      });
    }
    if (target === undefined || w.distinct) continue;
    // What the machine could do on idle cores: the CPU this burst needed to start its runs
    // (the admitted ones: a refused run never starts).
    const admitted = Math.max(1, w.runs - w.refused);
    const idleFloor = (w.startCpuMsPerRun * admitted) / w.cores + w.toolMs;
    rows.push({
      section: '8 capacity',
      name: `  … CPU to start them, and the wall time that allows on ${w.cores} idle cores (${w.isolation})`,
      value: `${ms(w.startCpuMsPerRun)} of CPU per run (host + sandbox processes) until every tool call had started, at ${ms(w.allWaitingMs)}`,
      baseline: `on idle cores: ${admitted.toLocaleString('en-US')} × ${ms(w.startCpuMsPerRun)} / ${w.cores} + tool ${ms(w.toolMs)} = ${ms(idleFloor)}`,
      ratio: x(w.wallMs / idleFloor),
      target:
        idleFloor <= target
          ? `idle-core time ≤ ${ms(target)}`
          : `idle-core time > ${ms(target)}: not on ${w.cores} cores`,
      met: null,
    });
    if (w.isolation === 'in-process') {
      // In-process the host's main thread makes every isolate: the runs start no faster
      // than that thread's share of each, one after another.
      const serial = w.startMainThreadMsPerRun * admitted + w.toolMs;
      rows.push({
        section: '8 capacity',
        name: `  … of it on the host's main thread, which makes every isolate in-process (${w.isolation})`,
        value: `${ms(w.startMainThreadMsPerRun)} of CPU per run on the main thread`,
        baseline: `in series: ${admitted.toLocaleString('en-US')} × ${ms(w.startMainThreadMsPerRun)} + tool ${ms(w.toolMs)} = ${ms(serial)}`,
        ratio: x(w.wallMs / serial),
        target:
          serial <= target ? `main-thread time ≤ ${ms(target)}` : `main-thread time > ${ms(target)}: not on one thread`,
        met: null,
      });
    }
    const bare = r.bareIsolateFloor;
    if (bare !== undefined && w.isolation === 'process') {
      const floor = (bare.cpuMsPerIsolate * w.runs) / w.cores + w.toolMs;
      rows.push({
        section: '8 capacity',
        name: `  … floor of any design giving each of ${w.runs.toLocaleString('en-US')} runs a fresh isolate, on ${w.cores} cores`,
        value: `${w.runs.toLocaleString('en-US')} × ${ms(bare.cpuMsPerIsolate)} / ${w.cores} + tool ${ms(w.toolMs)} = ${ms(floor)}`,
        baseline: `bare new Isolate + context + eval, ${bare.isolates} kept alive: ${ms(bare.cpuMsPerIsolate)} of CPU each`,
        ratio: x(w.startCpuMsPerRun / bare.cpuMsPerIsolate),
        target:
          floor <= target
            ? `floor ≤ ${ms(target)}`
            : `floor > ${ms(target)}: no such design meets it on ${w.cores} cores`,
        met: null,
      });
    }
  }
  for (const c of r.cold ?? []) {
    const target = WAITING_RUNS_TARGET_MS[c.runs];
    const cpu = c.cpuMs.host + c.cpuMs.sandbox + c.cpuMs.compiler;
    rows.push({
      section: '8 capacity',
      name: `${c.runs.toLocaleString('en-US')} runs at once on a runtime created just before, each awaiting one ${c.toolMs} ms tool, defaults (${c.isolation})`,
      value: `${ms(c.wallMs)} from createToolRuntime until the last finished; ${c.refused} refused, ${c.failed} failed; first tool call started at ${ms(c.firstStartMs)}, the last at ${ms(c.allWaitingMs)}`,
      baseline: `CPU until then ${ms(cpu)} (host ${ms(c.cpuMs.host)}, sandbox processes ${ms(c.cpuMs.sandbox)}, compiler ${ms(c.cpuMs.compiler)}); on ${c.cores} idle cores ${ms(cpu / c.cores + c.toolMs)}`,
      ratio: x(c.wallMs / c.toolMs),
      target: target === undefined ? '' : `≤ ${ms(target)}, none refused`,
      met: target === undefined ? null : c.wallMs <= target && c.refused === 0 && c.failed === 0,
    });
  }
  for (const a of r.runaway) {
    const fair = (a.runaways + 1) / a.cores;
    const ratio = a.loadedMs.p50 / a.idleMs.p50;
    rows.push({
      section: '8 capacity',
      name: `run_code 3-call program while ${a.runaways} CPU-bound runaways are in flight (${a.isolation})`,
      value: `p50 ${ms(a.loadedMs.p50)} / p90 ${ms(a.loadedMs.p90)}`,
      baseline: `idle runtime p50 ${ms(a.idleMs.p50)} / p90 ${ms(a.idleMs.p90)}`,
      ratio: x(ratio),
      target: `≤ its fair share: (${a.runaways} + 1) / ${a.cores} cores = ${x(fair)}`,
      met: ratio <= fair,
    });
  }
  return rows;
}

const ms = (n: number): string => `${n.toFixed(2)} ms`;
const us = (n: number): string => `${n.toFixed(1)} µs`;
const x = (n: number): string => `${n.toFixed(2)}×`;
const mb = (n: number | undefined): string => (n === undefined || Number.isNaN(n) ? 'n/a' : `${n.toFixed(1)} MiB`);

/** Issue 24: `return 1` end to end at most this many times a bare fresh isolate (new Isolate + context + eval), per mode. */
export const RETURN_1_FRESH_ISOLATE_TARGET = 1.5;

export function latencyRows(results: readonly LatencyResult[]): Row[] {
  return results.flatMap((r) => {
    const name = `run_code ${r.program === 'trivial' ? '`return 1`' : `${r.programChars}-char program, 3 nested calls`} (${r.isolation})`;
    const rows: Row[] = [
      {
        section: '1 latency',
        name,
        value: `p50 ${ms(r.runtime.p50)} / p90 ${ms(r.runtime.p90)}`,
        baseline: `floor p50 ${ms(r.floor.p50)} / p90 ${ms(r.floor.p90)} (transform ${r.floorParts.transformMs.toFixed(2)} + context ${r.floorParts.contextMs.toFixed(2)} + eval ${r.floorParts.evalMs.toFixed(2)})`,
        ratio: `${x(r.ratioP50)} (p90 ${x(r.ratioP90)})`,
        target: '≤ 1.5× at p50',
        met: r.ratioP50 <= 1.5,
      },
    ];
    const fresh = r.freshIsolateFloor;
    if (fresh !== undefined) {
      const ratio = r.runtime.p50 / fresh.p50;
      rows.push({
        section: '1 latency',
        name: `  … against the bare floor of a fresh isolate (${r.isolation})`,
        value: `p50 ${ms(r.runtime.p50)} / p90 ${ms(r.runtime.p90)}`,
        baseline: `new Isolate + context + eval p50 ${ms(fresh.p50)} / p90 ${ms(fresh.p90)}`,
        ratio: `${x(ratio)} (p90 ${x(r.runtime.p90 / fresh.p90)})`,
        target: `≤ ${RETURN_1_FRESH_ISOLATE_TARGET}× at p50`,
        met: ratio <= RETURN_1_FRESH_ISOLATE_TARGET,
      });
    }
    return rows;
  });
}

export function nestedRows(results: readonly NestedCallResult[], scheduler?: SchedulerBenchReport): Row[] {
  const rows: Row[] = [];
  for (const r of results) {
    const parts = `2 × direct ${us(r.directUs.p50)} + isolate RT ${us(r.bareIsolateUs.p50)}${r.bareIpcUs === undefined ? '' : ` + IPC RT ${us(r.bareIpcUs.p50)}`}`;
    rows.push({
      section: '2 nested call',
      name: `nested call, 1,000 sequential in one program (${r.isolation})`,
      value: `p50 ${us(r.nestedUs.p50)} / p90 ${us(r.nestedUs.p90)}`,
      baseline: `${us(r.budgetUs)} = ${parts}`,
      ratio: x(r.ratioToBudget),
      target: '≤ 1× (2 × direct + bare round trip)',
      met: r.ratioToBudget <= 1,
    });
    rows.push({
      section: '2 nested call',
      name: `  … against the direct call alone (${r.isolation})`,
      value: us(r.nestedUs.p50),
      baseline: `direct rt.execute p50 ${us(r.directUs.p50)} / p90 ${us(r.directUs.p90)}`,
      ratio: x(r.nestedUs.p50 / r.directUs.p50),
      target: '',
      met: null,
    });
    if (r.hostSideUs !== undefined) {
      rows.push({
        section: '2 nested call',
        name: `  … host side alone: run_code's HostCall driven from plain JS, no isolate (${r.isolation} run)`,
        value: `p50 ${us(r.hostSideUs.p50)} / p90 ${us(r.hostSideUs.p90)} (${((100 * r.hostSideUs.p50) / r.nestedUs.p50).toFixed(0)}% of the nested call)`,
        baseline: `direct rt.execute p50 ${us(r.directUs.p50)} / p90 ${us(r.directUs.p90)}`,
        ratio: x(r.hostSideUs.p50 / r.directUs.p50),
        target: '',
        met: null,
      });
    }
    if (r.asyncNestedUs !== undefined) {
      rows.push({
        section: '2 nested call',
        name: `  … every call asynchronous instead (blockingCalls: false, the design before) (${r.isolation})`,
        value: `blocking p50 ${us(r.nestedUs.p50)}`,
        baseline: `asynchronous p50 ${us(r.asyncNestedUs.p50)} / p90 ${us(r.asyncNestedUs.p90)}`,
        ratio: x(r.nestedUs.p50 / r.asyncNestedUs.p50),
        target: '',
        met: null,
      });
    }
    if (r.mediumStreak !== undefined) {
      const m = r.mediumStreak;
      rows.push({
        section: '2 nested call',
        name: `  … a program of ${m.calls} sequential calls, placement of its blocking streak on against off (${r.isolation})`,
        value: `on p50 ${ms(m.placedMs.p50)}`,
        baseline: `off p50 ${ms(m.unplacedMs.p50)}; paired difference p50 ${ms(m.differenceMs.p50)} (${m.differenceMs.n} pairs)`,
        ratio: x(m.placedMs.p50 / m.unplacedMs.p50),
        target: '',
        met: null,
      });
    }
    rows.push(issueTargetRow(r));
    const floor = processFloorRow(r);
    if (floor !== undefined) rows.push(floor);
    rows.push(...designFloorRows(r));
  }
  if (scheduler !== undefined) {
    rows.push({
      section: '2 nested call',
      name: `model turn of ${scheduler.callsPerRun} trivial calls, per call (executeTurn, concurrency-safe)`,
      value: us(scheduler.turnParallelUs),
      baseline: `sequential rt.execute ${us(scheduler.sequentialUs)}`,
      ratio: x(scheduler.parallelRatio),
      target: '',
      met: null,
    });
    rows.push({
      section: '2 nested call',
      name: `model turn of ${scheduler.callsPerRun} trivial calls, per call (executeTurn, exclusive)`,
      value: us(scheduler.turnExclusiveUs),
      baseline: `sequential rt.execute ${us(scheduler.sequentialUs)}`,
      ratio: x(scheduler.exclusiveRatio),
      target: '',
      met: null,
    });
  }
  return rows;
}

/** Issue 15's own target: process ≤ 2 ×, in-process ≤ 1.5 × (bare isolate round trip + direct rt.execute). */
export const ISSUE_NESTED_FACTOR: Readonly<Record<NestedCallResult['isolation'], number>> = {
  process: 2,
  'in-process': 1.5,
};

/** The nested call against issue 15's formula, at p50 and (from the parts' p90) at p90. */
function issueTargetRow(r: NestedCallResult): Row {
  const factor = ISSUE_NESTED_FACTOR[r.isolation];
  const budget = factor * (r.bareIsolateUs.p50 + r.directUs.p50);
  const budgetP90 = factor * (r.bareIsolateUs.p90 + r.directUs.p90);
  const ratio = r.nestedUs.p50 / budget;
  return {
    section: '2 nested call',
    name: `  … against issue 15's target (${r.isolation})`,
    value: `p50 ${us(r.nestedUs.p50)} / p90 ${us(r.nestedUs.p90)}`,
    baseline: `${us(budget)} = ${factor} × (isolate RT ${us(r.bareIsolateUs.p50)} + direct ${us(r.directUs.p50)}); p90 ${us(budgetP90)}`,
    ratio: `${x(ratio)} (p90 ${x(r.nestedUs.p90 / budgetP90)})`,
    target: `≤ 1× (${factor} × (bare isolate RT + direct))`,
    met: ratio <= 1,
  };
}

/**
 * The nested call against the bare floor of the crossing design it uses (crossing-floors.ts,
 * measured in this run) plus the direct call, and, where another design's floor is lower,
 * against that one too: what a redesign could still win.
 */
function designFloorRows(r: NestedCallResult): Row[] {
  if (r.designFloorUs === undefined || r.lowestFloorUs === undefined) return [];
  const rows: Row[] = [];
  const floor = r.designFloorUs.p50 + r.directUs.p50;
  rows.push({
    section: '2 nested call',
    name: `  … against the floor of its crossing design (${r.isolation})`,
    value: us(r.nestedUs.p50),
    baseline: `${us(floor)} = ${r.designFloor ?? 'design floor'} ${us(r.designFloorUs.p50)} + direct ${us(r.directUs.p50)}`,
    ratio: x(r.nestedUs.p50 / floor),
    target: '',
    met: null,
  });
  if (r.lowestFloor !== r.designFloor) {
    const lowest = r.lowestFloorUs.p50 + r.directUs.p50;
    rows.push({
      section: '2 nested call',
      name: `  … against the lowest floor measured for any design (${r.isolation})`,
      value: us(r.nestedUs.p50),
      baseline: `${us(lowest)} = ${r.lowestFloor ?? 'lowest floor'} ${us(r.lowestFloorUs.p50)} + direct ${us(r.directUs.p50)}`,
      ratio: x(r.nestedUs.p50 / lowest),
      target: '',
      met: null,
    });
  }
  return rows;
}

/**
 * Process isolation only: the floor of the asynchronous process design — a bare isolate
 * round trip, a bare IPC round trip and the direct call, all measured in this run — and
 * whether issue 15's target lies above it (reachable) or below it (not by that design;
 * designFloorRows has the floors of the others).
 */
function processFloorRow(r: NestedCallResult): Row | undefined {
  if (r.bareIpcUs === undefined) return undefined;
  const floor = r.bareIsolateUs.p50 + r.bareIpcUs.p50 + r.directUs.p50;
  const target = ISSUE_NESTED_FACTOR[r.isolation] * (r.bareIsolateUs.p50 + r.directUs.p50);
  return {
    section: '2 nested call',
    name: `  … against the floor of the asynchronous process design (${r.isolation})`,
    value: us(r.nestedUs.p50),
    baseline: `floor ${us(floor)} = isolate RT ${us(r.bareIsolateUs.p50)} + IPC RT ${us(r.bareIpcUs.p50)} + direct ${us(r.directUs.p50)}`,
    ratio: x(r.nestedUs.p50 / floor),
    target:
      floor <= target
        ? `floor ≤ issue target ${us(target)}: reachable`
        : `floor > issue target ${us(target)}: not by the asynchronous design`,
    met: null,
  };
}

/** The sandbox layer alone (bench/sandbox-bench.ts: Sandbox.run with an echo host, no pipeline). */
export function sandboxLayerRows(rows: readonly SandboxBenchRow[]): Row[] {
  return rows.map((r) => {
    const perCall = r.metric.includes('per call');
    const f = (n: number): string => (perCall ? us(n * 1000) : ms(n));
    return {
      section: '2b sandbox layer',
      name: `${r.metric} (sandbox-bench.ts, echo host call)`,
      value: `p50 ${f(r.ptc.median)} / p90 ${f(r.ptc.p90)}`,
      baseline: `${r.baselineName} p50 ${f(r.baseline.median)} / p90 ${f(r.baseline.p90)}`,
      ratio: x(r.ratio),
      // Issue 15: Promise.all of 1,000 no-op calls within 3× of the bare bridge doing the same.
      ...(r.metric.includes('1,000 concurrent')
        ? { target: `≤ ${PROMISE_ALL_TARGET}× (Promise.all of 1,000 no-op calls)`, met: r.ratio <= PROMISE_ALL_TARGET }
        : { target: '', met: null }),
    };
  });
}

/** Issue 15: a Promise.all of 1,000 no-op calls at most this many times the bare bridge. */
export const PROMISE_ALL_TARGET = 3;

export function concurrencyRows(results: readonly ConcurrencyResult[]): Row[] {
  return results.map((r) => {
    const safe = r.mode === 'concurrency-safe';
    return {
      section: '3 concurrency',
      name: `${r.calls} × wait(${r.waitMs} ms), ${r.mode}, ${r.path === 'run_code' ? `Promise.all in run_code (${r.isolation})` : 'one model turn (executeTurn)'}`,
      value: `p50 ${ms(r.wallMs.p50)} / p90 ${ms(r.wallMs.p90)}; max ${r.maxInFlight} in flight`,
      baseline: safe
        ? `ideal ceil(${r.calls}/${r.limit}) × ${r.waitMs} = ${ms(r.idealMs)}`
        : `ideal ${r.calls} × ${r.waitMs} = ${ms(r.idealMs)} (serialized)`,
      ratio: x(r.ratioP50),
      target: safe ? `≤ ${r.limit} in flight, near ideal` : 'serialize: 1 in flight',
      met: safe ? r.maxInFlight <= r.limit : r.maxInFlight === 1 && r.wallMs.p50 >= r.idealMs,
    };
  });
}

/** Issue 15: runs in flight scale with the cores, at least this much from 1 to 4 in flight on 2 cores. */
export const SCALING_TARGET = 1.7;

export function throughputRows(results: readonly ThroughputResult[]): Row[] {
  const rows: Row[] = [];
  for (const r of results) {
    rows.push({
      section: '4 throughput',
      name: `run_code 3-call program, ${r.inFlight} in flight (${r.isolation})`,
      value: `${r.runsPerSecond.toFixed(0)} runs/s (${x(r.scaling)} of 1 in flight)`,
      baseline: `floor ${r.floorRunsPerSecond.toFixed(0)} runs/s (sequential, one warm isolate)`,
      ratio: x(r.ratioToFloor),
      target: r.inFlight === 4 ? `≥ ${SCALING_TARGET}× of 1 in flight` : '',
      met: r.inFlight === 4 ? r.scaling >= SCALING_TARGET : null,
    });
    const cpu = r.cpuMsPerRun;
    if (r.inFlight !== 1 || cpu === undefined) continue;
    // At 1 in flight a run keeps (CPU per run / wall per run) cores busy; no number in
    // flight can go past the machine's cores, so cores / that is the most scaling can give.
    const total = cpu.host + cpu.sandbox + cpu.compiler;
    const wallMs = 1000 / r.runsPerSecond;
    const busy = total / wallMs;
    const cores = r.cores ?? 2;
    rows.push({
      section: '4 throughput',
      name: `… CPU per run at 1 in flight, all processes (${r.isolation})`,
      value: `${total.toFixed(2)} ms = host ${cpu.host.toFixed(2)} + sandbox processes ${cpu.sandbox.toFixed(2)} + esbuild ${cpu.compiler.toFixed(2)}, in ${wallMs.toFixed(2)} ms of wall time: ${busy.toFixed(2)} cores busy`,
      baseline: `${cores} cores: scaling from 1 in flight is bounded by ${cores} / ${busy.toFixed(2)}`,
      ratio: x(cores / busy),
      target: `bound ≥ ${SCALING_TARGET}× for the target to be reachable`,
      met: cores / busy >= SCALING_TARGET,
    });
  }
  return rows;
}

/** Growth below this many MiB per 1,000 runs counts as noise (no per-run leak of even 1 KiB). */
export const RSS_SLOPE_NOISE_MB_PER_1K = 1;
/** The host's JS heap after a full GC is exact: anything above 256 bytes per run is retained objects. */
export const HEAP_SLOPE_NOISE_MB_PER_1K = 0.25;

export function memoryRows(results: readonly MemoryResult[]): Row[] {
  const rows: Row[] = [];
  for (const r of results) {
    const runs = (n: number): string => n.toLocaleString('en-US');
    const procs = [
      {
        who: 'host (after a forced GC)',
        at1k: r.hostRssAtFitFromMb,
        atEnd: r.hostRssAtEndMb,
        slopeMb: r.hostSlopeMbPer1k,
        tailMb: r.hostTailSlopeMbPer1k,
        extra: `; JS heap slope ${r.hostHeapSlopeMbPer1k.toFixed(2)}`,
      },
      ...(r.childRssAtFitFromMb === undefined
        ? []
        : [
            {
              who: 'sandbox process',
              at1k: r.childRssAtFitFromMb,
              atEnd: r.childRssAtEndMb,
              slopeMb: r.childSlopeMbPer1k,
              tailMb: r.childTailSlopeMbPer1k,
            },
          ]),
    ];
    for (const p of procs) {
      const slopeMb = p.slopeMb ?? Number.NaN;
      const tailMb = p.tailMb ?? Number.NaN;
      if (p.who === 'sandbox process') {
        // The sandbox process is replaced every `recycleAfterRuns` runs, so its RSS is a
        // sawtooth: what must not grow is the peak, second half against first half.
        const rssAt = (from: number, to: number): number[] =>
          r.points.filter((q) => q.runs > from && q.runs <= to && q.childRssMb !== undefined).map((q) => q.childRssMb!);
        const firstPeak = Math.max(...rssAt(0, r.tailFromRuns));
        const secondPeak = Math.max(...rssAt(r.tailFromRuns, r.totalRuns));
        rows.push({
          section: '4 memory',
          name: `RSS of the sandbox process (recycled every 2,000 runs), ${r.totalRuns.toLocaleString('en-US')} runs ${r.inFlight} in flight (${r.isolation})`,
          value: `peak ${mb(secondPeak)} in runs ${runs(r.tailFromRuns)}–${runs(r.totalRuns)}; ${mb(p.atEnd)} at the end`,
          baseline: `peak ${mb(firstPeak)} in runs 1–${runs(r.tailFromRuns)}`,
          ratio: x(secondPeak / firstPeak),
          target: `second-half peak ≤ first-half peak + ${RSS_SLOPE_NOISE_MB_PER_1K * 5} MiB`,
          met: secondPeak <= firstPeak + RSS_SLOPE_NOISE_MB_PER_1K * 5,
        });
        continue;
      }
      rows.push({
        section: '4 memory',
        name: `RSS of the ${p.who}, ${r.totalRuns.toLocaleString('en-US')} runs ${r.inFlight} in flight (${r.isolation})`,
        value: `${mb(p.atEnd)} after ${runs(r.totalRuns)} runs; slope ${slopeMb.toFixed(2)} MiB/1k runs from run ${runs(r.fitFromRuns)}, ${tailMb.toFixed(2)} from run ${runs(r.tailFromRuns)}`,
        baseline: `${mb(p.at1k)} after ${runs(r.fitFromRuns)} runs`,
        ratio: x((p.atEnd ?? Number.NaN) / p.at1k),
        target: `second-half slope < ${RSS_SLOPE_NOISE_MB_PER_1K} MiB/1k runs`,
        met: Math.abs(tailMb) < RSS_SLOPE_NOISE_MB_PER_1K,
      });
    }
    const first = r.points.find((p) => p.runs >= r.fitFromRuns);
    const last = r.points[r.points.length - 1];
    rows.push({
      section: '4 memory',
      name: `host JS heap after a forced GC, same series (${r.isolation})`,
      value: `${mb(last?.hostHeapMb)} after ${runs(r.totalRuns)} runs; slope ${r.hostHeapSlopeMbPer1k.toFixed(2)} MiB/1k runs (${((r.hostHeapSlopeMbPer1k * 1_048_576) / 1000).toFixed(0)} B per run)`,
      baseline: `${mb(first?.hostHeapMb)} after ${runs(r.fitFromRuns)} runs`,
      ratio: x((last?.hostHeapMb ?? Number.NaN) / (first?.hostHeapMb ?? Number.NaN)),
      target: `slope < ${HEAP_SLOPE_NOISE_MB_PER_1K} MiB/1k runs`,
      met: Math.abs(r.hostHeapSlopeMbPer1k) < HEAP_SLOPE_NOISE_MB_PER_1K,
    });
  }
  return rows;
}

/** Issue 24: ptc-runtime's sequential nested call at most this many times UTCP code-mode's, per isolation mode. */
export const UTCP_NESTED_CALL_TARGET: Readonly<Record<'process' | 'in-process', number>> = {
  'in-process': 1.5,
  process: 2.5,
};

/**
 * Median of ours ÷ theirs over rounds run back to back (a shared machine's load drifts
 * between rounds; a pair sees the same load), or the ratio of the p50s without rounds.
 */
export function pairedNestedRatio(ours: PeerResult, theirs: PeerResult): number {
  const a = ours.nestedRoundsUs ?? [];
  const b = theirs.nestedRoundsUs ?? [];
  const pairs = Math.min(a.length, b.length);
  if (pairs === 0) return ours.nestedUs.p50 / theirs.nestedUs.p50;
  return summarize(Array.from({ length: pairs }, (_, i) => a[i]! / b[i]!)).p50;
}

export function peerRows(results: readonly PeerResult[], utcp: UtcpPeerStatus | string | undefined): Row[] {
  const rows: Row[] = [];
  const ours = results.find((r) => r.peer === 'ptc-runtime (pool)');
  const oursInProcess = results.find((r) => r.peer === 'ptc-runtime (pool, in-process)');
  const theirs = results.find((r) => r.peer === 'UTCP code-mode');
  for (const r of results) {
    if (r === ours || r === oursInProcess || r === theirs || ours === undefined) continue;
    rows.push(
      {
        section: '5 peers',
        name: `${r.peer}: \`return 1\` (ptc-runtime, process)`,
        value: `ptc-runtime p50 ${ms(ours.trivialMs.p50)} / p90 ${ms(ours.trivialMs.p90)}`,
        baseline: `${r.peer} p50 ${ms(r.trivialMs.p50)} / p90 ${ms(r.trivialMs.p90)}`,
        ratio: x(r.trivialRatio),
        target: '',
        met: null,
      },
      {
        section: '5 peers',
        name: `${r.peer}: 1 KB program, 3 calls`,
        value: `ptc-runtime p50 ${ms(ours.kbMs.p50)} / p90 ${ms(ours.kbMs.p90)}`,
        baseline: `${r.peer} p50 ${ms(r.kbMs.p50)} / p90 ${ms(r.kbMs.p90)}`,
        ratio: x(r.kbRatio),
        target: '',
        met: null,
      },
      {
        section: '5 peers',
        name: `${r.peer}: per nested call (1,000 calls)`,
        value: `ptc-runtime p50 ${us(ours.nestedUs.p50)}`,
        baseline: `${r.peer} p50 ${us(r.nestedUs.p50)}`,
        ratio: x(r.nestedRatio),
        target: '',
        met: null,
      },
    );
  }
  const status = typeof utcp === 'string' ? { ran: false, note: utcp } : utcp;
  if (theirs === undefined) {
    rows.push({
      section: '5 peers',
      name: 'UTCP @utcp/code-mode',
      value: 'not run',
      baseline: status?.note ?? '',
      ratio: '',
      target: '',
      met: null,
    });
    return rows;
  }
  rows.push({
    section: '5 peers',
    name: 'UTCP code-mode peer: what ran',
    value: status?.note ?? '',
    baseline:
      'same programs, interleaved; UTCP runs JavaScript, so its copies of the typed programs had their types erased once, outside the timing',
    ratio: '',
    target: '',
    met: null,
  });
  const modes = [
    { label: 'process', result: ours },
    { label: 'in-process', result: oursInProcess },
  ] as const;
  for (const { label, result } of modes) {
    if (result === undefined) continue;
    const nestedRatio = pairedNestedRatio(result, theirs);
    const leastLoadedRatio = result.nestedUs.min / theirs.nestedUs.min;
    const target = UTCP_NESTED_CALL_TARGET[label];
    rows.push(
      {
        section: '5 peers',
        name: `UTCP: sequential nested call (1,000 calls), ptc-runtime ${label}`,
        value: `ptc-runtime p50 ${us(result.nestedUs.p50)} / p90 ${us(result.nestedUs.p90)}`,
        baseline: `UTCP p50 ${us(theirs.nestedUs.p50)} / p90 ${us(theirs.nestedUs.p90)}; ratio of p50s ${x(result.nestedUs.p50 / theirs.nestedUs.p50)}, of minimums ${x(leastLoadedRatio)} (the least-loaded rounds); ratio = median of ${Math.min(result.nestedRoundsUs?.length ?? 0, theirs.nestedRoundsUs?.length ?? 0)} back-to-back rounds`,
        ratio: x(nestedRatio),
        // Load slows UTCP's blocking call more than ours, so a loaded median alone can flatter
        // ours: met only if the least-loaded rounds agree.
        target: `≤ ${target}× UTCP (median and least-loaded)`,
        met: nestedRatio <= target && leastLoadedRatio <= target,
      },
      ...marginalRows(label, result, theirs),
      {
        section: '5 peers',
        name: `UTCP: \`return 1\`, ptc-runtime ${label}`,
        value: `ptc-runtime p50 ${ms(result.trivialMs.p50)} / p90 ${ms(result.trivialMs.p90)}`,
        baseline: `UTCP p50 ${ms(theirs.trivialMs.p50)} / p90 ${ms(theirs.trivialMs.p90)}`,
        ratio: x(result.trivialMs.p50 / theirs.trivialMs.p50),
        target: '',
        met: null,
      },
      {
        section: '5 peers',
        name: `UTCP: 1 KB program, 3 calls, ptc-runtime ${label} (ours compiles TypeScript in the run)`,
        value: `ptc-runtime p50 ${ms(result.kbMs.p50)} / p90 ${ms(result.kbMs.p90)}`,
        baseline: `UTCP p50 ${ms(theirs.kbMs.p50)} / p90 ${ms(theirs.kbMs.p90)}`,
        ratio: x(result.kbMs.p50 / theirs.kbMs.p50),
        target: '',
        met: null,
      },
    );
    if (result.waitAllMs !== undefined && theirs.waitAllMs !== undefined) {
      rows.push({
        section: '5 peers',
        name: `UTCP: Promise.all of 100 × wait(10 ms), ptc-runtime ${label}`,
        value: `ptc-runtime p50 ${ms(result.waitAllMs.p50)} / p90 ${ms(result.waitAllMs.p90)}`,
        baseline: `UTCP p50 ${ms(theirs.waitAllMs.p50)} / p90 ${ms(theirs.waitAllMs.p90)} (its calls block the isolate: serial)`,
        ratio: x(result.waitAllMs.p50 / theirs.waitAllMs.p50),
        target: '',
        met: null,
      });
    }
  }
  return rows;
}

/**
 * The second view of the sequential nested call: what one more call costs, from rounds
 * that timed the 1,000- and 2,000-call programs back to back (none in reports from before).
 */
export function marginalRows(label: 'process' | 'in-process', ours: PeerResult, theirs: PeerResult): Row[] {
  const a = ours.marginalUs;
  const b = theirs.marginalUs;
  const aLeast = ours.marginalLeastLoadedUs;
  const bLeast = theirs.marginalLeastLoadedUs;
  if (a === undefined || b === undefined || aLeast === undefined || bLeast === undefined) return [];
  return [
    {
      section: '5 peers',
      name: `UTCP: marginal cost of a sequential nested call (2,000 − 1,000 calls), ptc-runtime ${label}`,
      value: `ptc-runtime p50 ${us(a.p50)}, least-loaded ${us(aLeast)}`,
      baseline: `UTCP p50 ${us(b.p50)}, least-loaded ${us(bLeast)}; ratio of p50s ${x(a.p50 / b.p50)}, of least-loaded ${x(aLeast / bLeast)}; p50 of ${Math.min(a.n, b.n)} rounds of (2,000-call run − 1,000-call run) / 1,000, the two back to back; least-loaded = (fastest 2,000-call run − fastest 1,000-call run) / 1,000`,
      ratio: x(a.p50 / b.p50),
      target:
        'second view of the row above, the work each run does once cancelled out; not a verdict (issue 24 is judged above)',
      met: null,
    },
  ];
}

export function contextRows(
  results: readonly ContextSavingsResult[],
  definitions?: DefinitionCost,
  sdk?: SdkSizeReport,
): Row[] {
  const rows: Row[] = results.map((r) => ({
    section: '6 context',
    name: `${r.scenario}: tool output entering the context${r.sameAnswer ? '' : ' (ANSWERS DIFFER)'}`,
    value: `run_code ${r.ptc.contextChars.toLocaleString('en-US')} chars, ${r.ptc.roundTrips} round trips`,
    baseline: `native ${r.native.contextChars.toLocaleString('en-US')} chars, ${r.native.roundTrips} round trips, ${r.native.toolCalls} calls`,
    ratio: `${(r.savedShare * 100).toFixed(1)}% fewer`,
    target: '≥ 90% fewer chars',
    met: r.sameAnswer && r.savedShare >= 0.9,
  }));
  if (definitions !== undefined) {
    const ptc = definitions.runCodeSchemaChars + definitions.sdkChars + definitions.instructionChars;
    rows.push({
      section: '6 context',
      name: 'shop tools: definitions sent with every model request',
      value: `ptc ${ptc.toLocaleString('en-US')} chars (run_code ${definitions.runCodeSchemaChars} + SDK ${definitions.sdkChars} + instructions ${definitions.instructionChars})`,
      baseline: `native schemas ${definitions.nativeSchemaChars.toLocaleString('en-US')} chars`,
      ratio: x(ptc / definitions.nativeSchemaChars),
      target: '',
      met: null,
    });
  }
  if (sdk !== undefined) {
    rows.push({
      section: '6 context',
      name: `${sdk.tools}-tool fixture: SDK text against the JSON schemas it replaces`,
      value: `SDK ${sdk.sdkChars.toLocaleString('en-US')} chars (generateSdk ${ms(sdk.generateMs)})`,
      baseline: `schemas ${sdk.schemaChars.toLocaleString('en-US')} chars (${sdk.schemaWithOutputChars.toLocaleString('en-US')} with output schemas)`,
      ratio: x(sdk.sdkChars / sdk.schemaChars),
      target: '',
      met: null,
    });
    for (const point of sdk.scaling) {
      rows.push({
        section: '6 context',
        name: `${point.tools.toLocaleString('en-US')} tools, deferLoading: everything rt.schemas() sends in ptc mode (JSON, SDK embedded)`,
        value: `${point.deferredChars.toLocaleString('en-US')} chars`,
        baseline: `all loaded ${point.loadedChars.toLocaleString('en-US')} chars`,
        ratio: x(point.deferredChars / point.loadedChars),
        target: point.tools === 1_000 ? '≤ 100,000 chars' : '',
        met: point.tools === 1_000 ? point.deferredChars <= 100_000 : null,
      });
    }
  }
  return rows;
}

/** The rows as a plain-text table, grouped by section. */
export function formatTable(rows: readonly Row[]): string {
  const lines: string[] = [];
  let section = '';
  for (const row of rows) {
    if (row.section !== section) {
      section = row.section;
      lines.push('', `== ${section} ==`);
    }
    const verdict = row.met === null ? '' : row.met ? '  [met]' : '  [MISSED]';
    lines.push(`${row.name}`);
    lines.push(`    ${row.value}`);
    lines.push(
      `    vs ${row.baseline}${row.ratio === '' ? '' : `  ->  ${row.ratio}`}${row.target === '' ? '' : `  (target ${row.target})`}${verdict}`,
    );
  }
  return lines.join('\n');
}

/** The rows as a Markdown table (for the README's Performance section). */
export function formatMarkdown(rows: readonly Row[]): string {
  const esc = (s: string): string => s.replaceAll('|', '\\|');
  const head = [
    '| § | measurement | measured | baseline (same run) | ratio | target | met |',
    '|---|---|---|---|---|---|---|',
  ];
  return [
    ...head,
    ...rows.map(
      (r) =>
        `| ${esc(r.section)} | ${esc(r.name.trim())} | ${esc(r.value)} | ${esc(r.baseline)} | ${esc(r.ratio)} | ${esc(r.target)} | ${r.met === null ? '' : r.met ? 'yes' : '**no**'} |`,
    ),
  ].join('\n');
}
