// The cost of one more sequential call, from runs of the 1,000- and 2,000-call programs
// timed back to back: their difference is 1,000 calls without the work every run does
// once (taking an isolate and the pool's refill, the first calls' placement sampling,
// cold guest code), which the per-call figure of a single run spreads over its calls.
import { DOUBLED_NESTED_CALLS, NESTED_CALLS } from './bench-programs.ts';
import { summarize, type Summary } from './stats.ts';

export interface MarginalCost {
  /** Microseconds per call of each round's (2,000-call run − 1,000-call run) / 1,000. */
  readonly marginalUs: Summary;
  /** The same per round, in round order. */
  readonly marginalRoundsUs: readonly number[];
  /** Milliseconds per run of the two programs. */
  readonly marginalRunsMs: { readonly calls1000: Summary; readonly calls2000: Summary };
  /**
   * The least-loaded figure: (fastest 2,000-call run − fastest 1,000-call run) / 1,000. Not
   * the least of the rounds: a load spike in a round's 1,000-call run makes its difference
   * small, even negative.
   */
  readonly marginalLeastLoadedUs: number;
}

/** Round i is calls1000Ms[i] and calls2000Ms[i]; undefined without a round. */
export function marginalCost(calls1000Ms: readonly number[], calls2000Ms: readonly number[]): MarginalCost | undefined {
  const rounds = Math.min(calls1000Ms.length, calls2000Ms.length);
  if (rounds === 0) return undefined;
  const extraCalls = DOUBLED_NESTED_CALLS - NESTED_CALLS;
  const perCall = (ms: number): number => (ms * 1000) / extraCalls;
  const marginalRoundsUs = Array.from({ length: rounds }, (_, i) => perCall(calls2000Ms[i]! - calls1000Ms[i]!));
  return {
    marginalUs: summarize(marginalRoundsUs),
    marginalRoundsUs,
    marginalRunsMs: { calls1000: summarize(calls1000Ms), calls2000: summarize(calls2000Ms) },
    marginalLeastLoadedUs: perCall(Math.min(...calls2000Ms) - Math.min(...calls1000Ms)),
  };
}
