// `ptc demo`: the built-in shop tools answer one multi-step question natively and
// with one run_code program, side by side. No API key, no network.
import { compareModes } from '../demo/compare-modes.ts';
import { lateDeliveries } from '../demo/late-deliveries.ts';
import { runApprovalDemo } from '../demo/approval-demo.ts';

export async function runDemo(out: (text: string) => void): Promise<boolean> {
  const { native, ptc } = await compareModes(lateDeliveries);
  const same = JSON.stringify(native.answer) === JSON.stringify(ptc.answer);
  const rows: [string, string, string][] = [
    ['', 'native tool calls', 'run_code (ptc)'],
    ['model round trips', String(native.roundTrips), String(ptc.roundTrips)],
    ['tool calls executed', String(native.toolCalls), String(ptc.toolCalls)],
    ['tool output chars in context', String(native.contextChars), String(ptc.contextChars)],
    ['wall time (ms)', native.wallMs.toFixed(0), ptc.wallMs.toFixed(0)],
    ['answer', JSON.stringify(native.answer), JSON.stringify(ptc.answer)],
  ];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]): string => r.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ');
  out(`Question: ${lateDeliveries.question}\n\n`);
  out(`${line(rows[0]!)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}\n`);
  for (const r of rows.slice(1)) out(`${line(r)}\n`);
  const saved = 1 - ptc.contextChars / native.contextChars;
  out(
    `\n${same ? 'Both answers agree.' : 'THE ANSWERS DIFFER.'} run_code kept ${(saved * 100).toFixed(1)}% of the tool output out of the model's context.\n`,
  );
  out('Wall time excludes model latency; each saved round trip also saves one model call.\n');
  const durable = await runApprovalDemo(out);
  return same && durable;
}
