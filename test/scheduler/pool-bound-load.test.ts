// The parallel pool's bound under a mixed concurrent load: calls submitted at once and
// one at a time (as run_code does), bodies that fail, throw at once or are aborted while
// they run or wait, the whole sequence aborted part-way, exclusive barriers between them;
// concurrency 1, 2, 3 and 5. Counts the bodies really running at every moment, and their
// start order.
import { describe, expect, it } from '@jest/globals';
import { defineTool } from '../../src/index.ts';
import type { PipelineDeps } from '../../src/pipeline/execute-tool.ts';
import { Hooks } from '../../src/pipeline/hooks.ts';
import { ToolRegistry } from '../../src/registry/tool-registry.ts';
import { createCallSequencer } from '../../src/scheduler/call-sequencer.ts';
import { hops } from './helpers.ts';

type Ending = 'ok' | 'fail' | 'throwAtOnce' | 'abortRunning' | 'abortWaiting';

interface LoadArgs {
  readonly id: string;
  readonly safe: boolean;
  readonly hops: number;
  readonly ending: Ending;
}

/** Deterministic pseudo-random numbers (mulberry32), so a failure can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function loadPipeline() {
  const running = new Set<string>();
  const started: string[] = [];
  let maxRunning = 0;
  let exclusiveOverlap = 0;
  let exclusiveRunning = false;
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'load',
      description: 'A body of the load test.',
      parameters: {
        id: { type: 'string', required: true },
        safe: { type: 'boolean', required: true },
        hops: { type: 'integer', minimum: 0, required: true },
        ending: { type: 'string', required: true },
      },
      output: {
        schema: { type: 'object', additionalProperties: false, properties: { id: { type: 'string', required: true } } },
        render: (_args, value) => [{ type: 'text', text: `done:${value.id}` }],
      },
      isConcurrencySafe: (args) => args.safe,
      execute: (args, exec) => {
        const { id, safe, ending } = args as LoadArgs;
        if (ending === 'throwAtOnce') throw new Error(`load ${id} threw`);
        if (!safe && running.size > 0) exclusiveOverlap += 1;
        if (exclusiveRunning) exclusiveOverlap += 1;
        exclusiveRunning ||= !safe;
        running.add(id);
        started.push(id);
        maxRunning = Math.max(maxRunning, running.size);
        // The body stops at once on abort: it is done (not given up on) when the abort ends.
        const end = (): void => {
          if (running.delete(id) && !safe) exclusiveRunning = false;
        };
        exec.signal.addEventListener('abort', end, { once: true });
        return (async () => {
          try {
            for (let i = 0; i < args.hops && !exec.signal.aborted; i += 1) await hops(1);
            if (exec.signal.aborted) throw exec.signal.reason;
            if (ending === 'fail') throw new Error(`load ${id} failed`);
            return { id };
          } finally {
            end();
          }
        })();
      },
    }),
  );
  const deps: PipelineDeps = {
    registry,
    hooks: new Hooks(),
    approval: undefined,
    resolveTool: (name, agent) => registry.resolve(name, agent),
    directCallRefusal: () => undefined,
  };
  return {
    deps,
    started,
    get maxRunning() {
      return maxRunning;
    },
    get exclusiveOverlap() {
      return exclusiveOverlap;
    },
  };
}

async function runLoad(seed: number, concurrency: number) {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const load = loadPipeline();
  // Every fourth load is aborted as a whole part-way (a run that ends while its calls are out).
  const whole = new AbortController();
  const abortAt = seed % 4 === 0 ? 20 + Math.floor(next() * 30) : -1;
  const sequencer = createCallSequencer(load.deps, { concurrency, callIdsUnique: true, signal: whole.signal });
  const results: Array<Promise<unknown>> = [];
  const safeSubmitted: string[] = [];
  for (let i = 0; i < 60; i += 1) {
    if (i === abortAt) whole.abort(new Error('the run ended'));
    const id = `c${i}`;
    const ending = pick<Ending>(['ok', 'ok', 'ok', 'ok', 'fail', 'throwAtOnce', 'abortRunning', 'abortWaiting']);
    const safe = next() < 0.85;
    const args: LoadArgs = { id, safe, hops: Math.floor(next() * 6), ending };
    const own = new AbortController();
    if (safe) safeSubmitted.push(id);
    const result = sequencer.submit({ callId: id, name: 'load', arguments: args, signal: own.signal });
    results.push(result);
    if (ending === 'abortWaiting') own.abort(new Error(`abort ${id}`));
    if (ending === 'abortRunning')
      void hops(1 + Math.floor(next() * 3)).then(() => own.abort(new Error(`abort ${id}`)));
    // Sometimes the next call comes only after this one's result (a program awaiting each call),
    // sometimes after a few hops, sometimes at once.
    const gap = next();
    if (gap < 0.3) await result;
    else if (gap < 0.6) await hops(Math.floor(next() * 4));
  }
  await Promise.all(results);
  await sequencer.close();
  return { load, safeSubmitted };
}

describe('the parallel pool under a mixed concurrent load', () => {
  for (const concurrency of [1, 2, 3, 5]) {
    it(`never runs more than ${concurrency} bodies at once, and starts parallel bodies in submission order`, async () => {
      let peak = 0;
      for (let seed = 1; seed <= 40; seed += 1) {
        const { load, safeSubmitted } = await runLoad(seed * 7919 + concurrency, concurrency);
        expect({ seed, max: load.maxRunning }).toEqual({ seed, max: Math.min(load.maxRunning, concurrency) });
        expect({ seed, overlap: load.exclusiveOverlap }).toEqual({ seed, overlap: 0 });
        const safeStarted = load.started.filter((id) => safeSubmitted.includes(id));
        const inOrder = safeSubmitted.filter((id) => safeStarted.includes(id));
        expect({ seed, order: safeStarted }).toEqual({ seed, order: inOrder });
        peak = Math.max(peak, load.maxRunning);
      }
      // The load really filled the pool.
      expect(peak).toBe(concurrency);
    });
  }
});
