// The CPU a run is charged (sandbox/cpu-budget.ts): the smaller of isolated-vm's reading
// (wall time for a running stretch) and the process's CPU time, both upper bounds.
import { describe, expect, it } from '@jest/globals';
import { budgetCpuNs, processCpuMicros } from '../../sandbox/cpu-budget.ts';

describe('cpu budget', () => {
  it('charges the smaller of the two readings', () => {
    // A stretch that waited for a core: 6 s on the isolate's clock, 0.5 s of process CPU.
    expect(budgetCpuNs(6_000_000_000n, 500_000)).toBe(500_000_000n);
    // Other runs in the process used CPU: the isolate's own reading is the bound.
    expect(budgetCpuNs(200_000_000n, 3_000_000)).toBe(200_000_000n);
    expect(budgetCpuNs(1_000n, -5)).toBe(0n);
  });

  it("reads this process's CPU time, which grows with work done", () => {
    const before = processCpuMicros();
    let x = 0;
    const until = Date.now() + 30;
    while (Date.now() < until) x += Math.sqrt(x + 1);
    expect(x).toBeGreaterThan(0);
    expect(processCpuMicros()).toBeGreaterThan(before);
  });
});
