// For any mix of parallel and exclusive calls and any (fake) delays,
// results, contexts, observers and journal entries come out in model order; no
// exclusive body overlaps another body; the pool bound holds; pre- and post-policy
// hooks run one at a time, in model order.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { accept, deny } from '../../src/index.ts';
import { createMemoryJournal } from '../../src/journal/memory/memory-journal.ts';
import { contextTexts, expectJournalWhole, hops, userText, workRuntime, type WorkMode } from './helpers.ts';

const callSpec = fc.record({
  mode: fc.constantFrom<WorkMode>('safe', 'safe', 'safe', 'exclusive', 'throws', 'truthy'),
  bodyHops: fc.nat({ max: 6 }),
  preHops: fc.nat({ max: 3 }),
  postHops: fc.nat({ max: 3 }),
  contexts: fc.nat({ max: 2 }),
  denied: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
  fail: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
});

describe('executeTurn ordering (property)', () => {
  it('keeps model order and never overlaps an exclusive body, for any mix and any delays', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(callSpec, { maxLength: 9 }),
        fc.integer({ min: 1, max: 4 }),
        async (specs, concurrency) => {
          const journal = createMemoryJournal();
          const { rt, recorder } = workRuntime({ concurrency, journal });
          const ids = specs.map((_, i) => `c${i}`);
          const byId = new Map(specs.map((s, i) => [ids[i]!, s]));
          const hookLog: string[] = [];
          const observed: string[] = [];
          rt.on('tools/pre-execute', async (exec, next) => {
            hookLog.push(`pre>${exec.callId}`);
            const spec = byId.get(exec.callId)!;
            await hops(spec.preHops);
            hookLog.push(`pre<${exec.callId}`);
            return spec.denied ? deny('not now') : next();
          });
          rt.on('tools/post-execute', async (exec, _outcome, next) => {
            hookLog.push(`post>${exec.callId}`);
            await hops(byId.get(exec.callId)!.postHops);
            const decision = await next();
            hookLog.push(`post<${exec.callId}`);
            return decision.kind === 'accept'
              ? accept({ ...decision.changes, additionalContexts: [userText(`post:${exec.callId}`)] })
              : decision;
          });
          rt.on('tools/result', (result) => {
            observed.push(result.callId);
          });

          const turn = await rt.executeTurn(
            specs.map((s, i) => ({
              callId: ids[i]!,
              name: 'work',
              arguments: { id: ids[i]!, mode: s.mode, hops: s.bodyHops, contexts: s.contexts, fail: s.fail },
            })),
          );

          expect(turn.results.map((r) => r.callId)).toEqual(ids);
          expect(observed).toEqual(ids);
          const expectedContexts = specs.flatMap((s, i) => {
            const id = ids[i]!;
            const body = s.denied ? [] : Array.from({ length: s.contexts }, (_, k) => `body:${id}:${k}`);
            return [...body, `post:${id}`];
          });
          expect(contextTexts(turn.additionalContexts)).toEqual(expectedContexts);
          specs.forEach((s, i) => {
            const r = turn.results[i]!;
            if (s.denied) expect(r.error?.code).toBe('DENIED');
            else if (s.fail) expect(r.error?.code).toBe('TOOL_ERROR');
            else expect(r.value).toEqual({ id: ids[i] });
          });

          expect(recorder.violations).toEqual([]);
          expect(recorder.maxParallel).toBeLessThanOrEqual(concurrency);
          // Hooks: each invocation finishes before the next one starts, in model order.
          const pre = hookLog.filter((e) => e.startsWith('pre'));
          const post = hookLog.filter((e) => e.startsWith('post'));
          expect(pre).toEqual(ids.flatMap((id) => [`pre>${id}`, `pre<${id}`]));
          expect(post).toEqual(ids.flatMap((id) => [`post>${id}`, `post<${id}`]));

          const { events } = await journal.read();
          expectJournalWhole(events, ids);
        },
      ),
      { numRuns: 120 },
    );
  });

  it('does overlap concurrency-safe bodies (the pool is really used)', async () => {
    const { rt, recorder } = workRuntime({ concurrency: 3 });
    const turn = await rt.executeTurn(
      ['a', 'b', 'c', 'd'].map((id) => ({ callId: id, name: 'work', arguments: { id, mode: 'safe', hops: 5 } })),
    );
    expect(turn.results.every((r) => !r.isError)).toBe(true);
    expect(recorder.maxParallel).toBe(3);
    expect(recorder.violations).toEqual([]);
  });
});
