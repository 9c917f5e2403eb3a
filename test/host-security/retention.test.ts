// Argument and result retention per run: nothing of a nested call is kept after it
// commits, and what a run may hold at once is capped by maxRetainedBytes.
import { describe, expect, it } from '@jest/globals';
import type { HostCallOutcome, RunOutcome, Sandbox } from '../../sandbox/types.ts';
import { createToolRuntime, defineTool } from '../../src/index.ts';
import { DEFAULT_MAX_RETAINED_BYTES } from '../../src/ptc/retention-budget.ts';
import { expectFollowingRunFine, expectHeapKept, runHostCase, type BriefResult } from './helpers.ts';

/** The heavy-traffic cases' bound (their runs get a 600 s wall clock): 15-20 s on a quiet machine, over 120 s at load ~14. */
const HEAVY_CASE_MS = 660_000;

describe('a run holds only the calls in flight', () => {
  it(
    '255 MB of arguments and results cross a host whose heap is capped at 128 MiB, one call at a time',
    async () => {
      const report = await runHostCase<{ run: BriefResult }>('retention-large-args', 128, HEAVY_CASE_MS);
      // 40 × 3.9 MB strings, 20 × JSON of a 50,000-object array, 20 × 3 MB results.
      expect(report.seen.run).toMatchObject({
        isError: false,
        message: '',
        result: 40 * 3_900_002 + 20 * 1_938_891 + 20 * 3_000_000,
      });
      expectHeapKept(report);
      expect(report.peakHeapMb).toBeLessThan(128);
      expectFollowingRunFine(report);
    },
    HEAVY_CASE_MS + 20_000,
  );

  it(
    'the same with ten calls in flight at a time',
    async () => {
      const report = await runHostCase<{ run: BriefResult }>('retention-parallel-args', 128, HEAVY_CASE_MS);
      expect(report.seen.run).toMatchObject({ isError: false, message: '', result: 100 * 2_000_002 });
      expectHeapKept(report);
      expectFollowingRunFine(report);
    },
    HEAVY_CASE_MS + 20_000,
  );
});

describe('maxRetainedBytes', () => {
  it('refuses calls whose arguments do not fit, keeps a result that does not fit from the program, stops a run whose contexts do not fit', async () => {
    const report = await runHostCase<{
      args: BriefResult;
      result: BriefResult;
      contexts: BriefResult;
      contextCount: number;
    }>('retention-budget', 128);
    const { args, result, contexts, contextCount } = report.seen;
    // 1 MiB: two calls with 400 KB arguments are held while in flight; the third and fourth do not fit.
    expect(args).toMatchObject({ isError: false, result: ['held', 'held', 'RETENTION_LIMIT', 'RETENTION_LIMIT'] });
    expect(result.result).toEqual([
      'RETENTION_LIMIT',
      expect.stringContaining(
        'tools.blob succeeded, but its result (2000002 bytes as JSON) is more than this run may still hold (maxRetainedBytes: 1048576 bytes',
      ),
    ]);
    expect(contexts).toMatchObject({ isError: true, code: 'CODE_RUN_FAILED', kind: 'output-limit' });
    expect(contexts.message).toContain('exceed what one run may hold (maxRetainedBytes: 1048576 bytes)');
    // The contexts that fitted were ferried; none beyond.
    expect(contextCount).toBe(3);
    expectHeapKept(report);
    expectFollowingRunFine(report);
  }, 150_000);

  it('defaults to 64 MiB and is checked when the runtime is created', () => {
    expect(DEFAULT_MAX_RETAINED_BYTES).toBe(64 * 1_048_576);
    expect(() => createToolRuntime({ maxRetainedBytes: 0 })).toThrow(
      'createToolRuntime: maxRetainedBytes must be a positive integer (bytes), got 0',
    );
    expect(() => createToolRuntime({ maxRetainedBytes: 1.5 })).toThrow('maxRetainedBytes must be a positive integer');
  });
});

describe('the host does not rely on the guest for the argument limit', () => {
  it('arguments over 4 MiB from a sandbox that skipped its check are refused before parsing (ARGS_TOO_LARGE)', async () => {
    let reached = 0;
    const outcomes: HostCallOutcome[] = [];
    // A stand-in for a compromised guest: it sends what the real prelude would refuse.
    const sandbox: Sandbox = {
      async run(request): Promise<RunOutcome> {
        const signal = new AbortController().signal;
        outcomes.push(
          await request.hostCall({
            seq: 1,
            toolName: 'sink',
            argsJson: JSON.stringify({ s: 'x'.repeat(4 * 1_048_576) }),
            signal,
          }),
        );
        outcomes.push(
          await request.hostCall({ seq: 2, toolName: 'sink', argsJson: JSON.stringify({ s: 'ok' }), signal }),
        );
        return { ok: true, logs: [], result: null };
      },
      close: async () => {},
    };
    const rt = createToolRuntime({ mode: 'ptc', sandbox });
    rt.register(
      defineTool({
        name: 'sink',
        description: '',
        parameters: { s: { type: 'string' } },
        output: { schema: { type: 'json' }, render: () => [] },
        execute: () => (reached += 1),
      }),
    );
    const result = await rt.execute({
      callId: 'r',
      name: 'run_code',
      arguments: { description: 'Send too much', code: 'return null' },
    });
    expect(result.isError).toBe(false);
    expect(outcomes[0]).toEqual({
      ok: false,
      code: 'ARGS_TOO_LARGE',
      message: 'tools.sink arguments are larger than 4194304 bytes as JSON: not dispatched',
    });
    expect(outcomes[1]).toEqual({ ok: true, valueJson: '1' });
    expect(reached).toBe(1);
  });
});
