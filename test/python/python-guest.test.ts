// The Python guest behind the same pipeline: every call a Python program makes is a
// nested execution (parent token, agent, policy, output validation), a failed call raises
// RuntimeError "CODE: message", values cross as JSON, and every limit ends the run with
// the same failure kind as a TypeScript program's.
import { afterEach, describe, expect, it } from '@jest/globals';
import {
  createToolRuntime,
  defineTool,
  deny,
  type JsonValue,
  type ToolResult,
  type ToolRuntime,
  type ToolRuntimeOptions,
} from '../../src/index.ts';

const open: ToolRuntime[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((rt) => rt.close()));
});

function pythonRuntime(options: ToolRuntimeOptions = {}): ToolRuntime {
  const rt = createToolRuntime({ mode: 'ptc', guest: 'python', ...options });
  open.push(rt);
  rt.register(
    defineTool({
      name: 'echo',
      description: 'Echoes its arguments.',
      parameters: { v: { type: 'json' }, from: { type: 'string' } },
      isConcurrencySafe: () => true,
      output: JSON_OUTPUT,
      execute: (args) => args as JsonValue,
    }),
  );
  return rt;
}

const JSON_OUTPUT = {
  schema: { type: 'json' },
  render: (_args: unknown, value: unknown) => [{ type: 'text' as const, text: JSON.stringify(value) }],
} as const;

const run = (rt: ToolRuntime, code: string, callId = 'py'): Promise<ToolResult> =>
  rt.execute({ callId, name: 'run_code', arguments: { description: 'Python test program', code } });

const valueOf = (result: ToolResult): { logs: string[]; result?: JsonValue } => {
  if (result.isError) throw new Error(`run failed: ${result.error?.message}`);
  return result.value as { logs: string[]; result?: JsonValue };
};

const kindOf = (result: ToolResult): unknown => {
  expect(result.isError).toBe(true);
  expect(result.error?.code).toBe('CODE_RUN_FAILED');
  return result.error?.info?.kind;
};

describe('a Python program is a run_code program', () => {
  it('its calls are nested executions: <outer>:ptc:n, the outer token as parent, the same agent', async () => {
    const rt = pythonRuntime();
    const agent = rt.createAgent('worker');
    rt.setGuest('python', { agent });
    const seen: { callId: string; parent: symbol | undefined; token: symbol; agent: string | undefined }[] = [];
    rt.on('tools/pre-execute', (exec, next) => {
      seen.push({ callId: exec.callId, parent: exec.parent, token: exec.token, agent: exec.agent });
      return next();
    });
    const result = await rt.execute({
      callId: 'outer',
      name: 'run_code',
      agent: agent.id,
      arguments: { description: 'three calls', code: 'for i in range(3):\n    echo(v=i)\n"ok"' },
    });
    expect(valueOf(result).result).toBe('ok');
    const [outer, ...nested] = seen;
    expect(nested.map((n) => n.callId)).toEqual(['outer:ptc:1', 'outer:ptc:2', 'outer:ptc:3']);
    for (const n of nested) {
      expect(n.parent).toBe(outer!.token);
      expect(n.agent).toBe(agent.id);
    }
  });

  it('the last expression is the result, a top-level return too; print() lines are the logs', async () => {
    const rt = pythonRuntime();
    expect(valueOf(await run(rt, 'print("a", 1)\nprint("b")\n{"x": 2}'))).toEqual({
      logs: ['a 1', 'b'],
      result: { x: 2 },
    });
    expect(valueOf(await run(rt, 'x = 3\nif x > 2:\n    return x * 2\n0')).result).toBe(6);
    expect(valueOf(await run(rt, 'x = 3'))).toEqual({ logs: [] });
  });

  it('a denied call raises RuntimeError whose message starts with the code; the body never runs', async () => {
    const rt = pythonRuntime();
    let bodies = 0;
    rt.register(
      defineTool({
        name: 'danger',
        description: 'Off limits.',
        parameters: {},
        output: JSON_OUTPUT,
        execute: () => ++bodies,
      }),
    );
    rt.on('tools/pre-execute', (exec, next) => (exec.name === 'danger' ? deny('danger is off limits') : next()));
    const code =
      'try:\n    danger()\nexcept RuntimeError as e:\n    r = [type(e).__name__, str(e).split(":")[0], str(e)]\nr';
    expect(valueOf(await run(rt, code)).result).toEqual(['RuntimeError', 'DENIED', 'DENIED: danger is off limits']);
    expect(bodies).toBe(0);
    const uncaught = await run(rt, 'danger()');
    expect(kindOf(uncaught)).toBe('exception');
    expect(uncaught.error?.message).toContain('RuntimeError: DENIED: danger is off limits');
  });

  it("a tool's invalid output is INVALID_TOOL_OUTPUT in the program", async () => {
    const rt = pythonRuntime();
    rt.register(
      defineTool({
        name: 'count',
        description: 'Returns a number (but does not).',
        parameters: {},
        output: { schema: { type: 'number' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
        execute: () => 'not a number' as unknown as number,
      }),
    );
    const code = 'try:\n    count()\nexcept RuntimeError as e:\n    r = str(e).split(":")[0]\nr';
    expect(valueOf(await run(rt, code)).result).toBe('INVALID_TOOL_OUTPUT');
  });

  it('values cross as JSON: None, tuples, 10.0, mapped argument names, None for an optional argument', async () => {
    const rt = pythonRuntime();
    const result = await run(rt, 'echo(v=[None, (1, 2), 10.0, True, {"k": "v"}], from_="2024-01-01")');
    expect(valueOf(result).result).toEqual({ v: [null, [1, 2], 10, true, { k: 'v' }], from: '2024-01-01' });
    // An optional argument given None is left out.
    expect(valueOf(await run(rt, 'echo(v=1, from_=None)')).result).toEqual({ v: 1 });
    // 10.0 comes back as 10, an int: JSON does not tell them apart.
    expect(valueOf(await run(rt, 'r = echo(v=10.0)\n[r["v"], type(r["v"]).__name__]')).result).toEqual([10, 'int']);
  });

  it('arguments JSON cannot say raise TypeError in the program, before any call', async () => {
    const rt = pythonRuntime();
    let calls = 0;
    rt.on('tools/pre-execute', (_exec, next) => {
      calls += 1;
      return next();
    });
    const code = (arg: string): string => `try:\n    echo(v=${arg})\nexcept TypeError as e:\n    r = str(e)\nr`;
    expect(valueOf(await run(rt, code('{1, 2}'))).result).toMatch(/^a set .* at echo\(v=…\)/);
    expect(valueOf(await run(rt, code('{1: 2}'))).result).toMatch(/dict key that is not a str/);
    expect(valueOf(await run(rt, code('float("nan")'))).result).toMatch(/JSON has no NaN/);
    expect(valueOf(await run(rt, code('b"x"'))).result).toMatch(/^bytes/);
    expect(valueOf(await run(rt, 'try:\n    echo(1)\nexcept TypeError as e:\n    r = str(e)\nr')).result).toMatch(
      /keyword arguments only/,
    );
    expect(calls).toBe(5); // the five run_code calls themselves: no nested call was made
  });

  it('an unknown function is a NameError; a tool read without a call can be called later', async () => {
    const rt = pythonRuntime();
    const unknown = await run(rt, 'nope(x=1)');
    expect(kindOf(unknown)).toBe('exception');
    expect(unknown.error?.message).toContain("NameError: name 'nope' is not defined");
    expect(valueOf(await run(rt, 'f = echo\nf(v=5)')).result).toEqual({ v: 5 });
  });

  it('a syntax error is kind compile', async () => {
    expect(kindOf(await run(pythonRuntime(), 'x = ('))).toBe('compile');
  });
});

describe('limits end the run with the same kinds as a TypeScript program', () => {
  it('a runaway loop: cpu', async () => {
    const result = await run(pythonRuntime({ limits: { cpuTimeMs: 200 } }), 'while True:\n    pass');
    expect(kindOf(result)).toBe('cpu');
  });

  it('a runaway loop cannot catch its limit', async () => {
    const code = 'try:\n    while True:\n        pass\nexcept BaseException:\n    r = "caught"\nr';
    expect(kindOf(await run(pythonRuntime({ limits: { cpuTimeMs: 200 } }), code))).toBe('cpu');
  });

  it('a memory bomb: memory', async () => {
    const code = 'x = []\nwhile True:\n    x.append("a" * 100000)';
    expect(kindOf(await run(pythonRuntime({ limits: { memoryMb: 16 } }), code))).toBe('memory');
    expect(kindOf(await run(pythonRuntime({ limits: { memoryMb: 16 } }), '"a" * 10**9'))).toBe('memory');
  });

  it('more heap allocations than maxAllocations: memory, counted over the whole run, calls included', async () => {
    const rt = pythonRuntime({ limits: { maxAllocations: 1_000 } });
    const over = await run(rt, 'x = [str(i) for i in range(600)]\necho(v=1)\ny = [str(i) for i in range(600)]\nlen(y)');
    expect(kindOf(over)).toBe('memory');
    expect(over.error?.message).toMatch(/more than 1000 heap allocations \(maxAllocations\)/);
    expect(valueOf(await run(rt, 'x = [str(i) for i in range(100)]\nlen(x)')).result).toBe(100);
  });

  it('deep recursion is a RecursionError the program may catch; uncaught, kind exception', async () => {
    const rt = pythonRuntime();
    const deep = 'def f(n):\n    return f(n + 1)\n';
    expect(valueOf(await run(rt, `${deep}try:\n    f(0)\nexcept RecursionError:\n    r = "caught"\nr`)).result).toBe(
      'caught',
    );
    const uncaught = await run(rt, `${deep}f(0)`);
    expect(kindOf(uncaught)).toBe('exception');
    expect(uncaught.error?.message).toContain('RecursionError');
  });

  it('more calls than maxCalls: call-limit', async () => {
    const result = await run(pythonRuntime({ limits: { maxCalls: 3 } }), 'for i in range(10):\n    echo(v=i)');
    expect(kindOf(result)).toBe('call-limit');
  });

  it('a huge result: output-limit; a result JSON cannot say: invalid-output', async () => {
    const rt = pythonRuntime({ limits: { maxResultBytes: 1000 } });
    expect(kindOf(await run(rt, '"a" * 5000'))).toBe('output-limit');
    for (const value of ['{1, 2}', 'float("inf")', 'b"x"', '2**80', '{(1, 2): 3}']) {
      expect([value, kindOf(await run(rt, value))]).toEqual([value, 'invalid-output']);
    }
  });

  it('a flood of print(): the logs stop at maxLogLines with a marker', async () => {
    const result = await run(
      pythonRuntime({ limits: { maxLogLines: 5 } }),
      'for i in range(1000):\n    print(i)\n"done"',
    );
    const { logs, result: value } = valueOf(result);
    expect(value).toBe('done');
    expect(logs).toEqual(['0', '1', '2', '3', '4', '[log output truncated: more than 5 lines]']);
  });

  it('a call that never answers: timeout at the wall-clock limit', async () => {
    const rt = pythonRuntime({ limits: { wallTimeMs: 300 } });
    rt.register(
      defineTool({
        name: 'hang',
        description: 'Never answers until aborted.',
        parameters: {},
        output: JSON_OUTPUT,
        execute: (_a, exec) =>
          new Promise((_resolve, reject) => exec.signal.addEventListener('abort', () => reject(new Error('aborted')))),
      }),
    );
    expect(kindOf(await run(rt, 'hang()'))).toBe('timeout');
  });

  it('hostile values returned by a tool: nesting past the bound raises RESULT_TOO_DEEP in the program', async () => {
    const rt = pythonRuntime();
    let deep: JsonValue = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    rt.register(
      defineTool({ name: 'deep', description: 'Deep.', parameters: {}, output: JSON_OUTPUT, execute: () => deep }),
    );
    const code = 'try:\n    deep()\nexcept RuntimeError as e:\n    r = str(e).split(":")[0]\nr';
    const result = await run(rt, code);
    // Either the pipeline refuses it first or the guest does: the program gets a code, the host lives.
    expect(typeof valueOf(result).result).toBe('string');
  });
});

describe('a failed run takes no other run with it', () => {
  it('a memory bomb and a runaway beside a run that completes', async () => {
    const rt = pythonRuntime({ limits: { memoryMb: 16, cpuTimeMs: 2_000 } });
    const [bomb, loop, good] = await Promise.all([
      run(rt, 'x = []\nwhile True:\n    x.append("a" * 100000)', 'bomb'),
      run(rt, 'while True:\n    pass', 'loop'),
      run(rt, 'total = 0\nfor i in range(20):\n    total += echo(v=i)["v"]\ntotal', 'good'),
    ]);
    expect(kindOf(bomb)).toBe('memory');
    expect(kindOf(loop)).toBe('cpu');
    expect(valueOf(good).result).toBe(190);
    // The runtime goes on.
    expect(valueOf(await run(rt, '1 + 1')).result).toBe(2);
  });
});

describe('parallel calls', () => {
  it('Python calls tools one at a time: await and asyncio.gather fail with a hint, the plain calls work', async () => {
    const rt = pythonRuntime();
    const gathered = await run(
      rt,
      'import asyncio\nasync def main():\n    return await asyncio.gather(echo(v=1), echo(v=2))\nawait main()',
    );
    expect(kindOf(gathered)).toBe('exception');
    expect(gathered.error?.message).toContain('no await, no asyncio.gather');
    const awaited = await run(rt, 'await echo(v=1)');
    expect(kindOf(awaited)).toBe('exception');
    expect(awaited.error?.message).toContain('no await, no asyncio.gather');
    expect(valueOf(await run(rt, '[echo(v=1)["v"], echo(v=2)["v"]]')).result).toEqual([1, 2]);
  });
});

describe('live run events', () => {
  it('print() lines and nested calls are run events, in program order', async () => {
    const rt = pythonRuntime();
    const seen: string[] = [];
    rt.on('run/log', (e) => seen.push(`log ${e.line}`));
    rt.on('run/call-start', (e) => seen.push(`start ${e.name} ${e.seq} ${e.callId}`));
    rt.on('run/call-end', (e) => seen.push(`end ${e.name} ${e.isError ? 'error' : 'ok'}`));
    await run(rt, 'print("looking up")\nv = echo(v=21)\nprint("got", v["v"])\nv', 'ev');
    expect(seen).toEqual(['log looking up', 'start echo 1 ev:ptc:1', 'end echo ok', 'log got 21']);
  });
});
