// The run_code result: its value and model-visible text, argument checks,
// failures with their kind and captured output, truncation, and cancellation.
import { describe, expect, it } from '@jest/globals';
import { createToolRuntime, type ToolResult } from '../../src/index.ts';
import { NO_OUTPUT_TEXT, renderRunCodeText, truncateVisible } from '../../src/ptc/run-code-output.ts';
import { probeTool, ptcRuntimes, runCode, runValue, textOf, untilAborted } from './helpers.ts';

const runtime = ptcRuntimes();

const failure = (result: ToolResult): { code: string | undefined; kind: unknown; text: string } => ({
  code: result.error?.code,
  kind: result.error?.info?.kind,
  text: textOf(result),
});

describe('value and content', () => {
  it('logs then a string result, raw', async () => {
    const result = await runCode(
      runtime(),
      'console.log("first", 1, { a: 1 }); console.info("second"); return "the answer"',
    );
    expect(result.value).toEqual({ logs: ['first 1 {"a":1}', 'second'], result: 'the answer' });
    expect(result.content).toEqual([{ type: 'text', text: 'first 1 {"a":1}\nsecond\nthe answer' }]);
  });

  it('any other result as indented JSON; console levels keep their prefix', async () => {
    const result = await runCode(
      runtime(),
      'console.warn("careful"); console.error("bad"); console.debug("dbg"); return { n: 1, list: [true, null] }',
    );
    expect(runValue(result)).toEqual({
      logs: ['[warn] careful', '[error] bad', '[debug] dbg'],
      result: { n: 1, list: [true, null] },
    });
    expect(textOf(result)).toBe(
      `[warn] careful\n[error] bad\n[debug] dbg\n${JSON.stringify({ n: 1, list: [true, null] }, null, 2)}`,
    );
  });

  it('no logs and no return value: the fixed no-output line, and no result key', async () => {
    const result = await runCode(runtime(), 'const x = 1 + 1;');
    expect(result.value).toEqual({ logs: [] });
    expect(result.value).not.toHaveProperty('result');
    expect(textOf(result)).toBe('(run_code completed with no output)');
    expect(NO_OUTPUT_TEXT).toBe('(run_code completed with no output)');
  });

  it('-0 in the returned value reads as -0 in the text the model sees, wherever it sits', async () => {
    const result = await runCode(runtime(), 'return { z: -0, list: [0, -0, 1], nested: { deep: -0 }, label: "-0" }');
    expect(Object.is((runValue(result).result as { z: number }).z, -0)).toBe(true);
    expect(textOf(result)).toBe(
      '{\n  "z": -0,\n  "list": [\n    0,\n    -0,\n    1\n  ],\n  "nested": {\n    "deep": -0\n  },\n  "label": "-0"\n}',
    );
    expect(textOf(await runCode(runtime(), 'return -0'))).toBe('-0');
    // An ordinary run after it renders as before.
    expect(textOf(await runCode(runtime(), 'return [0]'))).toBe('[\n  0\n]');
  });

  it('falsy results are results: 0, false, null and the empty string', async () => {
    const rt = runtime();
    const texts: string[] = [];
    for (const literal of ['0', 'false', 'null', '""']) {
      const result = await runCode(rt, `return ${literal}`);
      expect(runValue(result).result).toEqual(JSON.parse(literal));
      texts.push(textOf(result));
    }
    expect(texts).toEqual(['0', 'false', 'null', '']);
  });

  it('TypeScript syntax is stripped, not checked', async () => {
    const result = await runCode(
      runtime(),
      'interface P { x: number }\nconst p: P = { x: 2 };\nconst s: string = p.x as unknown as string;\nreturn s',
    );
    expect(runValue(result).result).toBe(2);
  });

  it('no state survives between runs of one runtime', async () => {
    const rt = runtime();
    await runCode(rt, 'globalThis.leak = 42; Object.prototype.polluted = true; return 1');
    const second = await runCode(rt, 'return [typeof globalThis.leak, ({}).polluted === undefined]');
    expect(runValue(second).result).toEqual(['undefined', true]);
  });
});

describe('arguments', () => {
  it('a blank description is INVALID_ARGS, before the program runs', async () => {
    const rt = runtime();
    let bodies = 0;
    rt.register(probeTool({ name: 'alpha', body: () => ++bodies }));
    for (const description of ['', '   ', '\n\t']) {
      const result = await runCode(rt, 'await tools.alpha({}); return 1', { description });
      expect(result.isError).toBe(true);
      expect(result.error?.code).toBe('INVALID_ARGS');
      expect(result.error?.message).toMatch(/description/);
    }
    expect(bodies).toBe(0);
  });

  it('a missing or non-string code is INVALID_ARGS', async () => {
    const rt = runtime();
    for (const args of [{ description: 'd' }, { description: 'd', code: 42 }, { code: 'return 1' }]) {
      const result = await rt.execute({ callId: 'a', name: 'run_code', arguments: args });
      expect(result.error?.code).toBe('INVALID_ARGS');
    }
  });
});

describe('configuration', () => {
  it('bad limits and a bad maxVisibleChars fail at createToolRuntime, naming the setting', () => {
    expect(() => createToolRuntime({ sandbox: false, limits: { memoryMb: 4 } })).toThrow(
      /createToolRuntime: limits: .*memoryMb must be at least 8/,
    );
    expect(() => createToolRuntime({ sandbox: false, limits: { maxCalls: 0 } })).toThrow(
      /maxCalls must be a positive integer/,
    );
    expect(() => createToolRuntime({ sandbox: false, limits: { wallTime: 5 } as never })).toThrow(
      /unknown sandbox limit "wallTime"/,
    );
    for (const maxVisibleChars of [0, -1, 1.5, Number.NaN]) {
      expect(() => createToolRuntime({ sandbox: false, maxVisibleChars })).toThrow(
        /maxVisibleChars must be a positive integer/,
      );
    }
  });

  it('bad options for the built-in sandbox fail at createToolRuntime, not as an error the model reads on every run', () => {
    const refused: Array<[unknown, RegExp]> = [
      [{ poolSize: -1 }, /^createToolRuntime: sandbox: poolSize must be a non-negative integer, got -1$/],
      [{ isolation: 'nope' }, /^createToolRuntime: sandbox: isolation must be 'process' or 'in-process'/],
      [{ processes: 0 }, /^createToolRuntime: sandbox: processes must be a positive integer, got 0$/],
      [{ heartbeatMs: 0 }, /^createToolRuntime: sandbox: heartbeatMs must be a positive integer/],
      [{ heartbeatMs: 1_000, unresponsiveMs: 1_500 }, /unresponsiveMs \(1500\) must be at least twice heartbeatMs/],
      [{ recycleAfterRuns: 0 }, /recycleAfterRuns must be a positive integer/],
      [
        { maxRunsPerSharedRerun: 0 },
        /^createToolRuntime: sandbox: maxRunsPerSharedRerun must be a positive integer \(1 or more\), got 0$/,
      ],
      [{ maxRerunProcesses: 2.5 }, /maxRerunProcesses must be a positive integer \(1 or more\), got 2\.5$/],
      [{ maxSharedRerunProcesses: -1 }, /maxSharedRerunProcesses must be a positive integer \(1 or more\), got -1$/],
      [{ memoryBudgetBytes: 0 }, /memoryBudgetBytes must be a positive integer/],
      [{ limits: { memoryMb: 4 } }, /^createToolRuntime: sandbox: .*memoryMb must be at least 8/],
      [
        'in-process',
        /^createToolRuntime: sandbox must be a Sandbox, options for the built-in one .* or false, got string$/,
      ],
      [true, /got boolean$/],
    ];
    for (const [sandbox, message] of refused) {
      expect(() => createToolRuntime({ mode: 'ptc', sandbox: sandbox as never })).toThrow(message);
    }
    // Nothing is loaded or started for good options: the sandbox is still made on the first run.
    expect(() => createToolRuntime({ mode: 'ptc', sandbox: { isolation: 'in-process', poolSize: 0 } })).not.toThrow();
  });
});

describe('failures: CODE_RUN_FAILED with info.kind and the captured output', () => {
  it('exception: the thrown message, and the logs under "Captured output:"', async () => {
    const result = await runCode(
      runtime(),
      'console.log("step 1");\nconsole.log("step 2");\nthrow new Error("no data")',
    );
    const { code, kind, text } = failure(result);
    expect([code, kind]).toEqual(['CODE_RUN_FAILED', 'exception']);
    expect(text).toMatch(/^Error: run_code failed \(exception\): .*no data/);
    expect(text).toContain('\n\nCaptured output:\nstep 1\nstep 2');
    expect(result.error?.info?.logs).toEqual(['step 1', 'step 2']);
    expect(result).not.toHaveProperty('value');
  });

  it('timeout: a small wall-clock deadline ends a program that waits forever', async () => {
    const rt = runtime({ limits: { wallTimeMs: 1000 } });
    const result = await runCode(rt, 'console.log("waiting"); await new Promise(() => {});');
    const { code, kind, text } = failure(result);
    expect([code, kind]).toEqual(['CODE_RUN_FAILED', 'timeout']);
    expect(text).toContain('Captured output:\nwaiting');
  });

  it('timeout covers awaits on nested calls, and aborts the call in flight', async () => {
    const rt = runtime({ limits: { wallTimeMs: 1000 } });
    let sawAbort = false;
    rt.register(
      probeTool({
        name: 'hang',
        body: async (_args, exec) => {
          await untilAborted(exec.signal);
          sawAbort = true;
          throw exec.signal.reason;
        },
      }),
    );
    const observed: string[] = [];
    rt.on('tools/result', (r) => {
      observed.push(`${r.callId}:${r.error?.code ?? 'ok'}`);
    });
    const result = await runCode(rt, 'await tools.hang({})');
    expect(failure(result).kind).toBe('timeout');
    expect(sawAbort).toBe(true);
    // The run drained its dispatch before returning: the nested result came first.
    expect(observed).toEqual(['rc:ptc:1:ABORTED', 'rc:CODE_RUN_FAILED']);
  });

  it('call-limit: maxCalls 3 stops the fourth call', async () => {
    const rt = runtime({ limits: { maxCalls: 3 } });
    let bodies = 0;
    rt.register(probeTool({ name: 'alpha', body: () => ++bodies }));
    const result = await runCode(
      rt,
      'for (let i = 1; i <= 5; i++) { await tools.alpha({}); console.log("call " + i); }',
    );
    const { code, kind, text } = failure(result);
    expect([code, kind]).toEqual(['CODE_RUN_FAILED', 'call-limit']);
    expect(text).toMatch(/more than 3 tool calls/);
    expect(text).toContain('Captured output:\ncall 1\ncall 2\ncall 3');
    expect(bodies).toBe(3);
  });

  it("compile: a syntax error reports line and column in the model's own code", async () => {
    const result = await runCode(runtime(), 'const a = 1;\nconst b = ;\nreturn a');
    const { code, kind, text } = failure(result);
    expect([code, kind]).toEqual(['CODE_RUN_FAILED', 'compile']);
    expect(result.error?.info?.line).toBe(2);
    expect(result.error?.info?.column).toBe(11);
    expect(text).toMatch(/line 2/);
  });

  it('invalid-output and output-limit', async () => {
    const rt = runtime({ limits: { maxResultBytes: 1000 } });
    expect(failure(await runCode(rt, 'return { f: () => 1 }')).kind).toBe('invalid-output');
    expect(failure(await runCode(rt, 'return "x".repeat(5000)')).kind).toBe('output-limit');
  });

  it('a failure text longer than maxVisibleChars is truncated with a marker', async () => {
    const rt = runtime({ maxVisibleChars: 300 });
    const result = await runCode(
      rt,
      'for (let i = 0; i < 50; i++) console.log("line " + i + " " + "-".repeat(40)); throw new Error("late")',
    );
    const text = result.error!.message;
    expect(text.length).toBeLessThanOrEqual(300);
    expect(text).toMatch(/… \[truncated: \d+ more characters not shown\]$/);
    expect(text).toContain('Captured output:');
  });
});

describe('model-visible text is capped', () => {
  it('at maxVisibleChars with a marker; the logs give way so the returned value stays visible; the value keeps everything', async () => {
    const rt = runtime({ maxVisibleChars: 200 });
    const result = await runCode(rt, 'console.log("a".repeat(150)); console.log("b".repeat(150)); return "end"');
    const text = textOf(result);
    expect(text.length).toBeLessThanOrEqual(200);
    expect(text.startsWith('a'.repeat(100))).toBe(true);
    expect(text.endsWith('\nend')).toBe(true);
    const marker = text.match(/\n… \[truncated: (\d+) more characters not shown\]\nend$/);
    expect(marker).not.toBeNull();
    // The shown logs are a prefix of all logs, and the marker counts exactly what is not shown.
    const logs = `${'a'.repeat(150)}\n${'b'.repeat(150)}`;
    const shown = text.slice(0, text.indexOf('\n… [truncated'));
    expect(logs.startsWith(shown)).toBe(true);
    expect(Number(marker![1])).toBe(logs.length - shown.length);
    expect(runValue(result)).toEqual({ logs: ['a'.repeat(150), 'b'.repeat(150)], result: 'end' });
  });

  it('a returned value longer than the cap is itself truncated, after a share of the logs', () => {
    const text = renderRunCodeText({ logs: ['log line'], result: 'r'.repeat(500) }, 200);
    expect(text.length).toBeLessThanOrEqual(200);
    expect(text.startsWith('log line\n')).toBe(true);
    expect(text).toMatch(/^log line\nr+\n… \[truncated: \d+ more characters not shown\]$/);
  });

  it('truncateVisible: the cap holds when it is too small for the marker, and surrogate pairs stay whole', () => {
    expect(truncateVisible('x'.repeat(50), 10)).toBe('x'.repeat(10));
    const emoji = '😀'.repeat(100);
    for (const max of [60, 61, 101, 150]) {
      const text = truncateVisible(emoji, max);
      expect(text.length).toBeLessThanOrEqual(max);
      const shown = text.slice(0, text.indexOf('\n…'));
      expect(shown).toBe('😀'.repeat(shown.length / 2));
      expect(text.endsWith(`[truncated: ${emoji.length - shown.length} more characters not shown]`)).toBe(true);
    }
  });

  it('text under the cap is untouched', async () => {
    const rt = runtime({ maxVisibleChars: 200 });
    expect(textOf(await runCode(rt, 'return "short"'))).toBe('short');
  });
});

describe('cancellation', () => {
  it('mid-run: the nested call in flight is aborted, queued calls never start, the run fails with kind abort', async () => {
    const rt = runtime();
    const controller = new AbortController();
    const started: string[] = [];
    let sawAbort = false;
    rt.register(
      probeTool({
        name: 'slow',
        body: async (args, exec) => {
          started.push(String(args.tag));
          controller.abort(new Error('user pressed stop'));
          await untilAborted(exec.signal);
          sawAbort = true;
          throw exec.signal.reason;
        },
      }),
    );
    const observed: string[] = [];
    rt.on('tools/result', (r) => {
      observed.push(`${r.callId}:${r.error?.code ?? 'ok'}`);
    });
    const result = await runCode(
      rt,
      'console.log("go"); await Promise.all([tools.slow({ tag: "1" }), tools.slow({ tag: "2" })]); return "finished"',
      { signal: controller.signal },
    );
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe('CODE_RUN_FAILED');
    expect(result.error?.info?.kind).toBe('abort');
    expect(textOf(result)).toContain('Captured output:\ngo');
    expect(sawAbort).toBe(true);
    expect(started).toEqual(['1']);
    // Everything that was dispatched finished before run_code's own result.
    expect(observed[observed.length - 1]).toBe('rc:CODE_RUN_FAILED');
    expect(observed[0]).toBe('rc:ptc:1:ABORTED');
  });

  it('an already-aborted signal never starts the program', async () => {
    const rt = runtime();
    let bodies = 0;
    rt.register(probeTool({ name: 'alpha', body: () => ++bodies }));
    const result = await runCode(rt, 'await tools.alpha({})', { signal: AbortSignal.abort() });
    expect(result.error?.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(bodies).toBe(0);
  });

  it('calls still in flight when the program returns are aborted and drained; calls made after the end are not dispatched', async () => {
    const rt = runtime();
    const names: string[] = [];
    let slowStarted = false;
    let slowAborted = false;
    rt.register(
      probeTool({
        name: 'slow',
        body: async (_args, exec) => {
          slowStarted = true;
          await untilAborted(exec.signal);
          slowAborted = true;
          return 'late';
        },
      }),
    );
    rt.register(probeTool({ name: 'after' }));
    rt.on('tools/pre-execute', (exec, next) => {
      names.push(exec.name);
      return next();
    });
    const observed: string[] = [];
    rt.on('tools/result', (r) => {
      observed.push(`${r.callId}:${r.error?.code ?? 'ok'}`);
    });
    const result = await runCode(
      rt,
      `
      tools.slow({}).finally(() => tools.after({}).catch(() => {}));
      return 'returned early';`,
    );
    expect(runValue(result).result).toBe('returned early');
    // The run may end before or after the call's body starts; either way it is aborted and drained.
    expect(slowAborted).toBe(slowStarted);
    expect(observed).toEqual([slowStarted ? 'rc:ptc:1:ABORTED' : 'rc:ptc:1:ABORTED_BEFORE_DISPATCH', 'rc:ok']);
    expect(names).not.toContain('after');
  });
});
