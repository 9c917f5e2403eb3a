// Nesting depth of model values: the host copies at most MAX_JSON_DEPTH (256) levels of
// any value it is handed, so a few MiB of `[[[[…` in a tool call's arguments costs the
// host a refusal, not hundreds of MiB (before the bound, a million levels ran a host with
// a 256 MiB heap out of memory).
import { describe, expect, it } from '@jest/globals';
import { expectFollowingRunFine, expectHeapKept, runHostCase, type BriefResult } from './helpers.ts';

describe('values nested a million levels deep', () => {
  it('are refused with INVALID_ARGS naming the level, in a direct call and in run_code arguments; 255 levels still cross', async () => {
    const report = await runHostCase<{
      direct: BriefResult;
      directTail: string;
      runCode: BriefResult;
      runCodeTail: string;
      within: BriefResult;
    }>('deep-values', 256);
    const { direct, directTail, runCode, runCodeTail, within } = report.seen;
    expect(direct).toMatchObject({ isError: true, code: 'INVALID_ARGS' });
    expect(direct.message).toContain('invalid arguments for tool "sink": arguments.data[0][0]');
    expect(directTail).toContain('nesting deeper than 256 levels is not supported');
    expect(runCode).toMatchObject({ isError: true, code: 'INVALID_ARGS' });
    expect(runCode.message).toContain('invalid arguments for tool "run_code": arguments.extra[0][0]');
    expect(runCodeTail).toContain('nesting deeper than 256 levels is not supported');
    // The message is bounded by the depth limit, not by the input.
    expect(direct.messageLength).toBeLessThan(2_000);
    expect(within).toMatchObject({ isError: false, code: null });
    expectHeapKept(report);
    expectFollowingRunFine(report);
  }, 150_000);
});
