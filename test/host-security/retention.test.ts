// Argument and result retention per run: nothing of a nested call is kept after it
// commits, and what a run may hold at once is capped by maxRetainedBytes.
import { describe, expect, it } from '@jest/globals';
import { createToolRuntime } from '../../src/index.ts';
import { DEFAULT_MAX_RETAINED_BYTES } from '../../src/ptc/retention-budget.ts';
import { expectFollowingRunFine, expectHeapKept, runHostCase, type BriefResult } from './helpers.ts';

describe('a run holds only the calls in flight', () => {
  it('255 MB of arguments and results cross a host whose heap is capped at 128 MiB, one call at a time', async () => {
    const report = await runHostCase<{ run: BriefResult }>('retention-large-args', 128);
    // 40 × 3.9 MB strings, 20 × JSON of a 50,000-object array, 20 × 3 MB results.
    expect(report.seen.run).toMatchObject({ isError: false, result: 40 * 3_900_002 + 20 * 1_938_891 + 20 * 3_000_000 });
    expectHeapKept(report);
    expect(report.peakHeapMb).toBeLessThan(128);
    expectFollowingRunFine(report);
  }, 150_000);

  it('the same with ten calls in flight at a time', async () => {
    const report = await runHostCase<{ run: BriefResult }>('retention-parallel-args', 128);
    expect(report.seen.run).toMatchObject({ isError: false, result: 100 * 2_000_002 });
    expectHeapKept(report);
    expectFollowingRunFine(report);
  }, 150_000);
});

describe('maxRetainedBytes', () => {
  it('refuses calls whose arguments do not fit, keeps a result that does not fit from the program, stops a run whose contexts do not fit', async () => {
    const report = await runHostCase<{ args: BriefResult; result: BriefResult; contexts: BriefResult; contextCount: number }>('retention-budget', 128);
    const { args, result, contexts, contextCount } = report.seen;
    // 1 MiB: two calls with 400 KB arguments are held while in flight; the third and fourth do not fit.
    expect(args).toMatchObject({ isError: false, result: ['held', 'held', 'RETENTION_LIMIT', 'RETENTION_LIMIT'] });
    expect(result.result).toEqual(['RETENTION_LIMIT', expect.stringContaining('tools.blob succeeded, but its result (2000002 bytes as JSON) is more than this run may still hold (maxRetainedBytes: 1048576 bytes')]);
    expect(contexts).toMatchObject({ isError: true, code: 'CODE_RUN_FAILED', kind: 'output-limit' });
    expect(contexts.message).toContain('exceed what one run may hold (maxRetainedBytes: 1048576 bytes)');
    // The contexts that fitted were ferried; none beyond.
    expect(contextCount).toBe(3);
    expectHeapKept(report);
    expectFollowingRunFine(report);
  }, 150_000);

  it('defaults to 64 MiB and is checked when the runtime is created', () => {
    expect(DEFAULT_MAX_RETAINED_BYTES).toBe(64 * 1_048_576);
    expect(() => createToolRuntime({ maxRetainedBytes: 0 })).toThrow('createToolRuntime: maxRetainedBytes must be a positive integer (bytes), got 0');
    expect(() => createToolRuntime({ maxRetainedBytes: 1.5 })).toThrow('maxRetainedBytes must be a positive integer');
  });
});
