// `ptc sdk --stats`: what the SDK costs in tokens against the native tool definitions
// it replaces, as a provider receives them, per tool and in total.
import { sdkParts } from '../../sdk-gen/generate-sdk.ts';
import type { ToolSchema } from '../../sdk-gen/tool-schema.ts';
import { PTC_ONLY_INSTRUCTION } from '../ptc/ptc-prompt.ts';
import { RUN_CODE_DESCRIPTION } from '../ptc/run-code-tool.ts';
import type { ToolRuntime, ToolSchemaProjection } from '../runtime/create-tool-runtime.ts';
import { RUN_CODE } from '../registry/tool-registry.ts';
import type { CountTokens } from './count-tokens.ts';
import { formatSchemas } from './format-schemas.ts';

export const STATS_FORMATS = ['anthropic', 'openai'] as const;
export type StatsFormat = (typeof STATS_FORMATS)[number];

/** One loaded tool's tokens. */
export interface ToolTokens {
  readonly name: string;
  /** Its part of the SDK: its member of `tools` (argument and result types in place) and its `$ref` types. */
  readonly sdk: number;
  /** Of `sdk`, its result type (0 without an output schema). */
  readonly output: number;
  /** Its native definition as the provider receives it (JSON). */
  readonly native: number;
  /** Its output schema as JSON (0 without one): what a native model would need to know the same. */
  readonly nativeOutput: number;
}

export interface SdkStats {
  readonly tokenizer: 'o200k_base';
  readonly format: StatsFormat;
  readonly tools: readonly ToolTokens[];
  /** Object types several tools share, declared once (`type Order = …`). */
  readonly sharedTypes: { readonly names: readonly string[]; readonly tokens: number };
  /** Deferred tools' one-line listing and the members that load them (0 when none). */
  readonly deferred: number;
  /** run_code's description without any tool: its own text, the ptc-mode instruction and the SDK's fixed head. */
  readonly preamble: number;
  /** The whole SDK text (`ptc sdk`). */
  readonly sdk: number;
  /** Result types, in the members and in the shared types they use. */
  readonly outputTypes: number;
  /** The whole description of run_code in ptc mode (preamble and SDK). */
  readonly runCodeDescription: number;
  /** run_code's whole definition in ptc mode, as the provider receives it. */
  readonly runCode: number;
  /** Every native definition, as the provider receives them, one by one. */
  readonly native: number;
  /** `native` plus the output schemas. */
  readonly nativeWithOutput: number;
}

const count = (counter: CountTokens, text: string): number => (text === '' ? 0 : counter(text));

function sdkSchemas(
  rt: ToolRuntime,
  natives: readonly ToolSchemaProjection[],
  agent: string | undefined,
): ToolSchema[] {
  return natives.map((native) => {
    const tool = rt.tool(native.name, agent === undefined ? {} : { agent });
    if (tool === undefined) throw new Error(`ptc sdk --stats: tool ${native.name} is listed but not visible`);
    return {
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      outputSchema: tool.outputSchema,
      deferLoading: tool.deferLoading,
      ...(tool.schemaWarnings === undefined || tool.schemaWarnings.length === 0 ? {} : { notes: tool.schemaWarnings }),
    };
  });
}

/** A shared type's name as a word of a type's text. */
const mentions = (text: string, name: string): boolean => new RegExp(`\\b${name}\\b`).test(text);

/**
 * The token figures of an agent's SDK against its tools' native definitions. `rt` must
 * be in `both` mode (its schemas list the native tools and run_code).
 */
export function sdkStats(
  rt: ToolRuntime,
  counter: CountTokens,
  options: { readonly agent?: string; readonly format?: StatsFormat } = {},
): SdkStats {
  const agent = options.agent;
  const format = options.format ?? 'anthropic';
  const scope = agent === undefined ? {} : { agent };
  const listed = rt.schemas(scope);
  const natives = listed.filter((schema) => schema.name !== RUN_CODE);
  const runCode = listed.find((schema) => schema.name === RUN_CODE);
  if (runCode === undefined) throw new Error('ptc sdk --stats: the runtime must run in both mode');
  const schemas = sdkSchemas(rt, natives, agent);
  const sdk = rt.sdk(scope);
  // With sessions on, the SDK says how `state` carries data: the same parts, that line included.
  let parts = sdkParts(schemas);
  if (parts.text !== sdk) parts = sdkParts(schemas, { sessions: true });
  // The figures must be of the very text a model is sent.
  if (parts.text !== sdk) throw new Error('ptc sdk --stats: the SDK parts do not add up to the SDK text');
  const providerDefs = formatSchemas(natives, format) as unknown[];
  const nativeOf = new Map(
    natives.map((schema, index) => [schema.name, count(counter, JSON.stringify(providerDefs[index]))]),
  );
  const outputOf = new Map(
    schemas.map((schema) => [
      schema.name,
      schema.outputSchema === undefined ? '' : JSON.stringify(schema.outputSchema),
    ]),
  );
  const tools = parts.tools.map((tool): ToolTokens => {
    const typed = tool.result !== 'JsonValue';
    return {
      name: tool.name,
      sdk: count(counter, [...tool.types, tool.member].join('\n')),
      output: typed ? count(counter, tool.result) : 0,
      native: nativeOf.get(tool.name) ?? 0,
      nativeOutput: typed ? count(counter, outputOf.get(tool.name) ?? '') : 0,
    };
  });
  const deferredNative = natives
    .filter((schema) => schema.deferLoading === true)
    .reduce((sum, schema) => sum + (nativeOf.get(schema.name) ?? 0), 0);
  const results = parts.tools.map((tool) => tool.result).filter((result) => result !== 'JsonValue');
  const outputShared = parts.shared.filter((shared) => results.some((result) => mentions(result, shared.name)));
  const description = `${RUN_CODE_DESCRIPTION}\n\n${PTC_ONLY_INSTRUCTION}\n\n${sdk}`;
  const [runCodeDef] = formatSchemas([{ ...runCode, description }], format) as unknown[];
  const sum = (pick: (tool: ToolTokens) => number): number => tools.reduce((total, tool) => total + pick(tool), 0);
  const native = sum((tool) => tool.native) + deferredNative;
  return {
    tokenizer: 'o200k_base',
    format,
    tools,
    sharedTypes: {
      names: parts.shared.map((shared) => shared.name),
      tokens: count(counter, parts.shared.map((shared) => shared.text).join('\n')),
    },
    deferred: count(counter, parts.deferred),
    preamble: count(counter, `${RUN_CODE_DESCRIPTION}\n\n${PTC_ONLY_INSTRUCTION}\n\n${parts.preamble}\n`),
    sdk: count(counter, sdk),
    outputTypes: sum((tool) => tool.output) + count(counter, outputShared.map((shared) => shared.text).join('\n')),
    runCodeDescription: count(counter, description),
    runCode: count(counter, JSON.stringify(runCodeDef)),
    native,
    nativeWithOutput: native + sum((tool) => tool.nativeOutput),
  };
}

const ratio = (a: number, b: number): string => (b === 0 ? '–' : `${(a / b).toFixed(2)}×`);

/** The stats as a plain-text table, with a line saying what each column measures. */
export function formatSdkStats(stats: SdkStats): string {
  const width = Math.max(24, ...stats.tools.map((tool) => tool.name.length + 2));
  const row = (label: string, ...cells: (number | string)[]): string =>
    `${label.padEnd(width)}${cells.map((cell) => String(cell).padStart(10)).join('')}`;
  const lines = [
    `Tokens (${stats.tokenizer}) of the SDK against the native definitions (${stats.format} format):`,
    '  sdk: the tool in the SDK (its member, arguments and result typed in place); output: of which its result type;',
    '  native: its definition as the provider receives it (JSON); +output: native plus its output schema as JSON.',
    '',
    row('tool', 'sdk', 'output', 'native', '+output'),
    ...stats.tools.map((tool) => row(tool.name, tool.sdk, tool.output, tool.native, tool.native + tool.nativeOutput)),
  ];
  if (stats.sharedTypes.names.length > 0)
    lines.push(row(`shared types (${stats.sharedTypes.names.join(', ')})`, stats.sharedTypes.tokens));
  if (stats.deferred > 0) lines.push(row('deferred tools listing', stats.deferred));
  lines.push(
    row('preamble (fixed text)', stats.preamble),
    '',
    row('total', 'sdk', 'output', 'native', '+output'),
    row('SDK', stats.sdk, stats.outputTypes, stats.native, stats.nativeWithOutput),
    row(
      'run_code description',
      stats.runCodeDescription,
      '',
      ratio(stats.runCodeDescription, stats.native),
      ratio(stats.runCodeDescription, stats.nativeWithOutput),
    ),
    row(
      'run_code definition',
      stats.runCode,
      '',
      ratio(stats.runCode, stats.native),
      ratio(stats.runCode, stats.nativeWithOutput),
    ),
    '(the ratios are run_code ÷ native: what ptc mode sends per request against what native mode sends)',
  );
  return `${lines.join('\n')}\n`;
}
