// defineTool: compiles a definition once (schemas, ajv validators) and wraps its
// callbacks so that the body only ever sees validated, frozen arguments.
import { capDescription } from '../../sdk-gen/cap-description.ts';
import type { ValidateFunction } from 'ajv';
import { DefinitionError } from '../errors/definition-error.ts';
import { ToolArgsError, type ArgIssue } from '../errors/tool-args-error.ts';
import { deepFreeze, type JsonValue } from '../json/json-value.ts';
import type { ContentBlock, ToolResult } from '../pipeline/tool-result.ts';
import type { ToolExecution } from '../pipeline/tool-execution.ts';
import type { ToolCallerKind } from '../pipeline/tool-caller.ts';
import { capSchemaDescriptions } from './cap-schema-descriptions.ts';
import { setCheckedBody } from './checked-body.ts';
import type { Tool } from './tool.ts';
import { checkEffectSpec, effectFields, type EffectExecution, type ToolEffect } from './tool-effect.ts';
import { compileJsonSchema } from './compile-json-schema.ts';
import { compileParameters, compileSchema, type JsonSchema } from './compile-schema.ts';
import type { SchemaDialect } from './create-ajv.ts';
import type { InferArgs, InferNode, JsonValueType, PropertyMap, SchemaNode } from './schema-node.ts';
import { schemaValidator, validationIssues } from './schema-validator.ts';
import { isStandardSchema, parseStandardArgs, standardJsonSchema, type StandardSchemaV1 } from './standard-schema.ts';

export type { Tool } from './tool.ts';

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
  /** Deadline in ms, positive and finite: enforced by the runtime's timeout policy, on unless `createToolRuntime({ timeoutPolicy: false })`. */
  readonly timeoutMs?: number;
  /** Return exactly `true` to let this call overlap others. Invalid args or a throw mean exclusive. */
  readonly isConcurrencySafe?: (args: A) => boolean;
  /**
   * The resource this call changes (an account id, a file path): calls whose keys are
   * equal never overlap — within the process for every journal store, across all hosts
   * of the database for the PostgreSQL store. The lock is held only while the body runs;
   * waiting for it respects the call's abort signal and timeout.
   */
  readonly resourceKey?: (args: A) => string;
  /** Tells the model the schema is loaded on demand. */
  readonly deferLoading?: boolean;
  /**
   * Hosted mode only (`'hosted'`: the provider runs the model's program): who may call
   * this tool. `['program']` (the default): only programs the provider runs — sent with
   * `allowed_callers` naming the code-execution tool, and a direct call is refused;
   * `['direct']`: only the model directly, and a program's call is refused (DENIED);
   * `['direct', 'program']`: both. Other modes ignore it.
   */
  readonly callers?: readonly ToolCallerKind[];
  /** Content projection before post-execute (successes only). */
  readonly projectContent?: (args: A, value: V, content: readonly ContentBlock[]) => ContentBlock[];
  /** Last-mile content transform of every outcome. Must be total. */
  readonly finalizeContent?: (content: readonly ContentBlock[], result: ToolResult) => ContentBlock[];
  /** UI-only data for top-level direct calls. */
  readonly presentationMeta?: (args: A, value: V) => JsonValue;
  /** Pure presenters for UIs and replays; given logged input that no longer fits, they are skipped. */
  readonly presentCall?: (args: A) => JsonValue;
  readonly presentResult?: (args: A, result: ToolResult) => JsonValue;
  /**
   * What the call does to the world, for `rt.preview` / `rt.commit`: `'read'` changes
   * nothing (a preview runs it live); `'write'` changes something (a preview records it
   * in the plan and does not run it). Unknown means dangerous. @default 'write'
   */
  readonly effect?: ToolEffect;
  /** A write's stand-in result in a preview: what the program receives instead of running it (must fit the output schema). */
  readonly preview?: (args: A, exec: EffectExecution) => Awaitable<R>;
  /** Undoes an applied write when a later write of the same commit fails (the commits of a plan are undone last-first). */
  readonly revert?: (args: A, result: V, exec: EffectExecution) => Awaitable<void>;
  /** A write whose real result the program needs to go on: a preview stops at it and its plan is partial. */
  readonly pivot?: boolean;
}

/** The DSL form: a property map and a schema node for the output. */
export interface ToolSpec<P extends PropertyMap, O extends SchemaNode>
  extends ToolSpecBase<InferArgs<P>, InferNode<O>, ReturnableValue<InferNode<O>>> {
  readonly parameters: P;
  readonly output: ToolSpecBase<InferArgs<P>, InferNode<O>>['output'] & { readonly schema: O };
}

const NAME_PATTERN = /^[^\s]{1,128}$/u;

function checkSpec(spec: Record<string, unknown>): void {
  const bad = (field: string, message: string): never => {
    throw new DefinitionError('INVALID_DEFINITION', `defineTool(${JSON.stringify(spec.name)}): ${field} ${message}`, {
      field,
    });
  };
  if (typeof spec.name !== 'string' || !NAME_PATTERN.test(spec.name))
    bad('name', 'must be a non-empty string of at most 128 characters without whitespace');
  if (typeof spec.description !== 'string') bad('description', 'must be a string');
  if (typeof spec.execute !== 'function') bad('execute', 'must be a function returning the canonical JSON value');
  const output = spec.output as Record<string, unknown> | undefined;
  if (typeof output !== 'object' || output === null)
    bad('output', 'is required: { schema, render(args, value) => ContentBlock[] }');
  if (!Object.hasOwn(output!, 'schema')) bad('output.schema', 'is required (use { type: "json" } for any JSON value)');
  if (typeof output!.render !== 'function')
    bad('output.render', 'must be a pure function (args, value) => ContentBlock[]');
  if (
    spec.timeoutMs !== undefined &&
    (typeof spec.timeoutMs !== 'number' || !Number.isFinite(spec.timeoutMs) || spec.timeoutMs <= 0)
  ) {
    bad('timeoutMs', `must be a positive finite number of milliseconds, got ${String(spec.timeoutMs)}`);
  }
  for (const f of [
    'isConcurrencySafe',
    'resourceKey',
    'projectContent',
    'finalizeContent',
    'presentationMeta',
    'presentCall',
    'presentResult',
  ]) {
    if (spec[f] !== undefined && typeof spec[f] !== 'function') bad(f, 'must be a function when given');
  }
  if (spec.deferLoading !== undefined && typeof spec.deferLoading !== 'boolean')
    bad('deferLoading', 'must be a boolean');
  checkEffectSpec(spec);
  if (spec.callers !== undefined) {
    const callers = spec.callers;
    if (
      !Array.isArray(callers) ||
      callers.length === 0 ||
      callers.some((c) => c !== 'direct' && c !== 'program') ||
      new Set(callers).size !== callers.length
    )
      bad('callers', `must be a non-empty list of distinct 'direct' / 'program', got ${JSON.stringify(callers)}`);
  }
}

const issuesOf = (validate: ValidateFunction, value: unknown): ArgIssue[] => validationIssues(validate, value);

/** Defines a tool from the schema DSL. Throws DefinitionError for a bad definition. */
export function defineTool<const P extends PropertyMap, const O extends SchemaNode>(spec: ToolSpec<P, O>): Tool {
  checkSpec(spec as unknown as Record<string, unknown>);
  const parameters = compileParameters(spec.parameters, 'parameters');
  const outputSchema = compileSchema(spec.output.schema, 'output.schema');
  // Compiled once per definition, never per call.
  return buildTool(spec as unknown as ToolSpecBase<JsonValue, JsonValue>, {
    parameters,
    outputSchema,
    validateArgs: schemaValidator(parameters, spec.name, 'parameters'),
    validateOutput: schemaValidator(outputSchema, spec.name, 'output.schema'),
  });
}

/** A schema from outside: JSON Schema (an object or `true`/`false`) or a Standard Schema v1 (zod 4, …). */
export type OutsideSchema = StandardSchemaV1 | { readonly [keyword: string]: unknown } | boolean;
/** Arguments a body receives: the Standard Schema's parsed output, else any JSON. */
export type OutsideArgs<P> = [P] extends [StandardSchemaV1] ? StandardSchemaV1.InferOutput<P> : JsonValue;
/** The value a body returns: what the Standard Schema accepts, else any JSON. */
export type OutsideValue<O> = [O] extends [StandardSchemaV1] ? StandardSchemaV1.InferInput<O> : JsonValue;

/** The outside-schema form: full JSON Schema or a Standard Schema for the arguments and (optionally) the value. */
export interface JsonSchemaToolSpec<P extends OutsideSchema, O extends OutsideSchema>
  extends ToolSpecBase<OutsideArgs<P>, OutsideValue<O>> {
  readonly parameters: P;
  readonly output: ToolSpecBase<OutsideArgs<P>, OutsideValue<O>>['output'] & { readonly schema?: O };
  /** Dialect of a JSON Schema without a recognised `$schema`. @default 'draft-2020-12' */
  readonly schemaDialect?: SchemaDialect;
}

const OBJECT_ROOT: JsonSchema = Object.freeze({ type: 'object' });
const ANY_VALUE: JsonSchema = Object.freeze({});

/** Resolves one outside schema to JSON Schema; a Standard Schema without a usable converter degrades. */
function outsideJsonSchema(
  source: unknown,
  io: 'input' | 'output',
  degraded: JsonSchema,
  warnings: string[],
  where: string,
): unknown {
  if (!isStandardSchema(source)) return source;
  const converted = standardJsonSchema(source, io);
  if (converted.ok) return converted.schema;
  warnings.push(`${where} is typed loosely (${converted.reason})`);
  return degraded;
}

/**
 * Defines a tool whose schemas come from outside (MCP servers, zod, raw JSON Schema):
 * full JSON Schema in its dialect (draft 2020-12 or draft-07, chosen by `$schema`),
 * validated by ajv with formats. A Standard Schema (zod 4, …) is converted to JSON
 * Schema for models and the SDK, and its own `validate` is the authority on the
 * arguments (the body receives its parsed output). An absent output schema means any
 * JSON value. Refused (DefinitionError UNSUPPORTED_SCHEMA) only: a reference outside the
 * schema, or a schema beyond the nesting/size limits. A schema ajv cannot compile is kept
 * unvalidated here, with a note in `schemaWarnings`.
 */
export function defineJsonSchemaTool<const P extends OutsideSchema, const O extends OutsideSchema = true>(
  spec: JsonSchemaToolSpec<P, O>,
): Tool {
  checkSpec({ ...spec, output: { ...spec.output, schema: spec.output.schema ?? {} } } as unknown as Record<
    string,
    unknown
  >);
  const warnings: string[] = [];
  const defaultDialect = spec.schemaDialect ?? 'draft-2020-12';
  const rawParameters = outsideJsonSchema(spec.parameters, 'input', OBJECT_ROOT, warnings, 'parameters');
  const parameters = compileJsonSchema(rawParameters, { path: 'parameters', defaultDialect, fallback: OBJECT_ROOT });
  const rootType = parameters.schema.type;
  if (rootType !== undefined && rootType !== 'object' && !(Array.isArray(rootType) && rootType.includes('object'))) {
    throw new DefinitionError(
      'UNSUPPORTED_SCHEMA',
      `schema at parameters: the root must be { type: "object" } (tool arguments are an object), got type ${JSON.stringify(rootType)}`,
      { path: 'parameters' },
    );
  }
  const rawOutput =
    spec.output.schema === undefined
      ? ANY_VALUE
      : outsideJsonSchema(spec.output.schema, 'output', ANY_VALUE, warnings, 'output.schema');
  const output = compileJsonSchema(rawOutput, { path: 'output.schema', defaultDialect, fallback: ANY_VALUE });
  for (const compiled of [parameters, output]) if (compiled.warning !== undefined) warnings.push(compiled.warning);
  // An output schema we cannot compile is not checked, so the value is any JSON: say so in the types too.
  const outputSchema = output.warning === undefined ? output.schema : ANY_VALUE;
  const standard = isStandardSchema(spec.parameters) ? spec.parameters : undefined;
  // Outside text goes whole into native schemas, so each description is capped (visibly);
  // validation keeps the schemas as compiled.
  const description = capDescription(spec.description);
  return buildTool({ ...spec, description } as unknown as ToolSpecBase<JsonValue, JsonValue>, {
    parameters: capSchemaDescriptions(parameters.schema),
    outputSchema: capSchemaDescriptions(outputSchema),
    validateArgs: parameters.validate,
    validateOutput: output.validate,
    ...(standard === undefined
      ? {}
      : { parseArgs: (args: JsonValue) => parseStandardArgs(standard, spec.name, args) as Promise<JsonValue> }),
    schemaWarnings: warnings,
  });
}

interface CompiledSchemas {
  readonly parameters: JsonSchema;
  readonly outputSchema: JsonSchema;
  readonly validateArgs: ValidateFunction;
  readonly validateOutput: ValidateFunction;
  /** The authority on arguments after ajv, when the schema has its own (Standard Schema). */
  readonly parseArgs?: (args: JsonValue) => Promise<JsonValue>;
  readonly schemaWarnings?: readonly string[];
}

function buildTool(spec: ToolSpecBase<JsonValue, JsonValue>, compiled: CompiledSchemas): Tool {
  const { parameters, outputSchema, validateArgs, validateOutput, parseArgs } = compiled;
  // The compiled schemas are shared with every projection sent to a model: nobody may edit them.
  deepFreeze(parameters);
  deepFreeze(outputSchema);
  const fits = (args: JsonValue): boolean => issuesOf(validateArgs, args).length === 0;
  const {
    isConcurrencySafe,
    presentCall,
    presentResult,
    projectContent,
    finalizeContent,
    presentationMeta,
    resourceKey,
  } = spec;
  const userExecute = spec.execute;
  const render = spec.output.render;
  const tool: Tool = {
    name: spec.name,
    description: spec.description,
    parameters,
    outputSchema,
    deferLoading: spec.deferLoading === true,
    ...(spec.callers === undefined ? {} : { callers: Object.freeze([...spec.callers]) }),
    schemaWarnings: Object.freeze([...(compiled.schemaWarnings ?? [])]),
    timeoutMs: spec.timeoutMs,
    async invoke(args, exec) {
      const issues = issuesOf(validateArgs, args);
      if (issues.length > 0) throw new ToolArgsError(spec.name, issues);
      return userExecute(parseArgs === undefined ? args : await parseArgs(args), exec);
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
    ...(resourceKey === undefined ? {} : { resourceKey }),
    ...effectFields(spec),
    projectContent,
    finalizeContent,
    presentationMeta,
    presentCall: (args) => (presentCall !== undefined && fits(args) ? presentCall(args) : undefined),
    presentResult: (args, result) =>
      presentResult !== undefined && fits(args) ? presentResult(args, result) : undefined,
  };
  // Without a Standard Schema, invoke is ajv's check and the body: the pipeline, which has
  // checked the same arguments against this definition, may call the body itself.
  if (parseArgs === undefined) setCheckedBody(tool, userExecute);
  return Object.freeze(tool);
}
