// run_code ends by its wall limit or its caller's abort whatever its nested tools do,
// and a turn ends by its caller's abort: a body that never settles and ignores its
// signal is given up on after abortGraceMs (ABORTED, bodySettled: false) and reported.
import { describe, expect, it, jest } from '@jest/globals';
import { createToolRuntime, defineTool } from '../../src/index.ts';
import type { UnsettledBody } from '../../src/pipeline/unsettled-body.ts';
import { expectFollowingRunFine, expectHeapKept, runHostCase, type BriefResult } from './helpers.ts';

describe('bodies that never settle', () => {
  it('wall limit, caller abort of a run, caller abort of a turn: each ends, each body reported, host fine', async () => {
    const report = await runHostCase<{
      wall: BriefResult;
      wallExclusive: BriefResult;
      aborted: BriefResult;
      turn: BriefResult[];
      unsettled: { callId: string; name: string; reason: string; graceMs: number }[];
    }>('abandoned-bodies', 128);
    const { wall, wallExclusive, aborted, turn, unsettled } = report.seen;
    expect(wall).toMatchObject({ isError: true, code: 'CODE_RUN_FAILED', kind: 'timeout' });
    expect(wallExclusive).toMatchObject({ isError: true, code: 'CODE_RUN_FAILED', kind: 'timeout' });
    expect(aborted).toMatchObject({ isError: true, code: 'CODE_RUN_FAILED', kind: 'abort' });
    expect(turn[0]).toMatchObject({ code: 'ABORTED', bodySettled: false });
    expect(turn[0]!.message).toContain('its body ignored the abort and was still running 200 ms later');
    expect(turn.slice(1).map((r) => r.code)).toEqual(['ABORTED_BEFORE_DISPATCH', 'ABORTED_BEFORE_DISPATCH']);
    // Five concurrent bodies and one exclusive one under the wall limit, the started one
    // of the aborted run (the exclusive one never started), the started call of the turn.
    expect(unsettled.map((u) => u.callId)).toEqual([
      'wall:ptc:1',
      'wall:ptc:2',
      'wall:ptc:3',
      'wall:ptc:4',
      'wall:ptc:5',
      'wall-x:ptc:1',
      'abort:ptc:1',
      't1',
    ]);
    expect(new Set(unsettled.map((u) => u.reason))).toEqual(new Set(['aborted']));
    expectHeapKept(report);
    expectFollowingRunFine(report);
  }, 150_000);

  it('a body that settles within the grace keeps its own outcome; the report tells when a given-up body settles', async () => {
    const reports: UnsettledBody[] = [];
    const rt = createToolRuntime({ abortGraceMs: 50, onUnsettled: (r) => void reports.push(r) });
    let finish: () => void = () => {};
    let started: () => void = () => {};
    const bodyStarted = new Promise<void>((resolve) => (started = resolve));
    rt.register(
      defineTool({
        name: 'late',
        description: '',
        parameters: {},
        output: { schema: { type: 'json' }, render: () => [] },
        execute: () => {
          started();
          return new Promise<string>((resolve) => (finish = () => resolve('done')));
        },
      }),
    );
    rt.register(
      defineTool({
        name: 'polite',
        description: '',
        parameters: {},
        output: { schema: { type: 'json' }, render: () => [] },
        execute: (_args, exec) =>
          new Promise<string>((_resolve, reject) =>
            exec.signal.addEventListener('abort', () => reject(new Error('stopped'))),
          ),
      }),
    );
    const controller = new AbortController();
    const pending = rt.execute({ callId: 'l', name: 'late', arguments: {}, signal: controller.signal });
    const polite = rt.execute({ callId: 'p', name: 'polite', arguments: {}, signal: controller.signal });
    await bodyStarted;
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const [late, politeResult] = await Promise.all([pending, polite]);
    expect(late.error).toMatchObject({ code: 'ABORTED', info: { bodySettled: false } });
    expect(politeResult.error).toMatchObject({ code: 'ABORTED', message: 'tool call aborted' });
    expect(reports.map((r) => [r.callId, r.reason, r.timeoutMs, r.graceMs])).toEqual([['l', 'aborted', undefined, 50]]);
    const settled = jest.fn();
    void reports[0]!.settled.then(settled);
    finish();
    await reports[0]!.settled;
    expect(settled).toHaveBeenCalled();
  });

  it('abortGraceMs and onUnsettled are checked when the runtime is created', () => {
    expect(() => createToolRuntime({ abortGraceMs: -1 })).toThrow(
      'createToolRuntime: abortGraceMs must be a finite number of milliseconds >= 0, got -1',
    );
    expect(() => createToolRuntime({ onUnsettled: 'warn' as never })).toThrow(
      'createToolRuntime: onUnsettled must be a function',
    );
  });
});
