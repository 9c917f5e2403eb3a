// `ptc demo`: the built-in shop tools answer one multi-step question natively and with
// one run_code program, side by side. No API key, no network, so no real model: the
// model's share of the wall time is a stated latency per round trip (a flag), added to
// the measured tool time, so the comparison does not leave out what dominates it. The
// sandbox starts before the clock, so a busy machine's slow start-up cannot flip it.
import { compareModes } from '../demo/compare-modes.ts';
import { lateDeliveries } from '../demo/late-deliveries.ts';
import { runApprovalDemo } from '../demo/approval-demo.ts';
import { o200kCounter } from './count-tokens.ts';

/** What one model round trip is assumed to take when none is measured. */
export const DEFAULT_MODEL_LATENCY_MS = 1000;

export interface DemoOptions {
  /** Assumed latency of one model round trip, in ms. @default 1000 */
  readonly modelLatencyMs?: number;
}

export async function runDemo(out: (text: string) => void, options: DemoOptions = {}): Promise<boolean> {
  const latency = options.modelLatencyMs ?? DEFAULT_MODEL_LATENCY_MS;
  const [{ native, ptc, sandboxStartMs }, count] = await Promise.all([compareModes(lateDeliveries), o200kCounter()]);
  const same = JSON.stringify(native.answer) === JSON.stringify(ptc.answer);
  const withModel = (run: { wallMs: number; roundTrips: number }): string =>
    (run.wallMs + run.roundTrips * latency).toFixed(0);
  const rows: [string, string, string][] = [
    ['', 'native tool calls', 'run_code (ptc)'],
    ['model round trips', String(native.roundTrips), String(ptc.roundTrips)],
    ['tool calls executed', String(native.toolCalls), String(ptc.toolCalls)],
    ['tool output in context (chars)', String(native.contextChars), String(ptc.contextChars)],
    ['tool output in context (tokens)', String(count(native.contextText)), String(count(ptc.contextText))],
    ['tool time alone (ms)', native.wallMs.toFixed(0), ptc.wallMs.toFixed(0)],
    [`wall time at ${latency} ms per round trip (ms)`, withModel(native), withModel(ptc)],
    ['answer', JSON.stringify(native.answer), JSON.stringify(ptc.answer)],
  ];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]): string =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join(' | ')
      .trimEnd();
  out(`Question: ${lateDeliveries.question}\n\n`);
  out(`${line(rows[0]!)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}\n`);
  for (const r of rows.slice(1)) out(`${line(r)}\n`);
  const saved = 1 - ptc.contextChars / native.contextChars;
  out(
    `\n${same ? 'Both answers agree.' : 'THE ANSWERS DIFFER.'} run_code kept ${(saved * 100).toFixed(1)}% of the tool output out of the model's context.\n`,
  );
  out(
    [
      'What the rows measure:',
      '- model round trips: model responses needed, the final answer included;',
      '- tool calls executed: calls of the shop tools (run_code: its nested calls, and run_code itself);',
      "- tool output in context: what the tools' results put in front of the model (tokens: o200k_base);",
      "- tool time alone: from the first call to the answer, the model's time excluded; the sandbox was",
      `  started before this clock (${sandboxStartMs.toFixed(0)} ms, once per runtime), as a long-lived runtime has it running;`,
      `- wall time: tool time plus ${latency} ms per round trip. No model runs here, so its latency is a stated`,
      '  figure (--model-latency-ms to change it), not a measurement.',
    ].join('\n') + '\n',
  );
  const durable = await runApprovalDemo(out);
  return same && durable;
}
