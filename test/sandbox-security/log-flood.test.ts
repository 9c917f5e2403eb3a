// Log floods: every line costs at least a fixed number of bytes and the line count is
// capped, so empty lines are not free; a flood neither bloats the host nor keeps the
// sandbox process from answering a cancel, and a run flooding next to an innocent run
// never takes that run down.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox, DEFAULT_LIMITS } from '../../sandbox/index.ts';
import { LOG_LINE_MIN_BYTES } from '../../sandbox/log-buffer.ts';
import type { ProcessSandbox } from '../../sandbox/process-sandbox.ts';
import type { RunOutcome } from '../../sandbox/types.ts';
import {
  expectFailure,
  expectHealthy,
  expectResult,
  memorySnapshot,
  okJson,
  peakGrowthMb,
  recordingHost,
  sleep,
} from './helpers.ts';

const sandbox = createSandbox({ limits: { wallTimeMs: 20_000, cpuTimeMs: 10_000 } }) as ProcessSandbox;
const inProcess = createSandbox({ isolation: 'in-process', limits: { wallTimeMs: 20_000, cpuTimeMs: 10_000 } });
afterAll(() => Promise.all([sandbox.close(), inProcess.close()]));

const HOST_GROWTH_LIMIT_MB = 100;

function expectBoundedLogs(outcome: RunOutcome, maxLines: number, maxBytes: number): void {
  expect(outcome.logs.length).toBeLessThanOrEqual(maxLines + 1);
  const kept = outcome.logs.slice(0, -1);
  const cost = kept.reduce((sum, line) => sum + Math.max(Buffer.byteLength(line, 'utf8'), LOG_LINE_MIN_BYTES), 0);
  expect(cost).toBeLessThanOrEqual(maxBytes);
  expect(outcome.logs.at(-1)).toMatch(/^\[log output truncated: more than \d+ (bytes|lines)\]$/);
}

describe.each([
  ['process', () => sandbox],
  ['in-process', () => inProcess],
] as const)('log floods (%s)', (_mode, sandboxOf) => {
  it.each([
    ['300,000 empty console.log() calls', 'for (let i = 0; i < 300_000; i++) console.log(); return "done";', {}],
    [
      '300,000 empty strings through every console method',
      'for (let i = 0; i < 60_000; i++) { console.log(""); console.info(""); console.warn(""); console.error(""); console.debug(""); } return "done";',
      {},
    ],
    [
      '2,000,000 one-character lines with a 64 MiB log budget',
      'for (let i = 0; i < 2_000_000; i++) console.log(i % 10); return "done";',
      { maxLogBytes: 64 * 1_048_576 },
    ],
    [
      '1,000,000 empty lines with a 1,000,000-line budget',
      'for (let i = 0; i < 1_000_000; i++) console.log(); return "done";',
      { maxLogLines: 1_000_000 },
    ],
  ])(
    '%s: logs stay within the caps, the host stays small',
    async (_name, code, limits) => {
      const box = sandboxOf();
      const before = memorySnapshot();
      const outcome = await box.run({ code, toolNames: [], hostCall: recordingHost([]).hostCall, limits });
      expectResult(outcome, 'done');
      const merged = { ...DEFAULT_LIMITS, ...limits };
      expectBoundedLogs(outcome, merged.maxLogLines, merged.maxLogBytes);
      const growth = peakGrowthMb(before);
      expect(growth.hostMb).toBeLessThan(HOST_GROWTH_LIMIT_MB);
      await expectHealthy(box);
    },
    60_000,
  );
});

describe('one run flooding the sandbox process never takes a concurrent run with it', () => {
  const innocentCode =
    'const a = await tools.slow({}); console.log("got", a.v); const b = await tools.slow({}); return a.v + b.v;';
  const innocentHost = recordingHost(['slow'], async () => {
    await sleep(300);
    return okJson({ v: 2 });
  });

  async function alongside(
    hostile: (signal: AbortSignal) => Promise<RunOutcome>,
    abortAfterMs?: number,
  ): Promise<RunOutcome> {
    const pid = sandbox.childPid;
    const controller = new AbortController();
    const hostileRun = hostile(controller.signal);
    await sleep(50);
    const innocent = sandbox.run({ code: innocentCode, toolNames: ['slow'], hostCall: innocentHost.hostCall });
    if (abortAfterMs !== undefined) setTimeout(() => controller.abort(), abortAfterMs);
    const [hostileOutcome, innocentOutcome] = await Promise.all([hostileRun, innocent]);
    expectResult(innocentOutcome, 4);
    expect(innocentOutcome.logs).toStrictEqual(['got 2']);
    // The flood did not get the sandbox process killed.
    expect(sandbox.childPid).toBe(pid);
    await expectHealthy(sandbox);
    return hostileOutcome;
  }

  it('an endless flood of empty lines is cancelled while the innocent run finishes', async () => {
    const hostile = await alongside(
      (signal) =>
        sandbox.run({ code: 'for (;;) console.log();', toolNames: [], hostCall: recordingHost([]).hostCall, signal }),
      200,
    );
    expectFailure(hostile, ['abort']);
    expect(hostile.logs.length).toBeLessThanOrEqual(DEFAULT_LIMITS.maxLogLines + 1);
  }, 60_000);

  it('an endless flood of long lines hits its wall limit while the innocent run finishes', async () => {
    const hostile = await alongside(() =>
      sandbox.run({
        code: 'const s = "x".repeat(4096); for (;;) console.log(s, s, s);',
        toolNames: [],
        hostCall: recordingHost([]).hostCall,
        limits: { wallTimeMs: 400 },
      }),
    );
    expectFailure(hostile, ['timeout', 'cpu']);
  }, 60_000);

  it('a flood of tool calls and log lines together is cancelled while the innocent run finishes', async () => {
    const rec = recordingHost(['a'], () => okJson(1));
    const hostile = await alongside(
      (signal) =>
        sandbox.run({
          code: 'for (;;) { console.log(); tools.a({}).catch(() => {}); for (let i = 0; i < 100; i++) console.log(i); await 0; }',
          toolNames: ['a'],
          hostCall: rec.hostCall,
          signal,
        }),
      200,
    );
    expectFailure(hostile, ['abort', 'call-limit']);
  }, 60_000);

  it('a CPU-bound run is stopped by its CPU limit while the innocent run finishes', async () => {
    const hostile = await alongside(() =>
      sandbox.run({
        code: 'for (;;) {}',
        toolNames: [],
        hostCall: recordingHost([]).hostCall,
        limits: { cpuTimeMs: 300 },
      }),
    );
    expectFailure(hostile, ['cpu', 'timeout']);
  }, 60_000);
});
