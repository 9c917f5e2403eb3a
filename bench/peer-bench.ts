// Section 5: the same programs on peers, interleaved with ptc-runtime in the same run: a
// fresh worker_threads Worker per run (worker-per-run-peer.ts), a fresh isolate per run
// without a pool (the real runtime with poolSize 0), and UTCP's code-mode runtime
// (@utcp/code-mode on isolated-vm 6 under Node 22, in its own process: bench/peers/).
// ptc-runtime runs in both isolation modes, since the crossing targets are
// per mode against UTCP's per-call cost.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DOUBLED_NESTED_CALLS,
  DOUBLED_NESTED_CALLS_PROGRAM,
  KB_PROGRAM,
  NESTED_CALLS,
  NESTED_CALLS_PROGRAM,
  sequentialCallsSum,
  TRIVIAL_PROGRAM,
  waitAllProgram,
} from './bench-programs.ts';
import { createBenchRuntime, type BenchRuntime } from './bench-runtime.ts';
import { marginalCost, type MarginalCost } from './marginal-cost.ts';
import {
  installUtcpPeer,
  type PeerProgram,
  UTCP_INSTALL_HINT,
  UtcpPeer,
  utcpInstalled,
  type UtcpVersions,
} from './peers/utcp-peer-client.ts';
import { summarize, timeMs, type Summary } from './stats.ts';
import { runInFreshWorker } from './worker-per-run-peer.ts';

export type PeerName =
  | 'ptc-runtime (pool)'
  | 'ptc-runtime (pool, in-process)'
  | 'worker per run'
  | 'isolate per run, no pool'
  | 'UTCP code-mode';

/** A peer's figures; the marginal ones (MarginalCost) for ptc-runtime and UTCP only. */
export interface PeerResult extends Partial<MarginalCost> {
  readonly peer: PeerName;
  /** Milliseconds per run. */
  readonly trivialMs: Summary;
  readonly kbMs: Summary;
  /** Microseconds per nested call in the 1,000-call program (less a trivial run). */
  readonly nestedUs: Summary;
  /** The same per round, in round order: every peer's round i ran back to back, so ratios can be paired. */
  readonly nestedRoundsUs?: readonly number[];
  /** Milliseconds per run of 100 × wait(10 ms) in Promise.all (ptc-runtime and UTCP only). */
  readonly waitAllMs?: Summary;
  /** ptc-runtime's (process) p50 / this peer's p50 (below 1: ptc-runtime is faster). */
  readonly trivialRatio: number;
  readonly kbRatio: number;
  readonly nestedRatio: number;
}

/** Whether UTCP ran, with its versions, or exactly why not and how to make it run. */
export interface UtcpPeerStatus {
  readonly ran: boolean;
  readonly versions?: UtcpVersions;
  readonly note: string;
}

export interface PeerBenchResult {
  readonly peers: PeerResult[];
  readonly utcp: UtcpPeerStatus;
}

export interface PeerOptions {
  readonly iterations?: number;
  readonly nestedIterations?: number;
  /** Rounds of the 1,000- and 2,000-call pair (default 15: a difference of two runs is noisier than one run). */
  readonly marginalIterations?: number;
  readonly waitAllIterations?: number;
  readonly gapMs?: number;
  /** Install the UTCP peer when it is absent (default true; bench/peers/install-utcp.sh). */
  readonly installUtcp?: boolean;
  readonly onProgress?: (text: string) => void;
}

interface Peer {
  readonly name: PeerName;
  /** Milliseconds one run of the program took. */
  time(program: PeerProgram): Promise<number>;
}

const WAIT_ALL_CALLS = 100;
const WAIT_ALL_MS = 10;
const CODE: Readonly<Record<PeerProgram, string>> = {
  trivial: TRIVIAL_PROGRAM,
  kb: KB_PROGRAM,
  nested: NESTED_CALLS_PROGRAM,
  nested2k: DOUBLED_NESTED_CALLS_PROGRAM,
  waitAll: waitAllProgram(WAIT_ALL_CALLS, WAIT_ALL_MS, true),
};

/** Starts the UTCP peer, installing it first when allowed; a status saying why not otherwise. */
async function startUtcp(options: PeerOptions): Promise<UtcpPeer | UtcpPeerStatus> {
  const log = options.onProgress ?? (() => {});
  if (!utcpInstalled()) {
    if (options.installUtcp === false)
      return { ran: false, note: `not installed (--no-peer-install): ${UTCP_INSTALL_HINT}` };
    const failure = installUtcpPeer(log);
    if (failure !== undefined) return { ran: false, note: `${failure}; ${UTCP_INSTALL_HINT}` };
  }
  try {
    return await UtcpPeer.start();
  } catch (error) {
    return { ran: false, note: `${error instanceof Error ? error.message : String(error)}; ${UTCP_INSTALL_HINT}` };
  }
}

export async function runPeerBench(options: PeerOptions = {}): Promise<PeerBenchResult> {
  const iterations = options.iterations ?? 25;
  const nestedIterations = options.nestedIterations ?? 7;
  const marginalIterations = options.marginalIterations ?? 15;
  const waitAllIterations = options.waitAllIterations ?? 5;
  const gapMs = options.gapMs ?? 5;
  const utcp = await startUtcp(options);
  // Room for the 2,000-call program (the default is 1,000 calls a run); a count, no cost.
  const callRoom = { maxCalls: DOUBLED_NESTED_CALLS };
  const pooled = createBenchRuntime({ isolation: 'process', limits: callRoom });
  const inProcess = createBenchRuntime({ isolation: 'in-process', limits: callRoom });
  const unpooled = createBenchRuntime({ isolation: 'process', poolSize: 0 });
  try {
    const viaRuntime = (bench: BenchRuntime) => (program: PeerProgram) => timeMs(() => bench.runCode(CODE[program]));
    const peers: Peer[] = [
      { name: 'ptc-runtime (pool)', time: viaRuntime(pooled) },
      { name: 'ptc-runtime (pool, in-process)', time: viaRuntime(inProcess) },
      { name: 'worker per run', time: (program) => timeMs(() => runInFreshWorker(pooled.rt, CODE[program])) },
      { name: 'isolate per run, no pool', time: viaRuntime(unpooled) },
    ];
    // UTCP between ptc-runtime's two modes: each of its rounds runs next to both of ours.
    if (utcp instanceof UtcpPeer) peers.splice(1, 0, { name: 'UTCP code-mode', time: (program) => utcp.time(program) });
    // The peers of the UTCP rows: they alone run the marginal pairs and the waitAll program.
    const utcpRowPeers = new Set<PeerName>(['ptc-runtime (pool)', 'ptc-runtime (pool, in-process)', 'UTCP code-mode']);
    const samples = new Map(
      peers.map((p) => [
        p.name,
        {
          trivial: [] as number[],
          kb: [] as number[],
          nested: [] as number[],
          calls1000: [] as number[],
          calls2000: [] as number[],
          waitAll: [] as number[],
        },
      ]),
    );
    for (const peer of peers)
      for (const program of ['trivial', 'kb', 'trivial', 'nested'] as const) await peer.time(program); // warm-up
    for (let i = 0; i < iterations; i += 1) {
      for (const peer of peers) {
        const own = samples.get(peer.name)!;
        await sleep(gapMs);
        own.trivial.push(await peer.time('trivial'));
        await sleep(gapMs);
        own.kb.push(await peer.time('kb'));
      }
    }
    for (let i = 0; i < nestedIterations; i += 1) {
      for (const peer of peers) samples.get(peer.name)!.nested.push(await peer.time('nested'));
    }
    // The second view of the nested call, after the rounds above (which stay as they were):
    // per round and peer the 1,000- and 2,000-call programs back to back, which one first
    // alternating by round; their difference is 1,000 calls without what each run does once.
    const marginalPeers = marginalIterations > 0 ? peers.filter((peer) => utcpRowPeers.has(peer.name)) : [];
    if (marginalPeers.length > 0) {
      // Warm-up; ours checked once here (UTCP's driver checks every run it times).
      for (const bench of [pooled, inProcess]) {
        const { value } = await bench.runCode(DOUBLED_NESTED_CALLS_PROGRAM);
        const returned = typeof value === 'object' && value !== null && 'result' in value ? value.result : undefined;
        if (returned !== sequentialCallsSum(DOUBLED_NESTED_CALLS))
          throw new Error(`bench: the ${DOUBLED_NESTED_CALLS}-call program returned ${JSON.stringify(value)}`);
      }
      if (utcp instanceof UtcpPeer) await utcp.time('nested2k');
    }
    // Round -1 is a warm-up of the pair itself: the first recorded round came out low for
    // ours and high for UTCP in both tries without it (a slow 1,000-call run for ours).
    for (let i = -1; i < marginalIterations; i += 1) {
      for (const peer of marginalPeers) {
        const [first, second] = i % 2 === 0 ? (['nested', 'nested2k'] as const) : (['nested2k', 'nested'] as const);
        const firstMs = await peer.time(first);
        const secondMs = await peer.time(second);
        if (i < 0) continue;
        const own = samples.get(peer.name)!;
        own.calls1000.push(first === 'nested' ? firstMs : secondMs);
        own.calls2000.push(first === 'nested' ? secondMs : firstMs);
      }
    }
    for (let i = 0; i < waitAllIterations; i += 1) {
      for (const peer of peers)
        if (utcpRowPeers.has(peer.name)) samples.get(peer.name)!.waitAll.push(await peer.time('waitAll'));
    }
    const summaries = peers.map((peer) => {
      const own = samples.get(peer.name)!;
      const trivialMs = summarize(own.trivial);
      const nestedRoundsUs = own.nested.map((ms) => ((ms - trivialMs.p50) * 1000) / NESTED_CALLS);
      return {
        peer: peer.name,
        trivialMs,
        kbMs: summarize(own.kb),
        nestedUs: summarize(nestedRoundsUs),
        nestedRoundsUs,
        ...marginalCost(own.calls1000, own.calls2000),
        ...(own.waitAll.length === 0 ? {} : { waitAllMs: summarize(own.waitAll) }),
      };
    });
    const ours = summaries[0]!;
    return {
      peers: summaries.map((s) => ({
        ...s,
        trivialRatio: ours.trivialMs.p50 / s.trivialMs.p50,
        kbRatio: ours.kbMs.p50 / s.kbMs.p50,
        nestedRatio: ours.nestedUs.p50 / s.nestedUs.p50,
      })),
      utcp:
        utcp instanceof UtcpPeer
          ? {
              ran: true,
              versions: utcp.versions,
              note: `@utcp/code-mode ${utcp.versions.codeMode}, @utcp/sdk ${utcp.versions.sdk}, @utcp/direct-call ${utcp.versions.directCall}, isolated-vm ${utcp.versions.isolatedVm} on Node ${utcp.versions.node} (own process; bench/peers/)`,
            }
          : utcp,
    };
  } finally {
    await Promise.all([
      pooled.close(),
      inProcess.close(),
      unpooled.close(),
      utcp instanceof UtcpPeer ? utcp.close() : undefined,
    ]);
  }
}
