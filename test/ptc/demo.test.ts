// The demo scenario through the API: the scripted native model and the one run_code
// program reach the same answer, and the program keeps the tool output out of the
// model's context.
import { describe, expect, it } from '@jest/globals';
import { compareModes } from '../../src/demo/compare-modes.ts';
import { lateDeliveries } from '../../src/demo/late-deliveries.ts';

describe('demo: late deliveries', () => {
  it('native and run_code agree, with fewer round trips and far less context for run_code', async () => {
    const { native, ptc } = await compareModes(lateDeliveries);
    expect(ptc.answer).toEqual(native.answer);
    expect(native.answer).toMatchObject({
      carrier: expect.any(String),
      late: expect.any(Number),
      deliveries: expect.any(Number),
    });
    const answer = native.answer as { late: number; deliveries: number; lateShare: number };
    expect(answer.late).toBeGreaterThan(0);
    expect(answer.lateShare).toBeCloseTo(answer.late / answer.deliveries, 3);
    // The same tool calls, plus the run_code call itself.
    expect(ptc.toolCalls).toBe(native.toolCalls + 1);
    expect(native.roundTrips).toBe(4);
    expect(ptc.roundTrips).toBe(2);
    expect(ptc.contextChars * 10).toBeLessThan(native.contextChars);
  });
});
