// Run claims of the memory store: held in this process's memory, so they bind only the
// runtimes of this process (the memory journal keeps nothing across processes either).
import { isClaimLive, type RunClaim, type RunClaims } from '../run-claims.ts';

/** Claims held in this process's memory (the memory journal; also a model for other stores). */
export function createMemoryRunClaims(): RunClaims {
  const held = new Map<string, RunClaim>();
  return {
    async claimRun(claim) {
      const current = held.get(claim.runId);
      if (current !== undefined && current.owner !== claim.owner && isClaimLive(current)) return current;
      held.set(claim.runId, claim);
      return undefined;
    },
    async releaseRun(runId, owner) {
      if (held.get(runId)?.owner === owner) held.delete(runId);
    },
    async runClaim(runId) {
      return held.get(runId);
    },
  };
}
