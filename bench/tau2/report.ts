// Sums of task runs per mode, and the readable tables.
import type { ApiUsage } from './model.ts';
import type { TaskRun } from './run-task.ts';

export const MODES = ['native', 'nativeParallel', 'ptc'] as const;
export type Mode = (typeof MODES)[number];

export interface ModeTotals {
  readonly passed: number;
  readonly modelRequests: number;
  readonly toolCalls: number;
  /** Tool definitions with every request plus every tool result (o200k_base tokens). */
  readonly contextTokens: number;
  /** Everything sent (policy, definitions, the conversation, every request) plus everything the model wrote. */
  readonly totalTokens: number;
  readonly definitionTokens: number;
  readonly resultTokens: number;
  readonly outputTokens: number;
  /** The agent's requests as the provider's API reported them (live models). */
  readonly api?: ApiUsage;
  /** The simulated customer's requests as the provider's API reported them (live models). */
  readonly customerApi?: ApiUsage;
}

const USAGE_FIELDS = ['inputTokens', 'promptTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const;

/** Usage fields summed over runs, or undefined when no run had them. */
function usageSum(parts: readonly (ApiUsage | undefined)[]): ApiUsage | undefined {
  const present = parts.filter((p): p is ApiUsage => p !== undefined);
  if (present.length === 0) return undefined;
  const sum = (f: (typeof USAGE_FIELDS)[number]): number => present.reduce((s, p) => s + p[f], 0);
  return {
    inputTokens: sum('inputTokens'),
    promptTokens: sum('promptTokens'),
    outputTokens: sum('outputTokens'),
    cacheReadTokens: sum('cacheReadTokens'),
    cacheWriteTokens: sum('cacheWriteTokens'),
  };
}

export function totals(runs: readonly TaskRun[]): ModeTotals {
  const t = (f: (r: TaskRun) => number): number => runs.reduce((s, r) => s + f(r), 0);
  const api = usageSum(runs.map((r) => r.api));
  const customerApi = usageSum(runs.map((r) => r.customerApi));
  return {
    passed: runs.filter((r) => r.passed).length,
    modelRequests: t((r) => r.modelRequests),
    toolCalls: t((r) => r.toolCalls),
    contextTokens: t((r) => r.definitionTokens + r.resultTokens),
    totalTokens: t((r) => r.sentTokens + r.outputTokens),
    definitionTokens: t((r) => r.definitionTokens),
    resultTokens: t((r) => r.resultTokens),
    outputTokens: t((r) => r.outputTokens),
    ...(api === undefined ? {} : { api }),
    ...(customerApi === undefined ? {} : { customerApi }),
  };
}

export type Tau2Report = { readonly tasks: number } & { readonly [M in Mode]: ModeTotals } & {
  readonly failures: readonly { readonly id: string; readonly mode: Mode; readonly failure: string }[];
};

const n = (x: number): string => x.toLocaleString('en-US');
const ratio = (x: number, base: number): string => (base === 0 ? '–' : `${(x / base).toFixed(2)}×`);

export function markdownReport(report: Tau2Report): string {
  const rows = [
    '| mode | passed | model requests | tool calls | context tokens | total tokens | context vs native | total vs native |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const m of MODES) {
    const r = report[m];
    rows.push(
      `| ${m} | ${r.passed} / ${report.tasks} | ${n(r.modelRequests)} | ${n(r.toolCalls)} | ${n(r.contextTokens)} | ${n(r.totalTokens)} | ${ratio(r.contextTokens, report.native.contextTokens)} | ${ratio(r.totalTokens, report.native.totalTokens)} |`,
    );
  }
  const parts = [
    '| mode | definition tokens | result tokens | model output tokens |',
    '| --- | ---: | ---: | ---: |',
    ...MODES.map(
      (m) =>
        `| ${m} | ${n(report[m].definitionTokens)} | ${n(report[m].resultTokens)} | ${n(report[m].outputTokens)} |`,
    ),
  ];
  const failures = report.failures.map((f) => `- task ${f.id} (${f.mode}): ${f.failure}`);
  return [...rows, '', ...parts, ...(failures.length === 0 ? [] : ['', 'Failures:', ...failures])].join('\n');
}
