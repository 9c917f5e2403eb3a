// Sums of entry runs, and the Markdown table of bench/README.md.
import type { ApiUsage } from './model.ts';
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
  /** Everything the model wrote (calls, programs, answers). */
  readonly outputTokens: number;
  /** Everything sent plus everything the model wrote: `requestTokens + outputTokens`. */
  readonly totalTokens: number;
  /** A live model's API usage fields, summed (absent with the scripted oracles). */
  readonly api?: ApiUsage;
}

export interface Aggregate {
  readonly entries: number;
  readonly native: ModeTotals;
  /** Native with each turn's independent calls sent together (scripted oracle only). */
  readonly nativeParallel?: ModeTotals;
  /** nativeParallel over `defer_loading` tools found with the provider's tool search (scripted oracle only). */
  readonly nativeDeferred?: ModeTotals;
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
    outputTokens: t((r) => r.outputTokens),
    totalTokens: t((r) => r.definitionTokens + r.conversationTokens + r.outputTokens),
    ...(runs.some((r) => r.api !== undefined)
      ? {
          api: {
            inputTokens: t((r) => r.api?.inputTokens ?? 0),
            promptTokens: t((r) => r.api?.promptTokens ?? 0),
            outputTokens: t((r) => r.api?.outputTokens ?? 0),
            cacheReadTokens: t((r) => r.api?.cacheReadTokens ?? 0),
            cacheWriteTokens: t((r) => r.api?.cacheWriteTokens ?? 0),
          },
        }
      : {}),
  };
};

export interface EntryRuns {
  readonly native: EntryRun;
  readonly nativeParallel?: EntryRun;
  readonly nativeDeferred?: EntryRun;
  readonly ptc: EntryRun;
  readonly ptcDeferred?: EntryRun;
}

export function aggregate(runs: readonly EntryRuns[]): Aggregate {
  const all = (pick: (r: EntryRuns) => EntryRun | undefined): EntryRun[] | undefined => {
    const found = runs.flatMap((r) => {
      const run = pick(r);
      return run === undefined ? [] : [run];
    });
    return found.length === runs.length && runs.length > 0 ? found : undefined;
  };
  const parallel = all((r) => r.nativeParallel);
  const nativeDeferred = all((r) => r.nativeDeferred);
  const deferred = all((r) => r.ptcDeferred);
  return {
    entries: runs.length,
    native: sum(runs.map((r) => r.native)),
    ...(parallel === undefined ? {} : { nativeParallel: sum(parallel) }),
    ...(nativeDeferred === undefined ? {} : { nativeDeferred: sum(nativeDeferred) }),
    ptc: sum(runs.map((r) => r.ptc)),
    ...(deferred === undefined ? {} : { ptcDeferred: sum(deferred) }),
  };
}

const n = (x: number): string => x.toLocaleString('en-US');
const ratio = (ptc: number, native: number): string => (native === 0 ? '–' : `${(ptc / native).toFixed(2)}×`);

/**
 * One row per category and one for all: each figure native / nativeParallel / ptc, and
 * ptc ÷ nativeParallel (the fairer baseline) in brackets; then the token variants.
 */
export function markdownReport(
  report: Aggregate & { readonly categories: Readonly<Record<string, Aggregate>> },
): string {
  const rows: string[] = [
    '| category | entries | passed | model requests | tool calls | context tokens | total tokens |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  const modes = (a: Aggregate): ModeTotals[] => [
    a.native,
    ...(a.nativeParallel === undefined ? [] : [a.nativeParallel]),
    a.ptc,
  ];
  const baseline = (a: Aggregate): ModeTotals => a.nativeParallel ?? a.native;
  const cell = (a: Aggregate, pick: (m: ModeTotals) => number, withRatio = true): string =>
    `${modes(a)
      .map((m) => n(pick(m)))
      .join(' / ')}${withRatio ? ` (${ratio(pick(a.ptc), pick(baseline(a)))})` : ''}`;
  const row = (name: string, a: Aggregate): string =>
    `| ${name} | ${a.entries} | ${cell(a, (m) => m.passed, false)} | ${cell(a, (m) => m.modelRequests)} | ${cell(a, (m) => m.toolCalls)} | ${cell(a, (m) => m.contextTokens)} | ${cell(a, (m) => m.totalTokens)} |`;
  for (const [name, a] of Object.entries(report.categories)) rows.push(row(name.replace(/^multi_turn_/, ''), a));
  rows.push(row('**all**', report));
  const tokensOnly = (name: string, pick: (m: ModeTotals) => number): string =>
    `| ${name} | ${report.entries} | | | | ${cell(report, pick)} | |`;
  rows.push(
    tokensOnly('all, definitions sent once per tool list (deferred loading)', (m) => m.contextTokensDefinitionsOnce),
  );
  rows.push(tokensOnly('all, whole conversation resent with every request', (m) => m.requestTokens));
  // Over deferred tools, each against nativeParallel (every definition sent).
  const deferredRow = (name: string, d: ModeTotals | undefined): void => {
    if (d === undefined) return;
    const only = (pick: (m: ModeTotals) => number): string =>
      `${n(pick(d))} (${ratio(pick(d), pick(baseline(report)))})`;
    rows.push(
      `| ${name} | ${report.entries} | ${d.passed} | ${only((m) => m.modelRequests)} | ${only((m) => m.toolCalls)} | ${only((m) => m.contextTokens)} | ${only((m) => m.totalTokens)} |`,
    );
  };
  deferredRow(
    'all, nativeDeferred: native over `defer_loading` tools (tool search before first use)',
    report.nativeDeferred,
  );
  deferredRow('all, run_code over `deferLoading` tools (`$describe` before first use)', report.ptcDeferred);
  const legend =
    report.nativeParallel === undefined
      ? 'Each cell: native / ptc (ptc ÷ native).'
      : 'Each cell: native / nativeParallel / ptc (ptc ÷ nativeParallel).';
  return `${rows.join('\n')}\n\n${legend}`;
}

/** The same figure over repetitions: mean, and the range it spread over. */
function spread(values: readonly number[]): string {
  const mean = values.reduce((a, b) => a + b, 0) / Math.max(values.length, 1);
  const low = Math.min(...values);
  const high = Math.max(...values);
  return low === high ? n(Math.round(mean)) : `${n(Math.round(mean))} (${n(low)}–${n(high)})`;
}

/**
 * Repeated live-model runs as one table per category: each mode's passes, requests and the
 * API's own token counts, as the mean over the runs with the range they spread over.
 */
export function spreadReport(
  reports: readonly (Aggregate & { readonly categories: Readonly<Record<string, Aggregate>> })[],
): string {
  const rows = [
    `| category | mode | passed | model requests | API input tokens | API cached input tokens | API output tokens | total tokens (ours) |`,
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  const first = reports[0];
  if (first === undefined) return '';
  const scopes: [
    string,
    (r: Aggregate & { categories: Readonly<Record<string, Aggregate>> }) => Aggregate | undefined,
  ][] = [
    ...Object.keys(first.categories).map(
      (
        name,
      ): [string, (r: Aggregate & { categories: Readonly<Record<string, Aggregate>> }) => Aggregate | undefined] => [
        name.replace(/^multi_turn_/, ''),
        (r) => r.categories[name],
      ],
    ),
    ['**all**', (r) => r],
  ];
  const modes = (['native', 'nativeParallel', 'ptc'] as const).filter((mode) => first[mode] !== undefined);
  for (const [name, pick] of scopes)
    for (const mode of modes) {
      const totals = reports.flatMap((r) => {
        const m = pick(r)?.[mode];
        return m === undefined ? [] : [m];
      });
      const of = (f: (m: ModeTotals) => number): string => spread(totals.map(f));
      rows.push(
        `| ${name} | ${mode} | ${of((m) => m.passed)} | ${of((m) => m.modelRequests)} | ${of((m) => m.api?.inputTokens ?? 0)} | ${of((m) => m.api?.cacheReadTokens ?? 0)} | ${of((m) => m.api?.outputTokens ?? 0)} | ${of((m) => m.totalTokens)} |`,
      );
    }
  return `${rows.join('\n')}\n\n${reports.length} runs; each cell: the mean, and (min–max) when the runs differ.`;
}
