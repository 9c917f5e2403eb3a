// Live run events: `rt.on('run/log' | 'run/call-start' | 'run/call-end')` report a
// program's console lines and nested calls while it runs, with the call ids the
// pipeline uses; listeners cannot disturb a run; disposal stops delivery.
import { describe, expect, it } from '@jest/globals';
import { deny } from '../../src/index.ts';
import type { RunCallEndEvent, RunCallStartEvent, RunLogEvent } from '../../src/index.ts';
import { gatedDoubler } from '../support/gated-tool.ts';
import { ptcRuntimes, runCode, runValue } from './helpers.ts';

const runtime = ptcRuntimes();

describe('run events', () => {
  it('reports a log line and the call start while the program still waits on the tool', async () => {
    const rt = runtime();
    const { tool, open } = gatedDoubler();
    rt.register(tool);
    const seen: string[] = [];
    const logs: RunLogEvent[] = [];
    const starts: RunCallStartEvent[] = [];
    const ends: RunCallEndEvent[] = [];
    rt.on('run/log', (e) => {
      logs.push(e);
      seen.push(`log ${e.line}`);
    });
    rt.on('run/call-start', (e) => {
      starts.push(e);
      seen.push(`start ${e.name}`);
      // The program has logged and called: both are visible before the run can end.
      if (e.seq === 1) open();
    });
    rt.on('run/call-end', (e) => {
      ends.push(e);
      seen.push(`end ${e.name} ${e.isError ? 'error' : 'ok'}`);
    });
    const result = await runCode(
      rt,
      `console.log('looking up'); const v = await tools.slow({ n: 21 }); console.log('got', v); return v;`,
      { callId: 'run-1' },
    );
    expect(runValue(result)).toStrictEqual({ logs: ['looking up', 'got 42'], result: 42 });
    expect(seen).toStrictEqual(['log looking up', 'start slow', 'end slow ok', 'log got 42']);
    expect(logs.map((e) => [e.runCallId, e.rootCallId, e.index, e.line])).toStrictEqual([
      ['run-1', 'run-1', 1, 'looking up'],
      ['run-1', 'run-1', 2, 'got 42'],
    ]);
    expect(starts).toStrictEqual([
      { runCallId: 'run-1', rootCallId: 'run-1', agent: undefined, callId: 'run-1:ptc:1', seq: 1, name: 'slow' },
    ]);
    expect(ends[0]).toMatchObject({ callId: 'run-1:ptc:1', seq: 1, name: 'slow', isError: false });
    expect(ends[0]?.result?.value).toBe(42);
    expect(Object.isFrozen(ends[0])).toBe(true);
  });

  it('reports failed and refused nested calls with their error code', async () => {
    const rt = runtime();
    const { tool, open } = gatedDoubler();
    open();
    rt.register(tool);
    rt.on('tools/pre-execute', (exec, next) => ((exec.arguments as { n: number }).n < 0 ? deny('negative') : next()));
    const ends: RunCallEndEvent[] = [];
    rt.on('run/call-end', (e) => ends.push(e));
    const result = await runCode(
      rt,
      `
      const a = await tools.slow({ n: 1 });
      try { await tools.slow({ n: -1 }); } catch (e) { console.log(e.code); }
      try { await tools.slow({ n: 'x' }); } catch (e) { console.log(e.code); }
      return a;`,
    );
    expect(runValue(result).logs).toStrictEqual(['DENIED', 'INVALID_ARGS']);
    expect(ends.map((e) => [e.seq, e.isError, e.error?.code, e.result?.isError])).toStrictEqual([
      [1, false, undefined, false],
      [2, true, 'DENIED', true],
      [3, true, 'INVALID_ARGS', true],
    ]);
  });

  it('ignores listeners that throw or reject, and stops delivering after dispose', async () => {
    const rt = runtime();
    rt.on('run/log', () => {
      throw new Error('listener bug');
    });
    rt.on('run/log', async () => {
      throw new Error('async listener bug');
    });
    const lines: string[] = [];
    const dispose = rt.on('run/log', (e) => lines.push(e.line));
    const first = await runCode(rt, `console.log('one'); return 1;`);
    expect(runValue(first)).toStrictEqual({ logs: ['one'], result: 1 });
    dispose();
    await runCode(rt, `console.log('two'); return 2;`);
    expect(lines).toStrictEqual(['one']);
  });

  it('names the run events when an unknown name is given', () => {
    const rt = runtime();
    expect(() => rt.on('run/nope' as never, (() => undefined) as never)).toThrow(
      /unknown hook "run\/nope".*tools\/result.*run\/log, run\/call-start, run\/call-end/,
    );
    expect(() => rt.on('run/log', 'no' as never)).toThrow(/listener must be a function/);
  });
});
