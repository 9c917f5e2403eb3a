// The guest's random bits for crypto.getRandomValues/randomUUID: the run's deterministic
// generator (deterministic-sources.ts), so a re-run draws the same values.
export { randomUint32 } from './deterministic-sources.ts';
