// Section 5: the same programs on in-repo peers, interleaved with ptc-runtime in the
// same run: a fresh worker_threads Worker per run (worker-per-run-peer.ts), and a fresh
// isolate per run without a pool (the real runtime with poolSize 0). UTCP's
// @utcp/code-mode is reported as not installed (see the README's Performance section).
import { setTimeout as sleep } from 'node:timers/promises';
import { KB_PROGRAM, NESTED_CALLS, NESTED_CALLS_PROGRAM, TRIVIAL_PROGRAM } from './bench-programs.ts';
import { createBenchRuntime, type BenchRuntime } from './bench-runtime.ts';
import { summarize, timeMs, type Summary } from './stats.ts';
import { runInFreshWorker } from './worker-per-run-peer.ts';

export type PeerName = 'ptc-runtime (pool)' | 'worker per run' | 'isolate per run, no pool';

export interface PeerResult {
  readonly peer: PeerName;
  /** Milliseconds per run. */
  readonly trivialMs: Summary;
  readonly kbMs: Summary;
  /** Microseconds per nested call in the 1,000-call program (less a trivial run). */
  readonly nestedUs: Summary;
  /** ptc-runtime's p50 / this peer's p50 (below 1: ptc-runtime is faster). */
  readonly trivialRatio: number;
  readonly kbRatio: number;
  readonly nestedRatio: number;
}

export interface PeerOptions {
  readonly iterations?: number;
  readonly nestedIterations?: number;
  readonly gapMs?: number;
}

export async function runPeerBench(options: PeerOptions = {}): Promise<PeerResult[]> {
  const iterations = options.iterations ?? 25;
  const nestedIterations = options.nestedIterations ?? 3;
  const gapMs = options.gapMs ?? 5;
  const pooled = createBenchRuntime({ isolation: 'process' });
  const unpooled = createBenchRuntime({ isolation: 'process', poolSize: 0 });
  try {
    const viaRuntime = (bench: BenchRuntime) => (code: string) => bench.runCode(code);
    const peers: readonly { readonly name: PeerName; readonly run: (code: string) => Promise<unknown> }[] = [
      { name: 'ptc-runtime (pool)', run: viaRuntime(pooled) },
      { name: 'worker per run', run: (code) => runInFreshWorker(pooled.rt, code) },
      { name: 'isolate per run, no pool', run: viaRuntime(unpooled) },
    ];
    const samples = new Map(
      peers.map((p) => [p.name, { trivial: [] as number[], kb: [] as number[], nested: [] as number[] }]),
    );
    for (const peer of peers) for (const code of [TRIVIAL_PROGRAM, KB_PROGRAM, TRIVIAL_PROGRAM]) await peer.run(code); // warm-up
    for (let i = 0; i < iterations; i += 1) {
      for (const peer of peers) {
        const own = samples.get(peer.name)!;
        await sleep(gapMs);
        own.trivial.push(await timeMs(() => peer.run(TRIVIAL_PROGRAM)));
        await sleep(gapMs);
        own.kb.push(await timeMs(() => peer.run(KB_PROGRAM)));
      }
    }
    for (let i = 0; i < nestedIterations; i += 1) {
      for (const peer of peers) samples.get(peer.name)!.nested.push(await timeMs(() => peer.run(NESTED_CALLS_PROGRAM)));
    }
    const summaries = peers.map((peer) => {
      const own = samples.get(peer.name)!;
      const trivialMs = summarize(own.trivial);
      return {
        peer: peer.name,
        trivialMs,
        kbMs: summarize(own.kb),
        nestedUs: summarize(own.nested.map((ms) => ((ms - trivialMs.p50) * 1000) / NESTED_CALLS)),
      };
    });
    const ours = summaries[0]!;
    return summaries.map((s) => ({
      ...s,
      trivialRatio: ours.trivialMs.p50 / s.trivialMs.p50,
      kbRatio: ours.kbMs.p50 / s.kbMs.p50,
      nestedRatio: ours.nestedUs.p50 / s.nestedUs.p50,
    }));
  } finally {
    await Promise.all([pooled.close(), unpooled.close()]);
  }
}
