// The capacity section's rows (bench/bench-rows.ts) on given results: the wall time a
// burst's start CPU allows is worked out over the runs admitted, and the row's formula
// shows the count it used (runs refused never start).
import { describe, expect, it } from '@jest/globals';
import { capacityRows } from '../../bench/bench-rows.ts';
import type { WaitingRunsResult } from '../../bench/capacity-bench.ts';

function burst(isolation: WaitingRunsResult['isolation'], refused: number): WaitingRunsResult {
  return {
    isolation,
    distinct: false,
    runs: 1000,
    toolMs: 1000,
    wallMs: 4000,
    refused,
    failed: 0,
    rssPerRunMb: undefined,
    startCpuMsPerRun: 4,
    startMainThreadMsPerRun: 2.5,
    allWaitingMs: 3000,
    cores: 2,
  };
}

describe('capacity rows', () => {
  it('works the start floors out over the admitted runs, and says so in their formulas', () => {
    const rows = capacityRows({ waiting: [burst('in-process', 100)], runaway: [] });
    const idle = rows.find((r) => r.name.includes('idle cores'));
    const serial = rows.find((r) => r.name.includes("host's main thread"));
    // 900 admitted: 900 × 4 / 2 + 1,000 and 900 × 2.5 + 1,000.
    expect(idle?.baseline).toBe('on idle cores: 900 × 4.00 ms / 2 + tool 1000.00 ms = 2800.00 ms');
    expect(serial?.baseline).toBe('in series: 900 × 2.50 ms + tool 1000.00 ms = 3250.00 ms');
  });

  it('gives the main-thread row in-process only', () => {
    const names = (isolation: WaitingRunsResult['isolation']) =>
      capacityRows({ waiting: [burst(isolation, 0)], runaway: [] }).map((r) => r.name);
    expect(names('in-process').some((n) => n.includes("host's main thread"))).toBe(true);
    expect(names('process').some((n) => n.includes("host's main thread"))).toBe(false);
    const serial = capacityRows({ waiting: [burst('in-process', 0)], runaway: [] }).find((r) =>
      r.name.includes("host's main thread"),
    );
    expect(serial?.baseline).toBe('in series: 1,000 × 2.50 ms + tool 1000.00 ms = 3500.00 ms');
  });

  it('reads a burst measured with a tool longer than itself as its start alone: when every call started, plus the 1 s tool', () => {
    const startOnly = (allWaitingMs: number): WaitingRunsResult => ({
      ...burst('process', 0),
      toolMs: 6000,
      wallMs: 8100,
      allWaitingMs,
      startOnly: true,
    });
    const rowOf = (allWaitingMs: number) => {
      const rows = capacityRows({ waiting: [burst('process', 0), startOnly(allWaitingMs)], runaway: [] });
      const found = rows.filter((r) => r.name.includes('its start alone'));
      expect(found).toHaveLength(1);
      // Not read as a 1,000-run burst of its own: one target row, the 1 s burst's.
      expect(rows.filter((r) => r.target.startsWith('≤ 3000.00 ms'))).toHaveLength(1);
      return found[0]!;
    };
    const over = rowOf(2100);
    expect(over.baseline).toBe(
      'the earliest the last of 1,000 runs awaiting a 1000 ms tool can end here: 2100.00 ms + 1000.00 ms = 3100.00 ms',
    );
    expect(over.target).toBe('start floor > 3000.00 ms: not with a fresh isolate per run on 2 cores');
    expect(over.met).toBeNull();
    expect(rowOf(1900).target).toBe('start floor ≤ 3000.00 ms');
  });

  it('reads no start floor from a start-only burst in which some run never started or runs finished', () => {
    const targetOf = (change: Partial<WaitingRunsResult>): string => {
      const startOnly: WaitingRunsResult = {
        ...burst('process', 0),
        toolMs: 6000,
        allWaitingMs: 2100,
        startOnly: true,
      };
      const rows = capacityRows({ waiting: [burst('process', 0), { ...startOnly, ...change }], runaway: [] });
      return rows.find((r) => r.name.includes('its start alone'))!.target;
    };
    // Refused: allWaitingMs is then the whole burst, its 6 s tool included.
    expect(targetOf({ refused: 3, allWaitingMs: 8100 })).toBe(
      'no start floor: 3 refused, 0 failed: not every run started',
    );
    expect(targetOf({ failed: 1 })).toBe('no start floor: 0 refused, 1 failed: not every run started');
    expect(targetOf({ allWaitingMs: 6500 })).toBe(
      'no start floor: the start outlasted the 6000.00 ms tool: runs finished during it',
    );
  });
});
