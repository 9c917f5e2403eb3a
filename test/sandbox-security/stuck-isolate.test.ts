// An isolate stopped by its CPU limit while V8 is inside long native BigInt work (a
// product of hundreds of millions of bits cannot be interrupted) leaves a sandbox process
// that cannot exit by itself when asked to. The host still closes: before, rt.close()
// waited on an unref'd child forever, and a script's host exited with code 13
// ("unsettled top-level await") instead of finishing.
import { describe, expect, it } from '@jest/globals';
import { expectFollowingRunFine, runHostCase, type BriefResult } from '../host-security/helpers.ts';

describe('a sandbox process stuck behind an uninterruptible isolate', () => {
  it('fails the run (kind cpu, or timeout), serves the next run, and rt.close() settles', async () => {
    // runHostCase prints its report only after rt.close(): a close that never settles is a missing report.
    const report = await runHostCase<{ run: BriefResult }>('stuck-isolate', 256);
    // Its CPU budget ends it; when the sandbox process is too busy to confirm, the wall limit does (the process is replaced).
    expect(report.seen.run).toMatchObject({ isError: true, code: 'CODE_RUN_FAILED' });
    expect(['cpu', 'timeout']).toContain(report.seen.run.kind);
    expectFollowingRunFine(report);
  }, 150_000);
});
