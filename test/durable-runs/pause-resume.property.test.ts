// Property: for random programs of sequential and parallel calls, some of them gated,
// pausing at every gate and resuming (approving what is pending) ends with the same
// value and the same body executions — each call's body exactly once — as one
// uninterrupted run whose approval service allowed the same calls. The programs also
// put Math.random() and Date.now() into their arguments: a resume that saw other values
// would diverge and fail.
import { afterAll, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  ask,
  createMemoryJournal,
  createToolRuntime,
  defineTool,
  type ApprovalService,
  type PausedRun,
  type ToolResult,
} from '../../src/index.ts';
import { createSandbox } from '../../sandbox/index.ts';

const sandbox = createSandbox({ isolation: 'in-process', poolSize: 2 });
afterAll(() => sandbox.close());

type Step =
  | { readonly kind: 'one'; readonly gated: boolean }
  | { readonly kind: 'all'; readonly gated: readonly boolean[] };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('one' as const), gated: fc.boolean() }),
  fc.record({ kind: fc.constant('all' as const), gated: fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }) }),
);

/** The program text: each call gets a fresh id; its result joins `out`. */
function programOf(steps: readonly Step[]): string {
  let id = 0;
  const call = (gated: boolean): string => `tools.op({ id: ${++id}, g: ${gated}, r: Math.random(), t: Date.now() })`;
  const lines = ['const out = [];'];
  for (const step of steps) {
    if (step.kind === 'one') lines.push(`out.push((await ${call(step.gated)}).id);`);
    else lines.push(`out.push(...(await Promise.all([${step.gated.map(call).join(', ')}])).map((v) => v.id));`);
  }
  lines.push('return out;');
  return lines.join('\n');
}

function runtime(approval: ApprovalService, executed: number[]) {
  const rt = createToolRuntime({ journal: createMemoryJournal(), mode: 'ptc', approval, sandbox });
  rt.register(
    defineTool({
      name: 'op',
      description: 'An operation.',
      parameters: {
        id: { type: 'number', required: true },
        g: { type: 'boolean', required: true },
        r: { type: 'number' },
        t: { type: 'number' },
      },
      output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'ok' }] },
      isConcurrencySafe: () => true,
      execute: ({ id }) => {
        executed.push(id);
        return { id };
      },
    }),
  );
  rt.on('tools/pre-execute', async (exec, next) => ((exec.arguments as { g: boolean }).g ? ask() : next()));
  return rt;
}

const paused = (result: ToolResult): PausedRun | undefined =>
  (result.value as { paused?: PausedRun } | undefined)?.paused;

it('pause/resume at every gate equals one uninterrupted run that approved the same calls', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 5 }), async (steps) => {
      const code = programOf(steps);
      const call = { callId: 'p', name: 'run_code', arguments: { description: 'random program', code } };

      const straightBodies: number[] = [];
      const straight = runtime({ request: async () => 'allowed-once' }, straightBodies);
      const expected = await straight.execute(call);
      expect(expected.isError).toBe(false);

      const pausedBodies: number[] = [];
      const pausing = runtime({ request: async () => 'pause' }, pausedBodies);
      let result = await pausing.execute(call);
      let pauses = 0;
      for (let state = paused(result); state !== undefined; state = paused(result)) {
        pauses += 1;
        expect(state.pending.length).toBeGreaterThan(0);
        result = await pausing.resume(state.runId, Object.fromEntries(state.pending.map((p) => [p.callId, 'approve'])));
      }
      expect(result.isError).toBe(false);
      expect((result.value as { result: unknown }).result).toStrictEqual(
        (expected.value as { result: unknown }).result,
      );
      // Every body ran exactly once, the same ones as in the uninterrupted run.
      expect([...pausedBodies].sort((a, b) => a - b)).toStrictEqual([...straightBodies].sort((a, b) => a - b));
      expect(new Set(pausedBodies).size).toBe(pausedBodies.length);
      // A step with gated calls pauses at most once: its gated calls are pending together.
      expect(pauses).toBeLessThanOrEqual(
        steps.filter((s) => (s.kind === 'one' ? s.gated : s.gated.includes(true))).length,
      );
      await straight.close();
      await pausing.close();
    }),
    { numRuns: 20 },
  );
}, 240_000);
