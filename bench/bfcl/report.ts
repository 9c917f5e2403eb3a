// Sums of entry runs, and the Markdown table of bench/README.md.
import type { EntryRun } from './run-entry.ts';

export interface ModeTotals {
  readonly passed: number;
  readonly modelRequests: number;
  readonly toolCalls: number;
  /** Definitions with every request plus every tool result, o200k_base tokens. */
  readonly contextTokens: number;
  readonly methodCalls: number;
  readonly definitionTokens: number;
  readonly resultTokens: number;
  /** Definitions sent once per distinct tool list (deferred / cached definitions) plus results. */
  readonly contextTokensDefinitionsOnce: number;
  /** The whole conversation resent with every request, summed over requests. */
  readonly conversationTokens: number;
  /** Everything a stateless API is sent: definitions and the conversation, every request. */
  readonly requestTokens: number;
}

export interface Aggregate {
  readonly entries: number;
  readonly native: ModeTotals;
  readonly ptc: ModeTotals;
  /** run_code over tools defined with `deferLoading: true` (signatures read with `$describe`). */
  readonly ptcDeferred?: ModeTotals;
}

const sum = (runs: readonly EntryRun[]): ModeTotals => {
  const t = (f: (r: EntryRun) => number): number => runs.reduce((s, r) => s + f(r), 0);
  return {
    passed: runs.filter((r) => r.passed).length,
    modelRequests: t((r) => r.modelRequests),
    toolCalls: t((r) => r.toolCalls),
    contextTokens: t((r) => r.definitionTokens + r.resultTokens),
    methodCalls: t((r) => r.methodCalls),
    definitionTokens: t((r) => r.definitionTokens),
    resultTokens: t((r) => r.resultTokens),
    contextTokensDefinitionsOnce: t((r) => r.definitionTokensOnce + r.resultTokens),
    conversationTokens: t((r) => r.conversationTokens),
    requestTokens: t((r) => r.definitionTokens + r.conversationTokens),
  };
};

export function aggregate(runs: readonly { native: EntryRun; ptc: EntryRun; ptcDeferred?: EntryRun }[]): Aggregate {
  const deferred = runs.flatMap((r) => (r.ptcDeferred === undefined ? [] : [r.ptcDeferred]));
  return {
    entries: runs.length,
    native: sum(runs.map((r) => r.native)),
    ptc: sum(runs.map((r) => r.ptc)),
    ...(deferred.length === runs.length && runs.length > 0 ? { ptcDeferred: sum(deferred) } : {}),
  };
}

const n = (x: number): string => x.toLocaleString('en-US');
const ratio = (ptc: number, native: number): string => (native === 0 ? '–' : `${(ptc / native).toFixed(2)}×`);

export function markdownReport(
  report: Aggregate & { readonly categories: Readonly<Record<string, Aggregate>> },
): string {
  const rows: string[] = [
    '| category | entries | passed native / ptc | model requests native → ptc | tool calls native → ptc | context tokens native → ptc |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  const pair = (a: number, b: number): string => `${n(a)} → ${n(b)} (${ratio(b, a)})`;
  const row = (name: string, a: Aggregate): string =>
    `| ${name} | ${a.entries} | ${a.native.passed} / ${a.ptc.passed} | ${pair(a.native.modelRequests, a.ptc.modelRequests)} | ${pair(a.native.toolCalls, a.ptc.toolCalls)} | ${pair(a.native.contextTokens, a.ptc.contextTokens)} |`;
  for (const [name, a] of Object.entries(report.categories)) rows.push(row(name.replace(/^multi_turn_/, ''), a));
  rows.push(row('**all**', report));
  const tokensOnly = (name: string, pick: (m: ModeTotals) => number): string =>
    `| ${name} | ${report.entries} | | | | ${pair(pick(report.native), pick(report.ptc))} |`;
  rows.push(
    tokensOnly('all, definitions sent once per tool list (deferred loading)', (m) => m.contextTokensDefinitionsOnce),
  );
  rows.push(tokensOnly('all, whole conversation resent with every request', (m) => m.requestTokens));
  const d = report.ptcDeferred;
  if (d !== undefined)
    rows.push(
      `| all, run_code over \`deferLoading\` tools (\`$describe\` before first use) | ${report.entries} | ${report.native.passed} / ${d.passed} | ${pair(report.native.modelRequests, d.modelRequests)} | ${pair(report.native.toolCalls, d.toolCalls)} | ${pair(report.native.contextTokens, d.contextTokens)} |`,
    );
  return rows.join('\n');
}
