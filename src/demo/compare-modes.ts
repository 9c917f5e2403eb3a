// Runs a scenario natively (scripted model, every result enters the model's context)
// and as one run_code program, and measures both.
import type { JsonValue } from '../json/json-value.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import { createToolRuntime, type ToolRuntime } from '../runtime/create-tool-runtime.ts';
import type { Scenario } from './scenario.ts';
import { shopTools } from './shop-tools.ts';

export interface ModeRun {
  /** Model responses needed, the final answer included. */
  readonly roundTrips: number;
  readonly toolCalls: number;
  /** Characters of tool output that entered the model's context. */
  readonly contextChars: number;
  readonly wallMs: number;
  readonly answer: JsonValue;
}

const contentChars = (results: readonly ToolResult[]): number =>
  results.reduce(
    (sum, r) => sum + r.content.reduce((s, b) => s + (b.type === 'text' ? b.text.length : b.data.length), 0),
    0,
  );

export async function runNative(rt: ToolRuntime, scenario: Scenario): Promise<ModeRun> {
  const started = performance.now();
  const script = scenario.native();
  let step = script.next();
  let roundTrips = 0;
  let toolCalls = 0;
  let contextChars = 0;
  while (step.done !== true) {
    roundTrips += 1;
    const calls = step.value.map((c) => ({ callId: `native-${++toolCalls}`, name: c.name, arguments: c.arguments }));
    const turn = await rt.executeTurn(calls, {});
    contextChars += contentChars(turn.results);
    step = script.next(turn.results);
  }
  return {
    roundTrips: roundTrips + 1,
    toolCalls,
    contextChars,
    wallMs: performance.now() - started,
    answer: step.value,
  };
}

export async function runProgrammatic(rt: ToolRuntime, scenario: Scenario): Promise<ModeRun> {
  const started = performance.now();
  let nested = 0;
  const stop = rt.on('tools/result', (r) => {
    if (r.callId.startsWith('ptc-1:ptc:')) nested += 1;
  });
  try {
    const result = await rt.execute({
      callId: 'ptc-1',
      name: 'run_code',
      arguments: { description: scenario.question, code: scenario.program },
    });
    if (result.isError) throw new Error(`run_code failed: ${result.error?.message ?? ''}`);
    const value = result.value as { result?: JsonValue };
    // One response calls run_code, one more gives the answer.
    return {
      roundTrips: 2,
      toolCalls: 1 + nested,
      contextChars: contentChars([result]),
      wallMs: performance.now() - started,
      answer: value.result ?? null,
    };
  } finally {
    stop();
  }
}

/** Both runs on fresh runtimes over the built-in shop tools (mode `both`). */
export async function compareModes(scenario: Scenario): Promise<{ native: ModeRun; ptc: ModeRun }> {
  const fresh = (): ToolRuntime => {
    const rt = createToolRuntime({ mode: 'both' });
    for (const tool of shopTools()) rt.register(tool);
    return rt;
  };
  const nativeRt = fresh();
  const ptcRt = fresh();
  try {
    return { native: await runNative(nativeRt, scenario), ptc: await runProgrammatic(ptcRt, scenario) };
  } finally {
    await Promise.all([nativeRt.close(), ptcRt.close()]);
  }
}
