// defineTool: compiles a definition once (schemas, ajv validators) and wraps its
// callbacks so that the body only ever sees validated, frozen arguments.
import type { ValidateFunction } from 'ajv';
import { DefinitionError } from '../errors/definition-error.ts';
import { ToolArgsError, type ArgIssue } from '../errors/tool-args-error.ts';
import { deepFreeze, type JsonValue } from '../json/json-value.ts';
import type { ContentBlock, ToolResult } from '../pipeline/tool-result.ts';
import type { ToolExecution } from '../pipeline/tool-execution.ts';
import { compileParameters, compileSchema, type JsonSchema } from './compile-schema.ts';
import type { InferArgs, InferNode, JsonValueType, PropertyMap, SchemaNode } from './schema-node.ts';
import { schemaValidator } from './schema-validator.ts';

type Awaitable<T> = T | Promise<T>;

/**
 * What a body may return for a value of type `V`: the same shape, but readonly data is
 * fine too (the pipeline snapshots it), so a body can hand back `exec.arguments` parts or
 * another result's frozen `value` where the schema says `json`.
 */
export type ReturnableValue<V> = JsonValueType extends V
  ? V | JsonValue
  : V extends readonly (infer E)[]
    ? readonly ReturnableValue<E>[]
    : V extends object
      ? { readonly [K in keyof V]: ReturnableValue<V[K]> }
      : V;

/** What a tool author writes. `A` is the argument type, `V` the canonical value type, `R` what the body may return. */
export interface ToolSpecBase<A, V, R = V> {
  readonly name: string;
  readonly description: string;
  readonly output: {
    /** Pure: may be replayed from durable logs. */
    readonly render: (args: A, value: V) => ContentBlock[];
  };
  /** Returns the canonical JSON value (not a result object). */
  readonly execute: (args: A, exec: ToolExecution) => Awaitable<R>;
  /** Cooperative deadline, enforced when the timeout policy is installed. Positive, finite. */
  readonly timeoutMs?: number;
  /** Return exactly `true` to let this call overlap others. Invalid args or a throw mean exclusive. */
  readonly isConcurrencySafe?: (args: A) => boolean;
  /** Tells the model the schema is loaded on demand. */
  readonly deferLoading?: boolean;
  /** Content projection before post-execute (successes only). */
  readonly projectContent?: (args: A, value: V, content: readonly ContentBlock[]) => ContentBlock[];
  /** Last-mile content transform of every outcome. Must be total. */
  readonly finalizeContent?: (content: readonly ContentBlock[], result: ToolResult) => ContentBlock[];
  /** UI-only data for top-level direct calls. */
  readonly presentationMeta?: (args: A, value: V) => JsonValue;
  /** Pure presenters for UIs and replays; given logged input that no longer fits, they are skipped. */
  readonly presentCall?: (args: A) => JsonValue;
  readonly presentResult?: (args: A, result: ToolResult) => JsonValue;
}

/** The DSL form (SPEC §1): a property map and a schema node for the output. */
export interface ToolSpec<P extends PropertyMap, O extends SchemaNode>
  extends ToolSpecBase<InferArgs<P>, InferNode<O>, ReturnableValue<InferNode<O>>> {
  readonly parameters: P;
  readonly output: ToolSpecBase<InferArgs<P>, InferNode<O>>['output'] & { readonly schema: O };
}

/** A compiled tool definition, ready to register. Frozen. */
export interface Tool {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments (implicit open object root). */
  readonly parameters: JsonSchema;
  readonly outputSchema: JsonSchema;
  readonly deferLoading: boolean;
  readonly timeoutMs: number | undefined;
  /** Validates, then calls the author's body. Throws ToolArgsError (INVALID_ARGS) first if invalid. */
  invoke(args: JsonValue, exec: ToolExecution): Promise<unknown>;
  argIssues(args: JsonValue): ArgIssue[];
  outputIssues(value: JsonValue): ArgIssue[];
  render(args: JsonValue, value: JsonValue): ContentBlock[];
  /** Soft: invalid args or a throwing callback give `false` (exclusive). */
  isConcurrencySafe(args: JsonValue): boolean;
  readonly projectContent: ((args: JsonValue, value: JsonValue, content: readonly ContentBlock[]) => ContentBlock[]) | undefined;
  readonly finalizeContent: ((content: readonly ContentBlock[], result: ToolResult) => ContentBlock[]) | undefined;
  readonly presentationMeta: ((args: JsonValue, value: JsonValue) => JsonValue) | undefined;
  /** Soft: `undefined` when the logged args no longer fit, or there is no presenter. */
  presentCall(args: JsonValue): JsonValue | undefined;
  presentResult(args: JsonValue, result: ToolResult): JsonValue | undefined;
}

const NAME_PATTERN = /^[^\s]{1,128}$/u;

function checkSpec(spec: Record<string, unknown>): void {
  const bad = (field: string, message: string): never => {
    throw new DefinitionError('INVALID_DEFINITION', `defineTool(${JSON.stringify(spec.name)}): ${field} ${message}`, { field });
  };
  if (typeof spec.name !== 'string' || !NAME_PATTERN.test(spec.name)) bad('name', 'must be a non-empty string of at most 128 characters without whitespace');
  if (typeof spec.description !== 'string') bad('description', 'must be a string');
  if (typeof spec.execute !== 'function') bad('execute', 'must be a function returning the canonical JSON value');
  const output = spec.output as Record<string, unknown> | undefined;
  if (typeof output !== 'object' || output === null) bad('output', 'is required: { schema, render(args, value) => ContentBlock[] }');
  if (!Object.hasOwn(output!, 'schema')) bad('output.schema', 'is required (use { type: "json" } for any JSON value)');
  if (typeof output!.render !== 'function') bad('output.render', 'must be a pure function (args, value) => ContentBlock[]');
  if (spec.timeoutMs !== undefined && (typeof spec.timeoutMs !== 'number' || !Number.isFinite(spec.timeoutMs) || spec.timeoutMs <= 0)) {
    bad('timeoutMs', `must be a positive finite number of milliseconds, got ${String(spec.timeoutMs)}`);
  }
  for (const f of ['isConcurrencySafe', 'projectContent', 'finalizeContent', 'presentationMeta', 'presentCall', 'presentResult']) {
    if (spec[f] !== undefined && typeof spec[f] !== 'function') bad(f, 'must be a function when given');
  }
  if (spec.deferLoading !== undefined && typeof spec.deferLoading !== 'boolean') bad('deferLoading', 'must be a boolean');
}

const issuesOf = (validate: ValidateFunction, value: unknown): ArgIssue[] =>
  validate(value) ? [] : (validate.errors ?? []).map((e) => ({ path: e.instancePath, message: e.message ?? 'is invalid' }));

/** Defines a tool from the schema DSL. Throws DefinitionError for a bad definition. */
export function defineTool<const P extends PropertyMap, const O extends SchemaNode>(spec: ToolSpec<P, O>): Tool {
  checkSpec(spec as unknown as Record<string, unknown>);
  const parameters = compileParameters(spec.parameters, 'parameters');
  const outputSchema = compileSchema(spec.output.schema, 'output.schema', { dialect: 'dsl' });
  return buildTool(spec as unknown as ToolSpecBase<JsonValue, JsonValue>, parameters, outputSchema);
}

/**
 * Defines a tool whose schemas are raw JSON Schema (e.g. imported over MCP), checked
 * against the same supported subset. Absent output schema means any JSON value.
 */
export function defineJsonSchemaTool(
  spec: ToolSpecBase<JsonValue, JsonValue> & {
    readonly parameters: unknown;
    readonly output: ToolSpecBase<JsonValue, JsonValue>['output'] & { readonly schema?: unknown };
  },
): Tool {
  checkSpec({ ...spec, output: { ...spec.output, schema: spec.output.schema ?? {} } } as unknown as Record<string, unknown>);
  const parameters = compileSchema(spec.parameters, 'parameters', { dialect: 'json-schema' });
  if (parameters.type !== 'object') {
    throw new DefinitionError('UNSUPPORTED_SCHEMA', `schema at parameters: the root must be { type: "object" }`, { path: 'parameters' });
  }
  const outputSchema = compileSchema(spec.output.schema ?? {}, 'output.schema', { dialect: 'json-schema' });
  return buildTool(spec, parameters, outputSchema);
}

function buildTool(spec: ToolSpecBase<JsonValue, JsonValue>, parameters: JsonSchema, outputSchema: JsonSchema): Tool {
  // Compiled once per definition, never per call.
  const validateArgs = schemaValidator(parameters, spec.name, 'parameters');
  const validateOutput = schemaValidator(outputSchema, spec.name, 'output.schema');
  // The compiled schemas are shared with every projection sent to a model: nobody may edit them.
  deepFreeze(parameters);
  deepFreeze(outputSchema);
  const fits = (args: JsonValue): boolean => validateArgs(args) === true;
  const {
    isConcurrencySafe, presentCall, presentResult, projectContent, finalizeContent, presentationMeta,
  } = spec;
  const userExecute = spec.execute;
  const render = spec.output.render;
  const tool: Tool = {
    name: spec.name,
    description: spec.description,
    parameters,
    outputSchema,
    deferLoading: spec.deferLoading === true,
    timeoutMs: spec.timeoutMs,
    async invoke(args, exec) {
      const issues = issuesOf(validateArgs, args);
      if (issues.length > 0) throw new ToolArgsError(spec.name, issues);
      return userExecute(args, exec);
    },
    argIssues: (args) => issuesOf(validateArgs, args),
    outputIssues: (value) => issuesOf(validateOutput, value),
    render: (args, value) => render(args, value),
    isConcurrencySafe(args) {
      if (isConcurrencySafe === undefined || !fits(args)) return false;
      try {
        return isConcurrencySafe(args) === true;
      } catch {
        return false;
      }
    },
    projectContent,
    finalizeContent,
    presentationMeta,
    presentCall: (args) => (presentCall !== undefined && fits(args) ? presentCall(args) : undefined),
    presentResult: (args, result) => (presentResult !== undefined && fits(args) ? presentResult(args, result) : undefined),
  };
  return Object.freeze(tool);
}
