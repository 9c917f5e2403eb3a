// A Python program runs in a Python process of its own, never on the host's thread: a
// long native operation ends at its CPU budget (the host kills its process) while other
// runs, Python and TypeScript, complete and the host's event loop keeps turning; a
// process that crashes fails its own run only, and the next run gets a fresh one.
import { afterEach, describe, expect, it } from '@jest/globals';
import { PythonSandbox } from '../../sandbox/python/python-sandbox.ts';
import type { HostCall, HostCallOutcome } from '../../sandbox/types.ts';
import { createToolRuntime, defineTool, type JsonValue, type ToolResult, type ToolRuntime } from '../../src/index.ts';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((each) => each.close()));
});

const JSON_OUTPUT = {
  schema: { type: 'json' },
  render: (_args: unknown, value: unknown) => [{ type: 'text' as const, text: JSON.stringify(value) }],
} as const;

const program = (rt: ToolRuntime, code: string, callId: string, agent?: string): Promise<ToolResult> =>
  rt.execute({
    callId,
    name: 'run_code',
    ...(agent === undefined ? {} : { agent }),
    arguments: { description: 'isolation test', code },
  });

/** Counts turns of the host's event loop (a setImmediate chain) until stopped. */
function loopTurns(): { stop(): number } {
  let turns = 0;
  let going = true;
  const turn = (): void => {
    turns += 1;
    if (going) setImmediate(turn);
  };
  setImmediate(turn);
  return {
    stop: () => {
      going = false;
      return turns;
    },
  };
}

describe('a long native operation', () => {
  it('ends at the CPU budget while a Python run and a TypeScript run complete and the event loop keeps turning', async () => {
    const rt = createToolRuntime({ mode: 'ptc', guest: 'python', limits: { cpuTimeMs: 300 } });
    open.push(rt);
    rt.register(
      defineTool({
        name: 'echo',
        description: 'Echoes its arguments.',
        parameters: { v: { type: 'json' } },
        isConcurrencySafe: () => true,
        output: JSON_OUTPUT,
        execute: (args) => args as JsonValue,
      }),
    );
    const typescript = rt.createAgent('typescript-agent');
    rt.setGuest('typescript', { agent: typescript });
    // Both guests warm, so the hostile run is what the loop waits on, if anything.
    expect((await program(rt, '1', 'warm-py')).isError).toBe(false);
    expect((await program(rt, 'return 1;', 'warm-ts', typescript.id)).isError).toBe(false);

    const turns = loopTurns();
    const hostile = program(rt, 'x = 3 ** 40000000\nx % 10', 'hostile');
    const [python, ts] = await Promise.all([
      program(rt, 'total = 0\nfor i in range(5):\n    total += echo(v=i)["v"]\ntotal', 'python'),
      program(
        rt,
        'let total = 0;\nfor (let i = 0; i < 5; i++) total += (await tools.echo({ v: i })).v;\nreturn total;',
        'ts',
        typescript.id,
      ),
    ]);
    const ended = await hostile;
    const turned = turns.stop();
    expect(python.isError).toBe(false);
    expect((python.value as { result: unknown }).result).toBe(10);
    expect(ts.isError).toBe(false);
    expect((ts.value as { result: unknown }).result).toBe(10);
    expect(ended.isError).toBe(true);
    expect(ended.error?.info?.kind).toBe('cpu');
    expect(ended.error?.message).toMatch(/CPU budget of 300 ms/);
    // In the host's thread the operation held the loop for seconds without one turn.
    expect(turned).toBeGreaterThan(50);
    // The next Python run works.
    expect((await program(rt, '1 + 1', 'after')).value).toEqual({ logs: [], result: 2 });
  }, 120_000);
});

/** A host whose tool `ping` reports each call (its argument) and answers at once; `echo` echoes. */
function pingHost(onPing: (v: unknown) => void): HostCall {
  return async ({ toolName, argsJson }): Promise<HostCallOutcome> => {
    if (toolName === 'ping') onPing((JSON.parse(argsJson) as { v: unknown }).v);
    return { ok: true, valueJson: argsJson };
  };
}

const FUNCTIONS = {
  ping: { tool: 'ping', parameters: {} },
  echo: { tool: 'echo', parameters: {} },
} as const;

describe('a Python process that crashes', () => {
  it('fails its own run with kind crash; a concurrent run completes and the next run gets a fresh process', async () => {
    // The doomed program's state is too large to leave its process while it waits on ping: it
    // stays in the one process there is when it calls; the run beside it leaves its process at each call.
    const sandbox = await PythonSandbox.create({ cpuTimeMs: 60_000 }, { warmProcesses: 0, parkStateBytes: 2_000 });
    open.push(sandbox);
    let pinged!: (pids: number[]) => void;
    const pingedPids = new Promise<number[]>((resolve) => {
      pinged = resolve;
    });
    const hostCall = pingHost(() => pinged(sandbox.processPids));
    const doomed = sandbox.run({
      code: 'data = "x" * 10000\nping(v=1)\nwhile True:\n    pass',
      toolNames: [],
      hostCall,
      functions: FUNCTIONS,
    });
    // Only the doomed run's process lives when it calls ping (no warm processes).
    const [pid] = await pingedPids;
    expect(pid).toEqual(expect.any(Number));
    const beside = sandbox.run({
      code: 'total = 0\nfor i in range(20):\n    total += echo(v=i)["v"]\ntotal',
      toolNames: [],
      hostCall,
      functions: FUNCTIONS,
    });
    process.kill(pid!, 'SIGSEGV');
    const crashed = await doomed;
    expect(crashed).toMatchObject({ ok: false, kind: 'crash' });
    expect(!crashed.ok && crashed.message).toMatch(/Python process stopped unexpectedly \(signal SIGSEGV\)/);
    expect(await beside).toMatchObject({ ok: true, result: 190 });
    const next = await sandbox.run({ code: '"fresh"', toolNames: [], hostCall, functions: FUNCTIONS });
    expect(next).toMatchObject({ ok: true, result: 'fresh' });
    expect(sandbox.processPids).not.toContain(pid);
  }, 120_000);
});
