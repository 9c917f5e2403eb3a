// Repeated live runs: each figure per mode as the median over the runs, with the range
// (min–max) it spread over. API figures come from the providers' usage fields.
import { MODES, type Mode, type ModeTotals, type Tau2Report } from './report.ts';

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** The figures a live report gives per mode, each read from one run's totals. */
export const LIVE_FIGURES = {
  passed: (m: ModeTotals) => m.passed,
  modelRequests: (m: ModeTotals) => m.modelRequests,
  toolCalls: (m: ModeTotals) => m.toolCalls,
  apiPromptTokens: (m: ModeTotals) => m.api?.promptTokens ?? 0,
  apiCacheReadTokens: (m: ModeTotals) => m.api?.cacheReadTokens ?? 0,
  apiCacheWriteTokens: (m: ModeTotals) => m.api?.cacheWriteTokens ?? 0,
  apiOutputTokens: (m: ModeTotals) => m.api?.outputTokens ?? 0,
  contextTokens: (m: ModeTotals) => m.contextTokens,
  totalTokens: (m: ModeTotals) => m.totalTokens,
  customerPromptTokens: (m: ModeTotals) => m.customerApi?.promptTokens ?? 0,
  customerOutputTokens: (m: ModeTotals) => m.customerApi?.outputTokens ?? 0,
} as const;
export type LiveFigure = keyof typeof LIVE_FIGURES;

export function spreadOf(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median =
    sorted.length === 0
      ? 0
      : sorted.length % 2 === 1
        ? (sorted[mid] ?? 0)
        : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return { median, min: sorted[0] ?? 0, max: sorted.at(-1) ?? 0 };
}

/** Per mode run, per figure: its spread over the repetitions. */
export function liveSpread(
  runs: readonly Tau2Report[],
  modes: readonly Mode[],
): Record<string, Record<LiveFigure, Spread>> {
  const out: Record<string, Record<LiveFigure, Spread>> = {};
  for (const mode of modes)
    out[mode] = Object.fromEntries(
      Object.entries(LIVE_FIGURES).map(([name, pick]) => [name, spreadOf(runs.map((r) => pick(r[mode])))]),
    ) as Record<LiveFigure, Spread>;
  return out;
}

/** Failures listed under the table; --json keeps every one. */
const MAX_FAILURES_SHOWN = 30;

const n = (x: number): string => x.toLocaleString('en-US', { maximumFractionDigits: 1 });
const cell = (s: Spread): string => (s.min === s.max ? n(s.median) : `${n(s.median)} (${n(s.min)}–${n(s.max)})`);

const COLUMNS: readonly [string, LiveFigure][] = [
  ['passed', 'passed'],
  ['model requests', 'modelRequests'],
  ['tool calls', 'toolCalls'],
  ['API input tokens', 'apiPromptTokens'],
  ['of which cache reads', 'apiCacheReadTokens'],
  ['cache writes', 'apiCacheWriteTokens'],
  ['API output tokens', 'apiOutputTokens'],
  ['context tokens (o200k)', 'contextTokens'],
  ['total tokens (o200k)', 'totalTokens'],
  ['customer input / output tokens', 'customerPromptTokens'],
];

/** One table: a row per mode, each cell the median over the runs and (min–max) when they differ. */
export function liveMarkdownReport(runs: readonly Tau2Report[], modes: readonly Mode[] = MODES): string {
  const spread = liveSpread(runs, modes);
  const rows = [
    `| mode | ${COLUMNS.map(([title]) => title).join(' | ')} |`,
    `| --- |${COLUMNS.map(() => ' ---: |').join('')}`,
  ];
  for (const mode of modes) {
    const s = spread[mode];
    if (s === undefined) continue;
    const cells = COLUMNS.map(([, figure]) =>
      figure === 'customerPromptTokens'
        ? `${cell(s.customerPromptTokens)} / ${cell(s.customerOutputTokens)}`
        : cell(s[figure]),
    );
    rows.push(`| ${mode} | ${cells.join(' | ')} |`);
  }
  const tasks = runs[0]?.tasks ?? 0;
  const failures = runs.flatMap((r, i) =>
    r.failures.map((f) => `- run ${i + 1}, task ${f.id} (${f.mode}): ${f.failure}`),
  );
  const shown = failures.slice(0, MAX_FAILURES_SHOWN);
  const more = failures.length - shown.length;
  return [
    ...rows,
    '',
    `${runs.length} runs of ${tasks} tasks; each cell: the median over the runs, and (min–max) when they differ.`,
    ...(shown.length === 0
      ? []
      : ['', 'Failures:', ...shown, ...(more > 0 ? [`- … and ${more} more (--json has them all)`] : [])]),
  ].join('\n');
}
