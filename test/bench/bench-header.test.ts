// The report's header (bench/bench-rows.ts formatHeader) says when the run could not place
// threads or set scheduler slices: such a run's in-process crossing and fairness rows do not
// measure the product's defaults, and nothing else in the report would show it.
import { describe, expect, it } from '@jest/globals';
import { type BenchMachine, formatHeader } from '../../bench/bench-rows.ts';

const machine: BenchMachine = {
  commit: 'abc1234',
  node: 'v24.0.0',
  cpus: 2,
  cpuModel: 'Test CPU',
  loadAvgBefore: [0.5, 0.4, 0.3],
  loadAvgAfter: [1, 0.8, 0.6],
};

describe('bench report header', () => {
  it('names the machine, the load and the duration', () => {
    expect(formatHeader(machine, 42.4, false)).toBe(
      'ptc-runtime bench @ abc1234: node v24.0.0, 2 × Test CPU, load 0.5 0.4 0.3 -> 1 0.8 0.6, 42 s',
    );
  });

  it('says when thread placement or long slices were unavailable, and which', () => {
    const without = formatHeader({ ...machine, threadCalls: { affinity: false, slices: false } }, 10, true);
    expect(without).toContain('WITHOUT thread placement and long slices (is the optional koffi installed?)');
    const noSlices = formatHeader({ ...machine, threadCalls: { affinity: true, slices: false } }, 10, true);
    expect(noSlices).toContain('WITHOUT long slices');
    expect(noSlices).not.toContain('thread placement and');
    const both = formatHeader({ ...machine, threadCalls: { affinity: true, slices: true } }, 10, false);
    expect(both).toMatch(/, thread placement and long slices available$/);
    expect(both).not.toContain('WITHOUT');
  });
});
