// Modes: what a provider receives and what the prompt holds in native, ptc
// and both; the ptc refusal of model-direct native calls; per-agent declarations;
// missing configuration; the SDK's placement, stability and visibility rules.
import { describe, expect, it } from '@jest/globals';
import { createToolRuntime, deny, ToolRuntimeError } from '../../src/index.ts';
import type { ToolRuntime } from '../../src/runtime/create-tool-runtime.ts';
import { PTC_ONLY_INSTRUCTION } from '../../src/ptc/ptc-prompt.ts';
import { RUN_CODE_DESCRIPTION } from '../../src/ptc/run-code-tool.ts';
import { probeTool, ptcRuntimes, runCode, runValue } from './helpers.ts';

const runtime = ptcRuntimes();

function withTools(rt: ToolRuntime, ...names: string[]): ToolRuntime {
  for (const name of names) rt.register(probeTool({ name }));
  return rt;
}

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

const names = (rt: ToolRuntime, agent?: string): string[] =>
  rt.schemas(agent === undefined ? {} : { agent }).map((s) => s.name);
const refusal = (name: string): string =>
  `unknown tool "${name}": only run_code is callable directly — call ${name} from inside a run_code program instead`;

describe('schemas and prompt per mode', () => {
  it('ptc: exactly one schema, run_code, with description listed before code, both required', () => {
    const rt = withTools(runtime(), 'alpha', 'beta');
    const schemas = rt.schemas();
    expect(schemas).toHaveLength(1);
    const [runCodeSchema] = schemas;
    expect(runCodeSchema!.name).toBe('run_code');
    // By default the description carries the instruction and the SDK: a plain tool list is enough.
    expect(runCodeSchema!.description).toBe(`${RUN_CODE_DESCRIPTION}\n\n${PTC_ONLY_INSTRUCTION}\n\n${rt.sdk()}`);
    const parameters = runCodeSchema!.parameters as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(parameters.properties)).toEqual(['description', 'code']);
    expect(parameters.required).toEqual(['description', 'code']);
    // Only the projection fields, never callbacks.
    expect(Object.keys(runCodeSchema!).sort()).toEqual(['description', 'name', 'parameters']);
  });

  it('ptc: the SDK is embedded by default, so the prompt is empty; opted out, the prompt is the instruction, then the SDK', () => {
    expect(withTools(runtime(), 'alpha').prompt()).toEqual([]);
    const rt = withTools(runtime({ embedSdkInDescription: false }), 'alpha', 'beta');
    expect(rt.schemas()[0]!.description).toBe(RUN_CODE_DESCRIPTION);
    const prompt = rt.prompt();
    expect(prompt.map((s) => s.id)).toEqual(['ptc-instructions', 'ptc-sdk']);
    expect(prompt[0]!.text).toBe(PTC_ONLY_INSTRUCTION);
    expect(prompt[1]!.text).toContain(rt.sdk());
    expect(rt.sdk()).toMatch(/ alpha: Tool</);
    expect(rt.sdk()).toMatch(/ beta: Tool</);
  });

  it('both: every native schema plus run_code (with the SDK, not the ptc-only instruction); opted out, the prompt has the SDK', () => {
    const embedded = withTools(runtime({ mode: 'both' }), 'beta', 'alpha');
    expect(names(embedded)).toEqual(['alpha', 'beta', 'run_code']);
    expect(embedded.schemas()[2]!.description).toBe(`${RUN_CODE_DESCRIPTION}\n\n${embedded.sdk()}`);
    expect(embedded.prompt()).toEqual([]);
    const rt = withTools(runtime({ mode: 'both', embedSdkInDescription: false }), 'beta', 'alpha');
    expect(names(rt)).toEqual(['alpha', 'beta', 'run_code']);
    expect(rt.prompt().map((s) => s.id)).toEqual(['ptc-sdk']);
    expect(rt.prompt()[0]!.text).toContain(rt.sdk());
  });

  it('native: the visible schemas only, an empty prompt, and run_code is an unknown tool', async () => {
    const rt = withTools(runtime({ mode: 'native' }), 'alpha');
    expect(names(rt)).toEqual(['alpha']);
    expect(rt.prompt()).toEqual([]);
    expect(rt.tool('run_code')).toBeUndefined();
    const result = await runCode(rt, 'return 1');
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe('UNKNOWN_TOOL');
  });

  it('native needs no sandbox; ptc and both without one fail loudly with PTC_NOT_CONFIGURED', async () => {
    const native = createToolRuntime({ sandbox: false });
    native.register(probeTool({ name: 'alpha' }));
    expect((await native.execute({ callId: 'n1', name: 'alpha', arguments: {} })).isError).toBe(false);
    const agent = native.createAgent('a');
    for (const mode of ['ptc', 'both'] as const) {
      expect(thrownBy(() => createToolRuntime({ mode, sandbox: false }))).toMatchObject({ code: 'PTC_NOT_CONFIGURED' });
      expect(thrownBy(() => createToolRuntime({ mode, sandbox: false }))).toBeInstanceOf(ToolRuntimeError);
      expect(thrownBy(() => native.setMode(mode, { agent }))).toMatchObject({ code: 'PTC_NOT_CONFIGURED' });
    }
    expect(native.mode({ agent })).toBe('native');
    await native.close();
  });

  it('an unknown mode is refused with the allowed values', () => {
    expect(() => createToolRuntime({ mode: 'hybrid' as 'ptc', sandbox: false })).toThrow(/native, ptc, both/);
  });
});

describe('model-direct calls in ptc mode', () => {
  it('a native tool is refused with the exact message, UNKNOWN_TOOL, before any policy runs', async () => {
    const rt = withTools(runtime(), 'alpha');
    let bodies = 0;
    rt.register(probeTool({ name: 'counted', body: () => ++bodies }));
    const preSeen: string[] = [];
    const observed: string[] = [];
    rt.on('tools/pre-execute', (exec, next) => {
      preSeen.push(exec.callId);
      return next();
    });
    rt.on('tools/result', (r) => {
      observed.push(r.callId);
    });
    const result = await rt.execute({ callId: 'd1', name: 'counted', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.error).toEqual({ code: 'UNKNOWN_TOOL', message: refusal('counted') });
    expect(result.content).toEqual([{ type: 'text', text: `Error: ${refusal('counted')}` }]);
    expect(preSeen).toEqual([]);
    expect(bodies).toBe(0);
    // Still a final result: observers see it.
    expect(observed).toEqual(['d1']);
  });

  it('the same tool called from inside a run_code program runs, through pre-execute', async () => {
    const rt = withTools(runtime(), 'alpha');
    const preSeen: string[] = [];
    rt.on('tools/pre-execute', (exec, next) => {
      preSeen.push(exec.callId);
      return next();
    });
    const result = await runCode(rt, 'return await tools.alpha({ tag: "x" })');
    expect(runValue(result).result).toEqual({ tool: 'alpha', args: { tag: 'x' } });
    expect(preSeen).toEqual(['rc', 'rc:ptc:1']);
  });

  it('the refusal applies to model-direct calls in a turn too; run_code in the same turn runs', async () => {
    const rt = withTools(runtime(), 'alpha');
    const turn = await rt.executeTurn([
      { callId: 't1', name: 'alpha', arguments: {} },
      {
        callId: 't2',
        name: 'run_code',
        arguments: { description: 'Call alpha', code: 'return (await tools.alpha({})).tool' },
      },
    ]);
    expect(turn.results.map((r) => r.error?.message ?? r.value)).toEqual([
      refusal('alpha'),
      { logs: [], result: 'alpha' },
    ]);
  });

  it('a truly unknown name is UNKNOWN_TOOL without the run_code hint (it goes through dispatch)', async () => {
    const rt = withTools(runtime(), 'alpha');
    const preSeen: string[] = [];
    rt.on('tools/pre-execute', (exec, next) => {
      preSeen.push(exec.name);
      return next();
    });
    const result = await rt.execute({ callId: 'u1', name: 'nope', arguments: {} });
    expect(result.error?.code).toBe('UNKNOWN_TOOL');
    expect(result.error?.message).toBe('unknown tool "nope"');
    expect(preSeen).toEqual(['nope']);
  });

  it('in both mode a model-direct native call runs normally', async () => {
    const rt = withTools(runtime({ mode: 'both' }), 'alpha');
    const result = await rt.execute({ callId: 'b1', name: 'alpha', arguments: { tag: 't' } });
    expect(result.isError).toBe(false);
    expect(result.value).toEqual({ tool: 'alpha', args: { tag: 't' } });
  });

  it('run_code itself is subject to pre-execute like any call', async () => {
    const rt = withTools(runtime(), 'alpha');
    rt.on('tools/pre-execute', (exec, next) => (exec.name === 'run_code' ? deny('no programs today') : next()));
    const result = await runCode(rt, 'return 1');
    expect(result.error).toEqual({ code: 'DENIED', message: 'no programs today' });
  });
});

describe('per-agent mode declarations', () => {
  it('nearest scope wins, one declaration per scope, disposing restores the parent', () => {
    const rt = withTools(runtime({ mode: 'native' }), 'alpha');
    const team = rt.createAgent('team');
    const worker = rt.createAgent('worker', { parent: team });
    expect(rt.mode({ agent: worker })).toBe('native');

    const teamPtc = rt.setMode('ptc', { agent: team });
    expect(rt.mode({ agent: team })).toBe('ptc');
    expect(rt.mode({ agent: worker })).toBe('ptc');
    expect(rt.mode()).toBe('native');
    expect(names(rt, 'worker')).toEqual(['run_code']);
    expect(names(rt)).toEqual(['alpha']);

    const workerBoth = rt.setMode('both', { agent: 'worker' });
    expect(rt.mode({ agent: worker })).toBe('both');
    expect(rt.mode({ agent: team })).toBe('ptc');
    expect(names(rt, 'worker')).toEqual(['alpha', 'run_code']);
    expect(() => rt.setMode('native', { agent: worker })).toThrow(/already declares a mode/);

    workerBoth();
    expect(rt.mode({ agent: worker })).toBe('ptc');
    workerBoth(); // idempotent
    expect(rt.mode({ agent: worker })).toBe('ptc');
    teamPtc();
    expect(rt.mode({ agent: worker })).toBe('native');
    expect(rt.prompt({ agent: worker })).toEqual([]);
    // After disposal the scope may declare again.
    const again = rt.setMode('ptc', { agent: worker });
    expect(rt.mode({ agent: worker })).toBe('ptc');
    again();
  });

  it('setMode needs an agent; the runtime default comes from createToolRuntime', () => {
    const rt = runtime({ mode: 'native' });
    expect(() => rt.setMode('ptc', undefined as unknown as { agent: string })).toThrow(/give \{ agent \}/);
  });

  it("the refusal and run_code follow the calling agent's mode", async () => {
    const rt = withTools(runtime({ mode: 'native' }), 'alpha');
    const agent = rt.createAgent('p');
    rt.setMode('ptc', { agent });
    const direct = await rt.execute({ callId: 'x1', name: 'alpha', arguments: {}, agent: 'p' });
    expect(direct.error?.message).toBe(refusal('alpha'));
    const global = await rt.execute({ callId: 'x2', name: 'alpha', arguments: {} });
    expect(global.isError).toBe(false);
    const nested = await runCode(rt, 'return (await tools.alpha({})).tool', { agent: 'p' });
    expect(runValue(nested).result).toBe('alpha');
    const noRunCode = await runCode(rt, 'return 1');
    expect(noRunCode.error?.code).toBe('UNKNOWN_TOOL');
  });
});

describe('the SDK', () => {
  it("is in run_code's description by default and never in the prompt too; embedSdkInDescription: false moves it to the prompt", () => {
    const rt = withTools(runtime(), 'alpha');
    const [schema] = rt.schemas();
    expect(schema!.description.startsWith(RUN_CODE_DESCRIPTION)).toBe(true);
    expect(schema!.description).toContain(rt.sdk());
    expect(rt.prompt()).toEqual([]);
    const plain = withTools(runtime({ embedSdkInDescription: false }), 'alpha');
    expect(plain.schemas()[0]!.description).toBe(RUN_CODE_DESCRIPTION);
    expect(
      plain
        .prompt()
        .filter((s) => s.text.includes(plain.sdk()))
        .map((s) => s.id),
    ).toEqual(['ptc-sdk']);
    expect(() => createToolRuntime({ embedSdkInDescription: 'yes' as unknown as boolean, sandbox: false })).toThrow(
      'createToolRuntime: embedSdkInDescription must be a boolean, got "yes"',
    );
  });

  it('is byte-identical for identical inputs, whatever the registration order, and never lists run_code', () => {
    const a = withTools(runtime(), 'zeta', 'alpha', 'mid');
    const b = withTools(runtime({ mode: 'both', embedSdkInDescription: false }), 'mid', 'zeta', 'alpha');
    expect(a.sdk()).toBe(b.sdk());
    expect(a.sdk()).toBe(a.sdk());
    expect(a.sdk()).not.toMatch(/run_code/);
    expect(b.prompt()[0]!.text).not.toMatch(/run_code: Tool/);
    // Rebuilt when the registry changes.
    const before = a.sdk();
    const dispose = a.register(probeTool({ name: 'extra' }));
    expect(a.sdk()).not.toBe(before);
    dispose();
    expect(a.sdk()).toBe(before);
  });

  it("a restriction hides a tool from the agent's SDK; the program cannot see it and a direct call is unknown", async () => {
    const rt = withTools(runtime(), 'alpha', 'secret');
    const agent = rt.createAgent('limited');
    rt.restrict(agent, { deny: ['secret'] });
    expect(rt.sdk()).toMatch(/ secret: Tool</);
    expect(rt.sdk({ agent })).not.toMatch(/secret/);
    expect(
      rt
        .schemas({ agent })
        .map((s) => s.description)
        .join('\n'),
    ).not.toMatch(/secret/);
    const seen = await runCode(
      rt,
      'return { alpha: typeof tools.alpha, secret: typeof tools.secret, has: "secret" in tools }',
      { agent: 'limited' },
    );
    expect(runValue(seen).result).toEqual({ alpha: 'function', secret: 'undefined', has: false });
    const called = await runCode(rt, 'try { await tools.secret({}); return "ran" } catch (e) { return String(e) }', {
      agent: 'limited',
    });
    expect(runValue(called).result).toMatch(/TypeError/);
    // Hidden is unknown: no ptc hint, since the agent has no such tool.
    const direct = await rt.execute({ callId: 'r1', name: 'secret', arguments: {}, agent: 'limited' });
    expect(direct.error).toEqual({ code: 'UNKNOWN_TOOL', message: 'unknown tool "secret"' });
  });

  it('a tool hidden while a run is under way fails inside the program as UNKNOWN_TOOL', async () => {
    const rt = withTools(runtime(), 'secret');
    const agent = rt.createAgent('limited');
    let secretBodies = 0;
    rt.register(probeTool({ name: 'counted_secret', body: () => ++secretBodies }));
    rt.register(
      probeTool({
        name: 'hide',
        body: () => {
          rt.restrict(agent, { deny: ['counted_secret'] });
          return 'hidden';
        },
      }),
    );
    const program = `
      const before = typeof tools.counted_secret;
      await tools.hide({});
      try {
        await tools.counted_secret({});
        return 'ran';
      } catch (e) {
        return { before, name: e.name, code: e.code, toolName: e.toolName, isToolCallError: e instanceof ToolCallError };
      }`;
    const result = await runCode(rt, program, { agent: 'limited' });
    expect(runValue(result).result).toEqual({
      before: 'function',
      name: 'ToolCallError',
      code: 'UNKNOWN_TOOL',
      toolName: 'counted_secret',
      isToolCallError: true,
    });
    expect(secretBodies).toBe(0);
  });

  it('disposing a tool removes it from the SDK and from later programs; re-registering restores it', async () => {
    const rt = withTools(runtime(), 'alpha');
    const dispose = rt.register(probeTool({ name: 'gone' }));
    expect(rt.sdk()).toMatch(/ gone: Tool</);
    dispose();
    expect(rt.sdk()).not.toMatch(/gone/);
    const after = await runCode(rt, 'return Object.keys(tools).sort()');
    expect(runValue(after).result).toEqual(['alpha']);
    const direct = await rt.execute({ callId: 'g1', name: 'gone', arguments: {} });
    expect(direct.error?.message).toBe('unknown tool "gone"');
    rt.register(probeTool({ name: 'gone' }));
    const back = await runCode(rt, 'return (await tools.gone({})).tool');
    expect(runValue(back).result).toBe('gone');
  });
});
