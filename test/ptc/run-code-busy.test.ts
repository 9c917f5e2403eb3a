// run_code runs in flight can be capped per runtime (maxActiveRuns, off by default): CPU-bound programs
// that hold every slot make one more run fail at once with kind `busy` ("retry later")
// instead of queueing behind them; once they end, an ordinary run works.
import { describe, expect, it } from '@jest/globals';
import { createToolRuntime, type ToolResult } from '../../src/index.ts';
import { probeTool, ptcRuntimes, runCode, runValue, textOf } from './helpers.ts';
import { gate } from '../support/gate.ts';

const runtime = ptcRuntimes();

describe('maxActiveRuns', () => {
  it('two infinite loops hold both slots: a third run is refused at once, kind busy; afterwards runs work', async () => {
    let entered = 0;
    const started = gate();
    // The loops end only when the test stops them (not by a wall clock that a loaded
    // machine could run out before the second loop has even entered).
    const stop = new AbortController();
    const rt = runtime({ maxActiveRuns: 2, limits: { wallTimeMs: 60_000 } });
    rt.register(
      probeTool({
        name: 'enter',
        safe: true,
        body: () => {
          entered += 1;
          if (entered === 2) started.open();
          return entered;
        },
      }),
    );
    const loops = [1, 2].map((i) =>
      runCode(rt, 'await tools.enter({}); while (true) {}', { callId: `loop-${i}`, signal: stop.signal }),
    );
    await started.passed;
    const refused: ToolResult = await runCode(rt, 'return "never runs"', { callId: 'third' });
    expect(refused.isError).toBe(true);
    expect(refused.error?.code).toBe('CODE_RUN_FAILED');
    expect(refused.error?.info).toMatchObject({ kind: 'busy', maxActiveRuns: 2 });
    expect(textOf(refused)).toBe(
      'Error: run_code failed (busy): 2 runs are already in flight on this runtime (maxActiveRuns: 2); this program did not run. Retry it once one of them has finished.',
    );
    stop.abort();
    const ended = await Promise.all(loops);
    expect(ended.map((r) => r.error?.info?.kind)).toEqual(['abort', 'abort']);
    // The slots are free again: two ordinary runs at once both work.
    const after = await Promise.all([
      runCode(rt, 'return 1', { callId: 'a' }),
      runCode(rt, 'return 2', { callId: 'b' }),
    ]);
    expect(after.map((r) => runValue(r).result)).toEqual([1, 2]);
  }, 30_000);

  it('a failed run frees its slot too', async () => {
    const rt = runtime({ maxActiveRuns: 1 });
    expect((await runCode(rt, 'throw new Error("boom")')).error?.info?.kind).toBe('exception');
    expect(runValue(await runCode(rt, 'return "next"')).result).toBe('next');
  });

  it('has no count cap by default (runs are admitted by resources) and checks the option', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => createToolRuntime({ sandbox: false, maxActiveRuns: bad })).toThrow(
        `createToolRuntime: maxActiveRuns must be a positive integer (run_code runs in flight), got ${String(bad)}`,
      );
    }
  });
});
