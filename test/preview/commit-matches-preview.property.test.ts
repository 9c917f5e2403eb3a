// For random programs — sequential and parallel reads and writes, branches on what reads
// answered, and branches on a write's real result (which a preview cannot know) — a
// commit after a preview performs exactly the previewed writes with the same arguments,
// in plan order, or stops before the first write that differs: what ran is a prefix of
// the plan, the unplanned write never runs, and what ran is undone.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { defineTool, type JsonValue } from '../../src/index.ts';
import { ptcRuntimes } from '../ptc/helpers.ts';

const runtime = ptcRuntimes();

type Step =
  | { kind: 'read'; key: number }
  | { kind: 'write'; key: number; fromRead: boolean }
  | { kind: 'branch'; key: number; threshold: number; write: number }
  | { kind: 'parallel'; keys: number[]; writes: boolean[] }
  | { kind: 'onResult'; key: number };

const key = fc.integer({ min: 0, max: 4 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('read' as const), key }),
  fc.record({ kind: fc.constant('write' as const), key, fromRead: fc.boolean() }),
  fc.record({ kind: fc.constant('branch' as const), key, threshold: fc.integer({ min: 0, max: 9 }), write: key }),
  fc.record({
    kind: fc.constant('parallel' as const),
    keys: fc.array(key, { minLength: 1, maxLength: 4 }),
    writes: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant('onResult' as const), key }),
);

/** The program text of the steps: reads set `last`, writes may use it. */
function programOf(steps: readonly Step[]): string {
  const lines = ['let last = 0;'];
  for (const s of steps) {
    if (s.kind === 'read') lines.push(`last = (await tools.get({ key: ${s.key} })).value;`);
    if (s.kind === 'write')
      lines.push(`await tools.put({ key: ${s.key}, value: ${s.fromRead ? 'last' : s.key * 10} });`);
    if (s.kind === 'branch')
      lines.push(
        `if ((await tools.get({ key: ${s.key} })).value > ${s.threshold}) await tools.put({ key: ${s.write}, value: ${s.threshold} });`,
      );
    if (s.kind === 'parallel') {
      const calls = s.keys.map((k, i) =>
        s.writes[i] === true ? `tools.put({ key: ${k}, value: ${i} })` : `tools.get({ key: ${k} })`,
      );
      lines.push(`await Promise.all([${calls.join(', ')}]);`);
    }
    // The preview's stand-in says version 0; the real write answers its version (>= 1).
    if (s.kind === 'onResult')
      lines.push(
        `if ((await tools.put({ key: ${s.key}, value: 7 })).version > 0) await tools.put({ key: 99, value: 99 });`,
      );
  }
  lines.push('return last;');
  return lines.join('\n');
}

describe('commit after preview', () => {
  it('performs exactly the previewed writes, or stops before the first difference and undoes what ran', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 5, maxLength: 5 }),
        async (steps, initial) => {
          const rt = runtime();
          const store = new Map<number, number>(initial.map((v, i) => [i, v]));
          const writes: string[] = [];
          const reverts: string[] = [];
          let version = 0;
          rt.register(
            defineTool({
              name: 'get',
              description: 'Read a key.',
              parameters: { key: { type: 'integer', required: true } },
              output: { schema: { type: 'json' }, render: () => [] },
              effect: 'read',
              isConcurrencySafe: () => true,
              execute: ({ key: k }) => ({ value: store.get(k) ?? 0 }),
            }),
          );
          rt.register(
            defineTool({
              name: 'put',
              description: 'Write a key.',
              parameters: { key: { type: 'integer', required: true }, value: { type: 'json', required: true } },
              output: { schema: { type: 'json' }, render: () => [] },
              preview: () => ({ version: 0 }),
              revert: (args) => {
                reverts.push(JSON.stringify(args));
              },
              execute: (args) => {
                writes.push(JSON.stringify(args));
                version += 1;
                return { version } as JsonValue;
              },
            }),
          );
          const code = programOf(steps);
          const { plan } = await rt.preview({
            callId: 'p',
            name: 'run_code',
            arguments: { description: 'random program', code },
          });
          expect(writes).toStrictEqual([]);
          const planned = plan.writes.map((w) => JSON.stringify(w.arguments));
          expect(plan.writes.map((w) => w.seq)).toStrictEqual([...plan.writes.map((w) => w.seq)].sort((a, b) => a - b));
          const diverges = steps.some((s) => s.kind === 'onResult');
          try {
            const { commit } = await rt.commit(plan.token);
            expect(diverges).toBe(false);
            expect(writes).toStrictEqual(planned);
            expect(commit.applied.map((w) => JSON.stringify(w.arguments))).toStrictEqual(planned);
          } catch (error) {
            expect(diverges).toBe(true);
            expect(error).toMatchObject({ code: 'PLAN_MISMATCH' });
            expect((error as Error).message).toMatch(
              /tools\.put\(\{"key":99,"value":99\}\)( is not in the plan| where the plan has)/,
            );
            // What ran is the plan's prefix up to the first difference; the unplanned write never ran.
            expect(writes).toStrictEqual(planned.slice(0, writes.length));
            expect(writes).not.toContain('{"key":99,"value":99}');
            expect(reverts).toStrictEqual([...writes].reverse());
          }
          await rt.close();
        },
      ),
      { numRuns: 40 },
    );
  }, 240_000);
});
