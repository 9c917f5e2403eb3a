// What crosses between the host and a Python process is bounded: a tool's result and a
// paused program's saved state by `maxMessageBytes`, a call's arguments by MAX_ARGS_BYTES;
// and the processes themselves by `maxProcesses` (a run waiting for one counts that wait
// against its wall clock).
import { afterEach, describe, expect, it } from '@jest/globals';
import { MAX_ARGS_BYTES } from '../../sandbox/limits.ts';
import { PythonSandbox, type PythonSandboxOptions } from '../../sandbox/python/python-sandbox.ts';
import type { HostCall, HostCallRequest, SandboxLimits } from '../../sandbox/types.ts';

const open: PythonSandbox[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((sandbox) => sandbox.close()));
});

async function sandboxWith(options: PythonSandboxOptions, limits?: Partial<SandboxLimits>): Promise<PythonSandbox> {
  const sandbox = await PythonSandbox.create(limits, options);
  open.push(sandbox);
  return sandbox;
}

const FUNCTIONS = {
  echo: { tool: 'echo', parameters: {} },
  big: { tool: 'big', parameters: {} },
  wait: { tool: 'wait', parameters: {} },
} as const;

/** `echo` echoes, `big` answers 10 KB, `wait` answers only when aborted (then rejects); `calls` sees each. */
function host(calls: HostCallRequest[] = [], onWait?: () => void): HostCall {
  return ({ toolName, argsJson, signal, seq }) => {
    calls.push({ toolName, argsJson, signal, seq });
    if (toolName === 'big') return Promise.resolve({ ok: true, valueJson: JSON.stringify('x'.repeat(10_000)) });
    if (toolName === 'wait') {
      onWait?.();
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopped'))));
    }
    return Promise.resolve({ ok: true, valueJson: argsJson });
  };
}

const untilCalled = (): { called: Promise<void>; onWait: () => void } => {
  let onWait!: () => void;
  const called = new Promise<void>((resolve) => {
    onWait = resolve;
  });
  return { called, onWait };
};

describe('what crosses to a Python process', () => {
  it("a tool's result over maxMessageBytes raises RuntimeError RESULT_TOO_LARGE in the program", async () => {
    const sandbox = await sandboxWith({ maxMessageBytes: 1_000 });
    const code = 'try:\n    big()\nexcept RuntimeError as e:\n    r = str(e)\nr';
    const outcome = await sandbox.run({ code, toolNames: [], hostCall: host(), functions: FUNCTIONS });
    expect(outcome).toMatchObject({
      ok: true,
      result: expect.stringMatching(/^RESULT_TOO_LARGE: big's result is 10002 bytes/),
    });
  }, 60_000);

  it('arguments over MAX_ARGS_BYTES raise RuntimeError ARGS_TOO_LARGE; the tool is not called', async () => {
    const sandbox = await sandboxWith({});
    const calls: HostCallRequest[] = [];
    const code = `try:\n    echo(v="a" * ${MAX_ARGS_BYTES})\nexcept RuntimeError as e:\n    r = str(e).split(":")[0]\nr`;
    const outcome = await sandbox.run({ code, toolNames: [], hostCall: host(calls), functions: FUNCTIONS });
    expect(outcome).toMatchObject({ ok: true, result: 'ARGS_TOO_LARGE' });
    expect(calls).toEqual([]);
  }, 60_000);

  it('a paused program keeps its saved state up to maxMessageBytes; past it the run stops without one', async () => {
    for (const [maxMessageBytes, kept] of [
      [1_048_576, true],
      [100, false],
    ] as const) {
      const sandbox = await sandboxWith({ maxMessageBytes });
      const { called, onWait } = untilCalled();
      const stop = new AbortController();
      const running = sandbox.run({
        code: 'x = [1, 2, 3]\nwait()\nlen(x)',
        toolNames: [],
        hostCall: host([], onWait),
        functions: FUNCTIONS,
        signal: stop.signal,
      });
      await called;
      stop.abort();
      const outcome = await running;
      expect(outcome).toMatchObject({ ok: false, kind: 'abort' });
      expect(!outcome.ok && outcome.suspended !== undefined).toBe(kept);
      if (!outcome.ok && outcome.suspended !== undefined) {
        const resumed = await sandbox.run({
          code: '',
          toolNames: [],
          hostCall: host(),
          functions: { ...FUNCTIONS, wait: { tool: 'echo', parameters: {} } },
          resumeFrom: outcome.suspended,
        });
        expect(resumed).toMatchObject({ ok: true, result: 3 });
      }
    }
  }, 120_000);

  it('a saved state larger than maxMessageBytes is not sent to a process: the resumed run fails with kind crash', async () => {
    const sandbox = await sandboxWith({ maxMessageBytes: 100 });
    const outcome = await sandbox.run({
      code: '',
      toolNames: [],
      hostCall: host(),
      functions: FUNCTIONS,
      resumeFrom: { state: 'A'.repeat(101), seq: 1 },
    });
    expect(outcome).toMatchObject({ ok: false, kind: 'crash' });
    expect(!outcome.ok && outcome.message).toMatch(
      /saved state is 101 bytes, more than a Python process takes \(100 bytes\)/,
    );
  }, 60_000);
});

describe('Python processes', () => {
  it('past maxProcesses a run waits for a free one, its wait counted against its wall clock', async () => {
    // The holder's state is too large to leave its process while it waits: it keeps the one there is.
    const sandbox = await sandboxWith({ maxProcesses: 1, warmProcesses: 0, parkStateBytes: 2_000 });
    const { called, onWait } = untilCalled();
    const stop = new AbortController();
    const holder = sandbox.run({
      code: 'data = "x" * 10000\nwait()',
      toolNames: [],
      hostCall: host([], onWait),
      functions: FUNCTIONS,
      signal: stop.signal,
    });
    await called;
    const waiting = await sandbox.run({
      code: '1',
      toolNames: [],
      hostCall: host(),
      functions: FUNCTIONS,
      limits: { wallTimeMs: 300 },
    });
    expect(waiting).toMatchObject({ ok: false, kind: 'timeout' });
    stop.abort();
    expect(await holder).toMatchObject({ ok: false, kind: 'abort' });
    // The one process is free again.
    expect(await sandbox.run({ code: '2', toolNames: [], hostCall: host(), functions: FUNCTIONS })).toMatchObject({
      ok: true,
      result: 2,
    });
    expect(sandbox.processPids.length).toBeLessThanOrEqual(1);
  }, 60_000);

  it('runs waiting on a tool hold no process: 12 runs wait together on 2 processes, then all complete', async () => {
    const sandbox = await sandboxWith({ maxProcesses: 2 });
    const count = 12;
    let arrived = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const hostCall: HostCall = async ({ argsJson }) => {
      if (++arrived === count) release();
      await gate;
      return { ok: true, valueJson: argsJson };
    };
    const code = 'print("start", end="")\nr = echo(v=7)\nprint(" end")\nr["v"] * 2';
    const runs = Array.from({ length: count }, () =>
      sandbox.run({ code, toolNames: [], hostCall, functions: FUNCTIONS }),
    );
    for (const outcome of await Promise.all(runs)) {
      // The line begun before the call ends after it, in whichever process took the run back.
      expect(outcome).toEqual({ ok: true, logs: ['start end'], result: 14 });
    }
    expect(arrived).toBe(count);
    expect(sandbox.processPids.length).toBeLessThanOrEqual(2);
  }, 120_000);

  it('with parkStateBytes 0 a run keeps its process while it waits: the same results', async () => {
    const sandbox = await sandboxWith({ parkStateBytes: 0 });
    const code = 'total = 0\nfor i in range(5):\n    total += echo(v=i)["v"]\ntotal';
    expect(await sandbox.run({ code, toolNames: [], hostCall: host(), functions: FUNCTIONS })).toMatchObject({
      ok: true,
      result: 10,
    });
  }, 60_000);

  it('a type check runs in a Python process and reports the program lines', async () => {
    const sandbox = await sandboxWith({});
    const check = await sandbox.typeCheck('x: int = "a"', 'def f() -> int:\n    ...');
    expect(check).toMatchObject({
      ok: true,
      diagnostics: [{ line: 1, message: expect.stringMatching(/invalid-assignment/) }],
    });
  }, 60_000);
});
