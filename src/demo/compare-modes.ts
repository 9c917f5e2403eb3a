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
  /** That tool output, for counting its tokens. */
  readonly contextText: string;
  readonly wallMs: number;
  readonly answer: JsonValue;
}

const contentText = (results: readonly ToolResult[]): string =>
  results.flatMap((r) => r.content.map((b) => (b.type === 'text' ? b.text : b.data))).join('');

export async function runNative(rt: ToolRuntime, scenario: Scenario): Promise<ModeRun> {
  const started = performance.now();
  const script = scenario.native();
  let step = script.next();
  let roundTrips = 0;
  let toolCalls = 0;
  let contextText = '';
  while (step.done !== true) {
    roundTrips += 1;
    const calls = step.value.map((c) => ({ callId: `native-${++toolCalls}`, name: c.name, arguments: c.arguments }));
    const turn = await rt.executeTurn(calls, {});
    contextText += contentText(turn.results);
    step = script.next(turn.results);
  }
  return {
    roundTrips: roundTrips + 1,
    toolCalls,
    contextChars: contextText.length,
    contextText,
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
      contextChars: contentText([result]).length,
      contextText: contentText([result]),
      wallMs: performance.now() - started,
      answer: value.result ?? null,
    };
  } finally {
    stop();
  }
}

/** Both runs, and what starting the sandbox took (outside run_code's tool time). */
export interface ModeComparison {
  readonly native: ModeRun;
  readonly ptc: ModeRun;
  /** Starting the sandbox (a trivial program on a fresh runtime), before run_code's clock starts. */
  readonly sandboxStartMs: number;
}

/**
 * Both runs on fresh runtimes over the built-in shop tools (mode `both`). The sandbox is
 * started before run_code's clock (a trivial program), as a long-lived runtime has it
 * running already: a one-off start-up, slow on a busy machine, is reported apart.
 */
export async function compareModes(scenario: Scenario): Promise<ModeComparison> {
  const fresh = (): ToolRuntime => {
    const rt = createToolRuntime({ mode: 'both' });
    for (const tool of shopTools()) rt.register(tool);
    return rt;
  };
  const nativeRt = fresh();
  const ptcRt = fresh();
  try {
    const started = performance.now();
    const warm = await ptcRt.execute({
      callId: 'warm-up',
      name: 'run_code',
      arguments: { description: 'Start the sandbox', code: 'return null;' },
    });
    if (warm.isError) throw new Error(`run_code failed: ${warm.error?.message ?? ''}`);
    const sandboxStartMs = performance.now() - started;
    return {
      native: await runNative(nativeRt, scenario),
      ptc: await runProgrammatic(ptcRt, scenario),
      sandboxStartMs,
    };
  } finally {
    await Promise.all([nativeRt.close(), ptcRt.close()]);
  }
}
