// Standard Schema v1 (zod 4, valibot, arktype, …) accepted directly in a definition.
// The interfaces are the spec's own (https://standardschema.dev), copied as its authors
// recommend, so our public types need no extra package. Two parts are used:
// - `~standard.jsonSchema` (Standard JSON Schema, zod >= 4.2): the JSON Schema that
//   models, the SDK and ajv see;
// - `~standard.validate`: the authority on arguments. It is the author's own schema, so
//   refinements, transforms and defaults that JSON Schema cannot express still apply,
//   and the body receives its parsed output.
import { ToolArgsError, type ArgIssue } from '../errors/tool-args-error.ts';

/** The Standard Schema v1 interface (validation). */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output>;
}
export declare namespace StandardSchemaV1 {
  interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (
      value: unknown,
      options?: { readonly libraryOptions?: Record<string, unknown> | undefined } | undefined,
    ) => Result<Output> | Promise<Result<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    /** Standard JSON Schema: present on zod >= 4.2 and other converters. */
    readonly jsonSchema?:
      | {
          readonly input: (options: { readonly target: string }) => Record<string, unknown>;
          readonly output: (options: { readonly target: string }) => Record<string, unknown>;
        }
      | undefined;
  }
  type Result<Output> =
    | { readonly value: Output; readonly issues?: undefined }
    | { readonly issues: ReadonlyArray<Issue> };
  interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
  }
  type InferInput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['input'];
  type InferOutput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['output'];
}

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return (
    typeof props === 'object' &&
    props !== null &&
    (props as { version?: unknown }).version === 1 &&
    typeof (props as { validate?: unknown }).validate === 'function'
  );
}

/**
 * The schema's JSON Schema (2020-12) for its input or output side, or an error text
 * when it has no converter or the converter cannot express it (zod throws for
 * `z.date()`, transforms on the output side, …).
 */
export function standardJsonSchema(
  schema: StandardSchemaV1,
  io: 'input' | 'output',
): { ok: true; schema: unknown } | { ok: false; reason: string } {
  const converter = schema['~standard'].jsonSchema;
  if (converter === undefined)
    return {
      ok: false,
      reason: `the ${schema['~standard'].vendor} schema offers no JSON Schema (~standard.jsonSchema)`,
    };
  try {
    return { ok: true, schema: converter[io]({ target: 'draft-2020-12' }) };
  } catch (error) {
    return {
      ok: false,
      reason: `the ${schema['~standard'].vendor} schema cannot be expressed as JSON Schema: ${(error as Error).message}`,
    };
  }
}

const pointer = (path: StandardSchemaV1.Issue['path']): string =>
  (path ?? [])
    .map((segment) => {
      const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
      return `/${String(key).replace(/~/gu, '~0').replace(/\//gu, '~1')}`;
    })
    .join('');

/** Validates with the schema's own `validate`; throws ToolArgsError (INVALID_ARGS) with its issues. */
export async function parseStandardArgs(schema: StandardSchemaV1, toolName: string, args: unknown): Promise<unknown> {
  const result = await schema['~standard'].validate(args);
  if (result.issues !== undefined) {
    const issues: ArgIssue[] = result.issues
      .slice(0, 20)
      .map((issue) => ({ path: pointer(issue.path), message: issue.message }));
    throw new ToolArgsError(toolName, issues.length > 0 ? issues : [{ path: '', message: 'is invalid' }]);
  }
  return result.value;
}
